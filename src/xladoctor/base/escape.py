"""Escaping text that comes from inputs before it reaches a terminal.

HLO metadata (``source_file``, ``op_name``), log lines and file names are
attacker-controlled as far as a terminal is concerned: ``"\\x1b[2J"`` clears the
screen, an embedded newline forges a report line ("E1200 predicted"), and
U+202E (RIGHT-TO-LEFT OVERRIDE) makes ``lm.elif`` read as ``file.ml``.  Two layers,
both built on :func:`escape_field`:

* :func:`escape_field` is for one value taken from an input and placed inside a
  line of our own text: every control character (newline and tab included), every
  bidi formatting character and line/paragraph separator becomes a visible escape
  (``\\x1b``, ``\\n``, ``\\u202e``).  Renderers call it on file names, source
  locations and other input strings.
* :class:`TerminalSafeStream` wraps ``sys.stdout``/``sys.stderr`` for the whole
  command (see :func:`xladoctor.cli.main.main`), the last line of defence for any input
  string a renderer forgot: it escapes what xladoctor itself never prints (C0 and
  C1 controls except newline and tab, DEL, bidi embeddings and overrides).  It
  leaves alone the isolates and marks that the Persian renderer emits on purpose
  (``terminal_bidi``: RLM, LRI, PDI).

The same rule for the other outputs: :func:`shell_arg` for a name in a command a user
may run, :func:`json_text` for JSON documents (valid UTF-8 whatever a file name's bytes),
:func:`html_text` for HTML (bidi overrides and isolates visualised, not only ``<>&``), and
:func:`uri_path` for SARIF URIs (percent-encoded bytes).

Escaped output is still valid JSON where it lands inside a JSON string: the
escapes used (``\\u202e``) are JSON escapes of the same character, and JSON
already escapes C0 controls itself, so ``--json`` output decodes to the original
values.  Raw byte output (``relayout OUT -``) goes through ``sys.stdout.buffer``
and is not touched.
"""

from __future__ import annotations

import io
import os

TYPE_CHECKING = False  # not typing's (start-up, issue 36)
if TYPE_CHECKING:
    import re

# Bidi formatting characters (UAX #9 explicit formatting plus marks) and line separators.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
# Lone surrogates: a file name's bytes that are not UTF-8 (os.fsdecode's surrogateescape, \udcff
# for 0xff) and nothing else; no encoder writes them, so every output escapes them.
_SURROGATES = "\ud800-\udfff"
_FIELD_UNSAFE = "[\x00-\x1f\x7f-\x9f" + _BIDI + _SURROGATES + "]"
# What the stream wrapper escapes: controls xladoctor never prints itself (keeps \n and \t),
# and the embeddings/overrides (the isolates and marks are the Persian renderer's).
_STREAM_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2028\u2029" + _SURROGATES + "]"
# What HTML text escapes beyond html.escape: controls but \n, \r and \t, overrides, embeddings and
# isolates (inside <bdi> an input's U+202E still reorders the rest of the name), surrogates.
_HTML_UNSAFE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029" + _SURROGATES + "]"
_JSON_BIDI = "[\u202a-\u202e\u2066-\u2069\u2028\u2029" + _SURROGATES + "]"
# The ASCII characters of _FIELD_UNSAFE and _STREAM_UNSAFE: for ASCII text (most of it) they match
# exactly what the whole classes match, and compile in a tenth of the time (issue 36, start-up).
_FIELD_UNSAFE_ASCII = "[\x00-\x1f\x7f]"
_STREAM_UNSAFE_ASCII = "[\x00-\x08\x0b-\x1f\x7f]"
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


_COMPILED: dict[str, re.Pattern[str]] = {}


def _pattern(character_class: str) -> re.Pattern[str]:
    """One of the classes above, compiled on first use: the classes that reach past Latin-1 take
    0.3-4 ms each to compile, more than the rest of ``xladoctor --version``.  ``re`` itself is
    imported here, and kept in a dict rather than ``functools.cache``: a run that prints plain
    ASCII (``xladoctor shape``) imports neither, nor the enum, collections and operator they
    bring (~5 ms of a 11 ms bare start; issue 36 item 5)."""
    pattern = _COMPILED.get(character_class)
    if pattern is None:
        import re

        pattern = _COMPILED[character_class] = re.compile(character_class)
    return pattern


def _field_unsafe(text: str) -> re.Pattern[str]:
    return _pattern(_FIELD_UNSAFE_ASCII if text.isascii() else _FIELD_UNSAFE)


def _escape_char(m: re.Match[str]) -> str:
    c = m.group(0)
    named = _NAMED.get(c)
    if named:
        return named
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that is not UTF-8: shown as that byte
        return f"\\x{code - 0xDC00:02x}"
    # \u form from DEL up: inside a JSON string it is the JSON escape of the same character.
    return f"\\x{code:02x}" if code < 0x7F else f"\\u{code:04x}"


def escape_field(value: object) -> str:
    """``str(value)`` with every control, bidi formatting and separator character made visible."""
    text = str(value)
    if text.isascii() and text.isprintable():
        return text  # ASCII's unprintable characters are exactly _FIELD_UNSAFE_ASCII's: no re (start-up)
    return _field_unsafe(text).sub(_escape_char, text)


def shell_arg(path: str) -> str:
    """``path`` as a shell argument a user can paste and run, every unsafe character visible:
    ``shlex.quote`` when it has none, else bash's ``$'...'`` quoting with the same escapes
    (``$'x\\n\\n1 file checked\\n.hlo'``, ``$'bad\\xff.hlo'``), so a name cannot forge a line nor be read as an option."""
    import shlex

    if path.startswith("-"):  # a name that reads as an option is passed as a path: ./--select=Z.txt
        path = "./" + path
    if not _field_unsafe(path).search(path):
        return shlex.quote(path)
    inner = _pattern(_FIELD_UNSAFE).sub(_escape_char, path.replace("\\", "\\\\").replace("'", "\\'"))
    return f"$'{inner}'"


def json_text(document: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) made valid UTF-8: a lone surrogate
    (a non-UTF-8 byte of a file name) becomes the text ``\\xff``, as :func:`escape_field` shows it;
    bidi overrides, embeddings and isolates are written as JSON escapes (``\\u202e``, the same value),
    so no viewer of the raw document (a terminal, an HTML page's embedded data) reorders it."""
    if document.isascii():  # no override, isolate, separator nor surrogate
        return document
    return _pattern(_JSON_BIDI).sub(_json_escape, document)


def _json_escape(m: re.Match[str]) -> str:
    c = m.group(0)
    if "\ud800" <= c <= "\udfff":
        return "\\" + _escape_char(m)  # the text \xff: no JSON escape stands for a lone byte
    return f"\\u{ord(c):04x}"  # the JSON escape of the same character: the value is unchanged


def html_text(value: object) -> str:
    """``str(value)`` safe for HTML text and attributes: ``html.escape``, and controls, bidi
    overrides, embeddings and isolates and non-UTF-8 bytes made visible (``\\u202e``)."""
    import html

    return html.escape(_pattern(_HTML_UNSAFE).sub(_escape_char, str(value)), quote=True)


def uri_path(path: str) -> str:
    """A path percent-encoded for a URI from its bytes (a non-UTF-8 0xff is ``%FF``, never an error)."""
    from urllib.parse import quote

    return quote(os.fsencode(path))


def escape_stream_text(text: str) -> str:
    """What :class:`TerminalSafeStream` writes for ``text`` (newlines and tabs kept)."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text  # ASCII's unprintable characters are _STREAM_UNSAFE_ASCII's and \n, \t: no compile (start-up)
    return _pattern(_STREAM_UNSAFE_ASCII if text.isascii() else _STREAM_UNSAFE).sub(_escape_char, text)


class OutputError(Exception):
    """Standard output (or error) could not be written: a full disk, ``/dev/full``, a quota.

    Raised by the stream layer for every command alike, so the CLI prints one line and exits
    2 instead of an internal error (an ``Exception``, not an ``XlaDoctorError``: this module
    sits below :mod:`xladoctor.base.errors`, which imports it).  A closed pipe stays :class:`BrokenPipeError` (the reader
    went away on purpose: ``| head``)."""


def _failed(inner, e: OSError) -> OutputError:
    """The error for a failed write; the stream's buffered rest is dropped so that the
    interpreter's own flush at exit does not fail again (the fd is pointed at /dev/null)."""
    try:
        fd = inner.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    name = getattr(inner, "name", "output")
    return OutputError(f"cannot write to {name}: {e.strerror or e}")


def _guarded(inner, call, *args):
    try:
        return call(*args)
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _failed(inner, e) from None


class _SafeBuffer:
    """``sys.stdout.buffer`` for raw bytes, with the same one-line error when the write fails."""

    def __init__(self, inner, text_stream):
        self._inner, self._text = inner, text_stream

    def write(self, data) -> int:
        return _guarded(self._text, self._inner.write, data)

    def flush(self) -> None:
        _guarded(self._text, self._inner.flush)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class ClosedStream(io.TextIOBase):
    """What stands for an output Python leaves as ``None`` because it was closed at start (``>&-``,
    ``2>&-``).  ``stdout``: every write fails as a write to a closed descriptor does, so the command
    says so in one line and exits 2 (it was a traceback and exit 120); ``stderr``: its lines are
    dropped and the exit code still tells (stdout's report was lost and the exit was 1)."""

    def __init__(self, name: str, fail: bool):
        self.name, self._fail = name, fail

    def write(self, s: str) -> int:
        if self._fail:
            import errno

            raise OSError(errno.EBADF, f"{self.name} is closed")
        return len(s)

    def flush(self) -> None:
        pass

    def writable(self) -> bool:
        return True


class TerminalSafeStream(io.TextIOBase):
    """A text stream that escapes unsafe characters on their way to the wrapped stream,
    and turns a failed write into :class:`OutputError`."""

    def __init__(self, inner):
        self._inner = inner

    def write(self, s: str) -> int:
        text = escape_stream_text(s)
        try:
            _guarded(self._inner, self._inner.write, text)
        except UnicodeEncodeError:
            # a stream that cannot encode every character (PYTHONIOENCODING=ascii, a latin-1 pipe):
            # the rest written as escapes, as Python writes stderr, not an internal error (`--lang fa`)
            encoding = getattr(self._inner, "encoding", None) or "ascii"
            _guarded(self._inner, self._inner.write, text.encode(encoding, "backslashreplace").decode(encoding))
        return len(s)

    def flush(self) -> None:
        _guarded(self._inner, self._inner.flush)

    @property
    def controls(self):
        """The wrapped stream itself, for xladoctor's own terminal controls (the progress bar's
        ``\\r`` and erase-line, colour): text written there is not escaped, so only text that
        contains no input may go there."""
        return self._inner

    def isatty(self) -> bool:
        return self._inner.isatty()

    def fileno(self) -> int:
        return self._inner.fileno()

    @property
    def buffer(self):
        """Raw bytes bypass the escaping on purpose (``relayout ... -`` writes array bytes)."""
        return _SafeBuffer(self._inner.buffer, self._inner)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._inner.encoding

    def writable(self) -> bool:
        return True
