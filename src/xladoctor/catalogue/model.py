"""What one catalogue entry holds, independent of the file format it is stored in.

An entry mirrors one line of XLA's ``xla/error/error_codes.h`` (code, name,
absl status) plus what a reader needs to act on the error, written once per
language with identical keys so no language can silently fall behind.
"""

from __future__ import annotations

import re

from ..ir.value import FrozenValue

LANGUAGES = ("en", "fa")
PHASES = ("compile-time", "runtime", "any")
ORIGINS = ("xla", "xla-draft", "xladoctor")
"""Where a code comes from: ``xla`` is a line of XLA's ``error_codes.h`` with a page on
openxla.org; ``xla-draft`` a page that existed only in an unmerged draft of XLA's error
docs (no code XLA prints, no page to link); ``xladoctor`` a grouping of our own (a family
such as ``E03xx``) that XLA does not define.  See ``catalogue/data/UPSTREAM.md``."""
TEXT_FIELDS = ("title", "category", "summary", "causes", "fixes", "debug")
LIST_TEXT_FIELDS = ("causes", "fixes", "debug")


class Frozen(FrozenValue):
    """An entry's frozen value (:class:`~xladoctor.ir.value.FrozenValue`), made from keywords with
    per-class defaults, compared, hashed and printed by ``_COMPARED`` (a subset of ``_FIELDS``: an
    entry's matchers are not part of what it is), and pickled with every field."""

    __slots__ = ()
    _COMPARED: tuple[str, ...] = ()

    def __init__(self, **values: object) -> None:
        for name in self._FIELDS:
            object.__setattr__(self, name, values.pop(name) if name in values else self._default(name))
        if values:
            raise TypeError(f"{type(self).__name__}() got unexpected field(s) {sorted(values)}")

    def _default(self, name: str) -> object:
        raise TypeError(f"{type(self).__name__}() missing field {name!r}")

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in self._COMPARED)

    def __getstate__(self) -> dict[str, object]:  # pickle and copy: the fields, set back below
        return {name: getattr(self, name) for name in self._FIELDS}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._COMPARED)
        return f"{type(self).__name__}({shown})"


class EntryText(Frozen):
    """The prose of one entry in one language."""

    __slots__ = ("title", "category", "summary", "causes", "fixes", "debug")
    _FIELDS = _COMPARED = __slots__

    title: str
    category: str
    summary: str
    causes: tuple[str, ...]
    fixes: tuple[str, ...]
    debug: tuple[str, ...]


_ENTRY_DEFAULTS: dict[str, object] = {"see_also": (), "aliases": (), "family": False, "generic": False,
                                      "origin": "xla"}


class Entry(Frozen):
    """One XLA error code.

    ``patterns`` are the regular expressions (as written in the data file) that
    recognise the error's message without its code; ``matchers`` are those
    compiled, plus the coded header ``EXXXX: Name`` that XLA prefixes since
    error codes exist.  A space in a pattern matches any whitespace run, line
    breaks included, because logs and tracebacks wrap long messages.
    ``matchers`` take no part in comparison, the repr or a pickle, and are compiled when first
    asked for (a log scan compiles only the entries its log shows; the loader compiles every
    pattern of a file it has not seen validated, :func:`~.loader.load_entries_from`).
    """

    __slots__ = ("code", "name", "status", "phase", "backends", "url", "patterns", "example", "text", "see_also",
                 "aliases", "family", "generic", "origin", "_compiled")
    _FIELDS = _COMPARED = __slots__[:-1]

    code: str
    name: str
    status: str
    phase: str
    backends: tuple[str, ...]
    url: str
    patterns: tuple[str, ...]
    example: str
    text: dict[str, EntryText]
    see_also: tuple[str, ...]
    aliases: tuple[str, ...]
    family: bool
    generic: bool
    origin: str
    _compiled: tuple[re.Pattern[str], ...]

    @property
    def matchers(self) -> tuple[re.Pattern[str], ...]:
        """The patterns compiled (:func:`~.loader.compile_pattern`), then the coded header's."""
        try:
            return self._compiled
        except AttributeError:
            from .loader import compile_pattern

            compiled = tuple(compile_pattern(p) for p in (*self.patterns, self.header_regex()))
            object.__setattr__(self, "_compiled", compiled)
            return compiled

    def _default(self, name: str) -> object:
        if name in _ENTRY_DEFAULTS:
            return _ENTRY_DEFAULTS[name]
        return super()._default(name)

    @property
    def number(self) -> str:
        """The code without its ``E``: what the openxla.org page is named after."""
        return self.code[1:]

    def header_regex(self) -> str:
        """Regex for the coded header XLA prints: ``E1200: CompileTimeHost...``.

        Family entries (``E03xx``) accept any digits where the code has ``x``.
        """
        code = re.escape(self.code).replace("x", r"\d")
        if self.family:
            return rf"\b{code}: \w+"
        return rf"\b{code}: {re.escape(self.name)}\b"

    def describe(self, lang: str) -> EntryText:
        return self.text[lang]
