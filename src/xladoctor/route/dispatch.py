"""Which route an input takes: one file or stream read, its kind sniffed from its first bytes
(compressed, a PyTorch/XLA tensors file, an HLO module, else a log), and handed to that kind's
route (:mod:`.tensors`, :mod:`.hlo_text`, :mod:`.log`), which returns its Report; never raising
for a bad file, whose Report's ``input_errors`` say what went wrong.  A folder's files come here one by one (:mod:`.folder`), and
``fleet``'s (:mod:`.fleet`).
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

from ..base.collector import collect
from ..base.errors import InputError
from ..findings.model import Report
from .options import Options

_SNIFF_BYTES = 64 << 10
_SNIFF_MAX = 1 << 20


def _looks_like_hlo(text: str) -> bool:
    from ..triage.provenance import hlo_header

    return (hlo_header(text) or "").startswith("HloModule")


def _read_head(f: BinaryIO) -> bytes:
    """Enough of the start to tell HLO from a log: 64 KiB, more while it is only blank lines and comments."""
    head = f.read(_SNIFF_BYTES)
    while head and len(head) < _SNIFF_MAX and _undecided(head):
        more = f.read(_SNIFF_BYTES)
        if not more:
            break
        head += more
    return head


def _undecided(head: bytes) -> bool:
    from ..triage.provenance import hlo_header

    return not hlo_header(head.decode("utf-8", "replace"))  # None: a comment goes on; "": nothing yet


def is_module_file(target: str) -> bool:
    """An HLO module file: its first line that is not blank or a comment starts with ``HloModule``
    (``explain`` takes such a file to the HLO route, as ``check`` would, and anything else to the log's)."""
    if target == "-" or not os.path.isfile(target):
        return False
    try:
        with open(target, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return False
    for line in head.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(b"//"):
            return stripped.startswith(b"HloModule")
    return False


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
    from ..base.files import compression_in, decompressing

    ext = compression_in(head) if sniff else None
    if ext is not None:
        return check_stream(decompressing(head, f, source, ext), source, opts, None, stablehlo, sniff=False,
                            graph=graph)
    from ..syntax.tensors_file import is_tensors_file

    if graph is not None or is_tensors_file(head[:4096].decode("utf-8", "replace")):
        from . import tensors

        return tensors.route_stream(f, head, source, opts, graph)
    if _looks_like_hlo(head.decode("utf-8", "replace")):
        from . import hlo_text

        return hlo_text.route_stream(f, head, source, opts, stablehlo)
    from . import log

    return log.route_stream(f, head, source, opts, path)


def check_path(path: str, explicit: bool, opts: Options, stablehlo: str | None = None,
               graph: int | None = None) -> Report:
    """Check one file; never raises: whatever goes wrong becomes this file's input error.

    The module is freed before the next file is read: the IR is cyclic (parent pointers) and is
    built with the collector paused, so without a collection here the last module is still in
    memory, as garbage, while the next one is parsed (issue 20: two modules at the peak)."""
    report = _check_path(path, explicit, opts, stablehlo, graph)
    collect()
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
