"""One input of ``check``: read, sniffed (HLO module or log), checked, never raising for a bad file.

An HLO module is read whole into one buffer and triaged from its bytes before any decoding
(:mod:`xladoctor.triage.hlo_triage`); a log is streamed through the ``explain`` scanner, its sniffed
head first, so neither stdin nor a big log is ever held whole.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, BinaryIO

from ...base.collector import collect
from ...base.errors import InputError
from ...base.files import decode_text
from ..options import Options
from .entries import (
    check_hlo,
    error_entry,
    log_entry,
    triaged_entry,
)

if TYPE_CHECKING:
    from ...triage.provenance import Provenance

_SNIFF_BYTES = 64 << 10
_SNIFF_MAX = 1 << 20


def _looks_like_hlo(text: str) -> bool:
    from ...triage.provenance import hlo_header

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


def _read_rest(f: BinaryIO, head: bytes, source: str) -> bytearray:
    """The whole input, bounded (:func:`xladoctor.base.files.read_bounded`): one buffer sized from fstat
    for a regular file, a refusal past the limit for a stream (stdin, a FIFO, a decompressed file)."""
    from ...base.files import read_bounded

    return read_bounded(f, source, head=head)


def _kindless_jax(head: bytes, source: str) -> bool:
    """A JAX lowering whose memory kinds the text does not give is parsed even without offload
    tokens: it gets ``undecidable``, not "no annotation" (:mod:`.memory_kinds`)."""
    from ...triage.provenance import hlo_header
    from .memory_kinds import is_xla_dump, kindless_jax_header

    return not is_xla_dump(source) and kindless_jax_header(hlo_header(head.decode("utf-8", "replace")) or "")


def _undecided(head: bytes) -> bool:
    from ...triage.provenance import hlo_header

    return not hlo_header(head.decode("utf-8", "replace"))  # None: a comment goes on; "": nothing yet


def _cpu_provenance(head: bytes, source: str) -> Provenance | None:
    """For a module with no host-offload annotation that XLA lowered or compiled for CPU (its dump
    name, the files beside it, its first bytes): jax's CPU lowering drops those annotations, so
    "nothing to analyse" says nothing of the TPU/GPU program, and the entry says so."""
    from ...triage.provenance import detect

    prov = detect(head.decode("utf-8", "replace"), source if source != "<stdin>" else None)
    # PyTorch/XLA keeps its placement calls on CPU: the note is about jax's lowering only
    jax_cpu = prov.platform == "cpu" and not prov.faithful_for_accelerator and prov.frontend is None
    return prov if jax_cpu else None


def check_stream(f: BinaryIO, source: str, opts: Options, path: str | None = None,
                 stablehlo: str | None = None, sniff: bool = True, graph: int | None = None) -> dict[str, Any]:
    """Check one input: an HLO module is read whole (triaged, then analysed); anything else is a log, streamed.

    ``path`` names a regular file the log scan may reopen (to use every core on a big log);
    ``stablehlo`` the same program's StableHLO file (its memory kinds go into the module).
    A stream whose first bytes show compression (stdin, a file without its suffix) is
    decompressed (``sniff``: one level, :func:`xladoctor.base.files.compression_in`).  A PyTorch/XLA
    tensors file is read whole and its graph ``graph`` (1-based; its only one when None) checked
    as a module (:func:`_check_graph`).
    """
    head = _read_head(f)
    from ...base.files import compression_in, decompressing

    ext = compression_in(head) if sniff else None
    if ext is not None:
        return check_stream(decompressing(head, f, source, ext), source, opts, None, stablehlo, sniff=False,
                            graph=graph)
    from ...syntax.tensors_file import is_tensors_file

    if graph is not None or is_tensors_file(head[:4096].decode("utf-8", "replace")):
        return _check_graph(decode_text(bytes(_read_rest(f, head, source)), source), source, opts, graph)
    if _looks_like_hlo(head.decode("utf-8", "replace")):
        data = _read_rest(f, head, source)
        from ...triage.provenance import is_compiled

        compiled = is_compiled(data, source)
        if not opts.full and stablehlo is None:  # triage the bytes: a module no analysis applies to is neither decoded nor parsed
            from ...triage.hlo_triage import triage

            t = triage(data, compiled)
            if not t.analyse and not (not compiled and _kindless_jax(head, source)):
                return triaged_entry(source, t.module_name, compiled, _cpu_provenance(head, source), opts.lang)
        text = decode_text(bytes(data) if isinstance(data, bytearray) else data, source)
        del data
        if text.startswith("\ufeff"):  # a BOM is not HLO; sniffing skipped it, so does the parse
            text = text[1:]
        return check_hlo(text, source, opts, stablehlo)
    from ...catalogue.fastscan import scan_path, scan_stream
    from ...catalogue.logscan import LogScan
    from ...catalogue.scanner import LogScanner

    scanner = LogScanner()
    if path is not None:
        scan_path(path, scanner, parallel=opts.parallel_logs)
    else:
        from ...base.files import Prefixed

        scan_stream(Prefixed(head, f), scanner)
    return log_entry(LogScan(scanner.finish(), source, scanner.not_shown), opts.lang)


def _check_graph(text: str, source: str, opts: Options, graph: int | None) -> dict[str, Any]:
    """One graph of a tensors file, checked as the module it holds (with the same triage as a
    module file), its entry saying which graph and where the step synced (``graph``)."""
    from ...syntax.tensors_file import saved_graphs, select_graph

    count = len(saved_graphs(text, source))
    module_text, saved = select_graph(text, source, graph)
    assert saved is not None
    if not opts.full:
        from ...triage.hlo_triage import triage

        t = triage(module_text.encode("utf-8"), False)
        if not t.analyse:
            return {**triaged_entry(source, t.module_name, False), "graph": saved.to_json(count)}
    entry = check_hlo(module_text, source, opts)
    return {**entry, "graph": saved.to_json(count)}


def check_path(path: str, explicit: bool, opts: Options, stablehlo: str | None = None,
               graph: int | None = None) -> dict[str, Any]:
    """Check one file; never raises: whatever goes wrong becomes this file's ``error`` entry.

    The module is freed before the next file is read: the IR is cyclic (parent pointers) and is
    built with the collector paused, so without a collection here the last module is still in
    memory, as garbage, while the next one is parsed (issue 20: two modules at the peak)."""
    entry = _check_path(path, explicit, opts, stablehlo, graph)
    collect()
    return entry


def _check_path(path: str, explicit: bool, opts: Options, stablehlo: str | None = None,
                graph: int | None = None) -> dict[str, Any]:
    from ...base.files import (
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
        return error_entry(path, str(err))
    except OSError as e:
        return error_entry(path, str(InputError(f"cannot read file: {e.strerror or e}", path, 1, 1)))
    except Exception as e:  # a bug in one analysis must not cost the other files their results
        return error_entry(path, f"{path}:1:1: internal error while checking this file: {type(e).__name__}: {e} "
                                  "(a bug in xladoctor; the other files were checked)")


def check_stdin(opts: Options) -> dict[str, Any]:
    """Check stdin, streamed like any input; an unreadable one becomes its ``error`` entry."""
    try:
        return check_stream(sys.stdin.buffer, "<stdin>", opts)
    except InputError as err:
        return error_entry("<stdin>", str(err))
