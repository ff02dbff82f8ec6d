"""Which route an input takes: one file or stream read, its kind sniffed from its first bytes
(compressed, a PyTorch/XLA tensors file, an HLO module, else a log), and handed to that kind's
route (:mod:`.tensors`, :mod:`.hlo_text`, :mod:`.log`), which returns its Report; never raising
for a bad file, whose Report's ``input_errors`` say what went wrong.  A folder's files come here one by one (:mod:`.folder`), and
``fleet``'s (:mod:`.fleet`).
"""

from __future__ import annotations

import os
import sys

from ..base.collector import collect
from ..base.errors import InputError
from ..findings.model import Report
from .options import Options

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import BinaryIO, cast
else:
    def cast(_type: object, value: object) -> object:
        """``typing.cast``: the value itself."""
        return value

_SNIFF_BYTES = 64 << 10
_SNIFF_MAX = 1 << 20


def _looks_like_hlo(text: str) -> bool:
    from ..syntax.module_sniff import hlo_header

    return (hlo_header(text) or "").startswith("HloModule")


def _read_head(f: BinaryIO) -> bytes:
    """Enough of the start to tell HLO from a log: 64 KiB, more while it is only blank lines and comments."""
    head = _read_upto(f, _SNIFF_BYTES)  # a raw stream or a pipe gives what it has: a few bytes told nothing
    while head and len(head) < _SNIFF_MAX and _undecided(head):
        more = f.read(_SNIFF_BYTES)
        if not more:
            break
        head += more
    return head


def _read_upto(f: BinaryIO, size: int) -> bytes:
    """``size`` bytes of ``f``, fewer only at its end."""
    head = b""
    while len(head) < size:
        more = f.read(size - len(head))
        if not more:
            break
        head += more
    return head


def _undecided(head: bytes) -> bool:
    from ..syntax.module_sniff import hlo_header

    return not hlo_header(head.decode("utf-8", "replace"))  # None: a comment goes on; "": nothing yet


def stdin_module() -> tuple[bool, BinaryIO]:
    """Whether stdin holds an HLO module (decompressed and transcoded to look), and stdin to read
    from then on, its first bytes included: ``explain - < m.hlo`` scanned a module as a log ("no
    XLA error found") where ``check - < m.hlo`` predicts E1200."""
    from ..base.files import Prefixed, compression_in, decompressing

    raw = sys.stdin.buffer
    head = _read_upto(raw, 16)
    ext = compression_in(head)
    replay = Prefixed(head, raw)
    if ext is None:
        look = _read_head(replay)  # type: ignore[arg-type]
        return _module_head(look), cast("BinaryIO", Prefixed(look, raw))
    # compressed: the decompressed stream is what both routes read (the log's route sniffs no more)
    inflated = decompressing(head, raw, "<stdin>", ext)
    look = _read_head(inflated)
    return _module_head(look), cast("BinaryIO", Prefixed(look, inflated))


def _module_head(head: bytes) -> bool:
    """Whether an input's first bytes are an HLO module or a PyTorch/XLA tensors file, by the rule
    ``check_stream`` routes with (``hlo_header``: blank and ``//`` lines and byte-order marks
    skipped); ``explain`` asks it of a file and of stdin, so the two commands agree."""
    from ..base.files import wide_encoding

    wide = wide_encoding(head)
    if wide:
        head = head.decode(wide, "replace").lstrip("\ufeff").encode("utf-8")
    from ..syntax.module_sniff import is_tensors_file

    text = head.decode("utf-8", "replace")
    return _looks_like_hlo(text) or is_tensors_file(text[:4096])


def is_module_file(target: str) -> bool:
    """An HLO module file: its first line that is not blank or a comment starts with ``HloModule``, or
    a PyTorch/XLA tensors file (``explain`` takes such a file to the HLO route, as ``check`` would, and
    anything else to the log's; a tensors file was "no XLA error found" where check predicts E1200).
    A compressed file is looked at decompressed (``explain m.hlo.gz`` said "no XLA error found" where
    ``check`` predicts E1200), a UTF-16 one transcoded."""
    from ..base.files import compression_in, compression_of, decompressing, open_input

    if target == "-" or not os.path.isfile(target):
        return False
    try:
        with open_input(target) as f:  # decompressed by its suffix
            head = f.read(1 << 16)
            ext = None if compression_of(target) else compression_in(head)
            if ext is not None:  # compressed without the suffix: the magic says so
                head = decompressing(head, f, target, ext).read(1 << 16)
    except Exception:  # unreadable, corrupt, an archive: the log's route says what it is, in one line
        return False
    return _module_head(head)  # check's own rule (a UTF-16 module goes to the route that refuses it)


def check_stream(f: BinaryIO, source: str, opts: Options, path: str | None = None,
                 stablehlo: str | None = None, sniff: bool = True, graph: int | None = None) -> Report:
    """Check one input: an HLO module is read whole (triaged, then analysed); anything else is a log, streamed.

    ``path`` names a regular file the log scan may reopen (to use every core on a big log);
    ``stablehlo`` the same program's StableHLO file (its memory kinds go into the module).
    A stream whose first bytes show compression (stdin, a file without its suffix) is
    decompressed (``sniff``: one level, :func:`xladoctor.base.files.compression_in`).  A PyTorch/XLA
    tensors file is read whole and its graph ``graph`` (1-based; its only one when None) checked
    as a module (:mod:`.tensors`).
    """
    head = _read_head(f)
    from ..base.files import compression_in, decompressing, refuse_archive

    refuse_archive(head, source, decompressed=False)
    ext = compression_in(head) if sniff else None
    if ext is not None:
        return check_stream(decompressing(head, f, source, ext), source, opts, None, stablehlo, sniff=False,
                            graph=graph)
    from ..base.files import wide_encoding

    wide = wide_encoding(head)
    if wide is not None:
        return _check_wide(f, head, source, opts, wide, graph)
    from ..syntax.module_sniff import is_tensors_file

    if graph is not None or is_tensors_file(head[:4096].decode("utf-8", "replace")):
        from . import tensors

        return tensors.route_stream(f, head, source, opts, graph)
    from .stablehlo import looks_like_stablehlo

    if looks_like_stablehlo(head.decode("utf-8", "replace")):
        from . import stablehlo as stablehlo_route

        return stablehlo_route.route_stream(f, head, source, opts)
    if _looks_like_hlo(head.decode("utf-8", "replace")):
        from . import hlo_text

        return hlo_text.route_stream(f, head, source, opts, stablehlo)
    from . import log

    return log.route_stream(f, head, source, opts, path)


def _check_wide(f: BinaryIO, head: bytes, source: str, opts: Options, encoding: str,
                graph: int | None) -> Report:
    """A UTF-16/32 input (its byte-order mark first): a log is scanned as its UTF-8 text, streamed;
    a module or a tensors file is refused as ``hlo`` and ``offload`` refuse it (XLA reads UTF-8).
    Read as UTF-8 bytes, a UTF-16 log's messages matched nothing and ``check`` called it clean."""
    from ..base.files import Transcoded, wide_text_error
    from ..syntax.module_sniff import is_tensors_file

    text = Transcoded(head, f, encoding)
    head8 = _read_head(text)  # type: ignore[arg-type]
    start = head8.decode("utf-8", "replace")
    if graph is not None or is_tensors_file(start[:4096]) or _looks_like_hlo(start):
        raise wide_text_error(encoding, source)
    from . import log

    return log.route_stream(text, head8, source, opts, None)  # type: ignore[arg-type]


def check_path(path: str, explicit: bool, opts: Options, stablehlo: str | None = None,
               graph: int | None = None, last: bool = False) -> Report:
    """Check one file; never raises: whatever goes wrong becomes this file's input error.

    The module is freed before the next file is read: the IR is cyclic (parent pointers) and is
    built with the collector paused, so without a collection here the last module is still in
    memory, as garbage, while the next one is parsed (issue 20: two modules at the peak).
    ``last``: no file follows and only small output is drawn after (``check``'s text report), so
    the console script may leave the module to its exit (:func:`~xladoctor.base.collector.collect`)."""
    report = _check_path(path, explicit, opts, stablehlo, graph)
    collect(last)
    return report


def _check_path(path: str, explicit: bool, opts: Options, stablehlo: str | None = None,
                graph: int | None = None) -> Report:
    from ..base.files import (
        check_readable_kind,
        compression_of,
        open_input,
        open_regular,
    )

    try:
        if compression_of(path):  # decompressed as it is read, bounded; scanned as a stream
            with open_input(path, explicit) as stream:
                return check_stream(stream, path, opts, None, stablehlo, sniff=False, graph=graph)
        if explicit:
            kind = check_readable_kind(path)
            fd = os.open(path, os.O_RDONLY)
        else:
            kind, fd = "regular", open_regular(path)
        with os.fdopen(fd, "rb", buffering=0) as f:
            return check_stream(f, path, opts, path if kind == "regular" else None, stablehlo, graph=graph)
    except InputError as err:
        return unread(path, str(err), opts.lang)
    except OSError as e:
        return unread(path, str(InputError(f"cannot read file: {e.strerror or e}", path, 1, 1)), opts.lang)
    except Exception as e:  # a bug in one analysis must not cost the other files their results
        return unread(path, f"{path}:1:1: internal error while checking this file: {type(e).__name__}: {e} "
                                  "(a bug in xladoctor; the other files were checked)", opts.lang)


def check_stdin(opts: Options) -> Report:
    """Check stdin, streamed like any input; an unreadable one becomes its input error."""
    try:
        return check_stream(sys.stdin.buffer, "<stdin>", opts)
    except InputError as err:
        return unread("<stdin>", str(err), opts.lang)


def unread(path: str, error: str, lang: str = "en") -> Report:
    """The Report of an input that could not be read or checked: ``error`` is its one line."""
    return Report("check", (path,), (), lang, (error,))
