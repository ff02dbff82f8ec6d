"""Every exception xladoctor raises on purpose.

The CLI turns any :class:`XlaDoctorError` into one line on stderr and exit code 2, so
bad input never produces a traceback.  Parse errors carry the source name and a
1-based line and column, computed from an integer offset only when the error is
raised (the tomllib approach: offsets while parsing, positions only for messages).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: every command imports this module (issue 36, start-up)
if TYPE_CHECKING:
    import re
    from types import TracebackType
    from typing import TypeVar

    _E = TypeVar("_E", bound="InputError")

# A message quoting a huge token or shape is cut here: the error stays one readable line.
_MESSAGE_SHOWN = 2000
_LONG_TOKEN = r"\S{121,}"  # re caches it, compiled when the first error is made


def _cut_token(m: re.Match[str]) -> str:
    tok = m.group(0)
    return f"{tok[:40]}...({len(tok):,} characters)"


class XlaDoctorError(Exception):
    """Base class: something the user can fix (bad input, bad usage)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as Ctrl-C raises KeyboardInterrupt (``cli.main`` installs
    the handler): every ``finally`` and context manager runs, so the children are ended
    (:mod:`xladoctor.base.parallel`, the oracle's workers), and the CLI exits 143."""


class InputError(XlaDoctorError, ValueError):
    """Input text that xladoctor cannot read, located at ``source:line:col``.

    ``str(err)`` is the one-line form ``source:line:col: message`` that the CLI
    prints.  ``line`` and ``col`` are 1-based.
    """

    def __init__(self, message: str, source: str = "<input>", line: int = 1, col: int = 1):
        self.message = message
        self.source = source
        self.line = line
        self.col = col
        # One line whatever the input: a file name or quoted token with a newline or an
        # escape sequence must not forge or erase lines on the user's terminal.
        import re  # here: `xladoctor shape` and `--version` import no re (enum, functools; issue 36 item 5)

        from .escape import escape_field
        shown = re.sub(_LONG_TOKEN, _cut_token, message)
        if len(shown) > _MESSAGE_SHOWN:
            shown = shown[:_MESSAGE_SHOWN] + f"... ({len(shown):,} characters in all)"
        super().__init__(f"{escape_field(source)}:{line}:{col}: {escape_field(shown)}")

    @classmethod
    def at(cls: type[_E], message: str, text: str, pos: int, source: str = "<input>") -> _E:
        """Build the error for offset ``pos`` of ``text`` (line/col derived here, not earlier)."""
        pos = max(0, min(pos, len(text)))
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return cls(message, source, line, col)


class HloParseError(InputError):
    """HLO module text (or a shape/layout string) that does not parse."""


class LayoutError(InputError):
    """A shape whose layout XLA would reject (ValidateLayoutForShape), with XLA's wording."""


class VerifyError(InputError):
    """A module that parses but that XLA's HloVerifier would reject (e.g. a while without a body)."""

    instruction: str | None = None
    """The instruction the verifier stops at."""


class UnboundedSizeError(XlaDoctorError):
    """A byte size asked of a shape with an unbounded (``?``) dimension, which has none.

    Raised far from the text the shape came from; commands turn it into an
    :class:`InputError` at the first ``?`` of their input (see ``commands._common.located``).
    """


class UsageError(XlaDoctorError):
    """Command-line arguments that make no sense together."""


_UNBOUNDED_DIM = r"\[[^\]\n]*?(\?)"  # compiled (and kept by re) when an error needs it


class located:  # lower case: used as a function, `with located(text, source):`
    """Errors about a shape of ``text`` (an unbounded ``?`` dimension has no byte size)
    become ``source:line:col:`` errors at the first ``?`` dimension, like parse errors.

    A class rather than ``contextlib.contextmanager``, which ``xladoctor shape`` would import for it;
    here rather than in ``files`` (its first home), which ``xladoctor shape`` would import for it too."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source = text, source

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if isinstance(error, UnboundedSizeError):
            import re

            m = re.search(_UNBOUNDED_DIM, self.text)
            raise InputError.at(str(error), self.text, m.start(1) if m else 0, self.source) from None
