"""``xladoctor check PATH...``: run every check that applies to each file, dump directory or log.

The main job in one command: an HLO module gets a summary and, unless it is a
compiled (post-optimization) module in which XLA's host offloader already ran,
the E1200 host-offload analysis; any other text file is scanned for XLA errors
(the ``explain`` scanner).  Directories are walked (an ``--xla_dump_to``
directory works as is); XLA's non-HLO dump files (buffer assignment, memory
reports, ...) are skipped.  ``--examples`` checks the examples shipped with
xladoctor.  ``--html OUT`` writes a self-contained report of everything found.

Exit 1 when anything was found or is predicted, 2 when an input could not be read
or parsed (the other files are still checked), 0 otherwise.

How it stays fast and safe (docs/json.md#check, README "Performance"):

* Files are checked in a process pool (``--jobs``, default every core); the report
  lists them in walk order whatever finishes first, so it equals a serial run.
  A progress bar is drawn on a terminal's stderr only (never with ``--json``).
* A module is parsed only when an analysis applies to it: :mod:`xladoctor.hlo_triage`
  looks for the host-offload tokens in its bytes first (``--full`` parses every module).
* Logs are streamed through the same scanner as ``explain`` (bounded memory, big
  files on every core); stdin is streamed too, never spooled to a temporary file.
* Walking a directory reads regular files only and never follows a symlink out of it
  (:mod:`xladoctor.files`); FIFOs, devices and sockets are listed as skipped.  A file
  that cannot be read, or that makes a check fail, is reported and the rest are checked.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
import sys
from dataclasses import dataclass
from importlib import resources
from typing import Any, BinaryIO, cast

from ..errors import InputError, UsageError
from ..report.escape import escape_field
from ..report.units import count_text
from . import _confirm
from ._atomic import refuse_overwriting_inputs, write_output
from ._common import add_rule_arguments, decode_text, located
from ._format import add_format_argument, emit_document

NAME = "check"
HELP = "run every applicable check on HLO modules, dump directories and logs (the main job)"
ORDER = 5
DESCRIPTION = __doc__.split("\n\n")[1].replace("\n", " ")

# XLA writes these next to the HLO dumps; none is HLO text and none holds error messages.
_DUMP_ARTEFACTS = ("buffer-assignment", "memory-usage-report", "live-range", ".debug_options", "-thunk-sequence")
_SKIP_SUFFIXES = (".pb", ".o", ".ll", ".so", ".png", ".svg", ".html", ".npy", ".bin", ".gz", ".zip", ".textproto",
                  ".mlir", ".dot", ".pbtxt")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="HLO module files, logs, dump directories, or '-' (stdin)")
    p.add_argument("--examples", action="store_true", help="check the examples shipped with xladoctor")
    add_rule_arguments(p)
    p.add_argument("--lang", choices=("en", "fa"), default=None, help="language of explanations (default: from locale)")
    p.add_argument("--html", metavar="OUT", help="also write a self-contained HTML report to OUT")
    p.add_argument("--full", action="store_true",
                   help="parse and summarise every HLO module, even those no analysis applies to (finds their "
                        "syntax errors; slower)")
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="check N files at a time in worker processes (default: one per core; 1: in this process)")
    p.add_argument("--json", action="store_true", help="print JSON (see docs/json.md#check)")
    add_format_argument(p)
    p.add_argument("--disable-host-compute", action="store_true",
                   help="as offload's: --xla_disable_automatic_host_compute_offload=true for every module")
    # offload's --stablehlo names one companion file for one module; check takes many modules, so a
    # single --stablehlo would not say which module it belongs to (run offload --stablehlo for that).
    _confirm.add_arguments(p)


def example_paths() -> list[str]:
    """The bundled examples, as files on disk (the package is installed unzipped)."""
    root = resources.files("xladoctor") / "examples"
    return sorted(str(p) for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


@dataclass(frozen=True)
class _Item:
    """One path to report: ``status`` is ``file`` (check it), ``stdin``, ``skipped`` or ``error``."""

    path: str
    status: str
    note: str = ""
    explicit: bool = False


def _expand(paths: list[str]) -> list[_Item]:
    from ..files import walk

    out: list[_Item] = []
    for path in paths:
        if path == "-":
            out.append(_Item(path, "stdin", explicit=True))
        elif os.path.isdir(path):
            for entry in walk(path):
                if entry.status == "file":
                    reason = _skip_reason(entry.path)
                    out.append(_Item(entry.path, "skipped", reason) if reason else _Item(entry.path, "file"))
                else:
                    out.append(_Item(entry.path, entry.status, entry.note))
        else:
            reason = _skip_reason(path)
            out.append(_Item(path, "skipped", reason) if reason else _Item(path, "file", explicit=True))
    return out


def _skip_reason(path: str) -> str | None:
    base = os.path.basename(path)
    if base.startswith("."):
        return "hidden file"
    if any(a in base for a in _DUMP_ARTEFACTS):
        return "XLA dump artefact that is not HLO text"
    if base.endswith(_SKIP_SUFFIXES):
        return "not a text format xladoctor reads"
    return None


def _looks_like_hlo(text: str) -> bool:
    from ..provenance import hlo_header

    return (hlo_header(text) or "").startswith("HloModule")


def check_hlo(text: str, source: str, rule: str = "shipped", confirm_topology: str | None = None,
              disable_host_compute: bool = False) -> dict[str, Any]:
    from ..pipeline import parse_hlo

    module = parse_hlo(text, source)
    with located(text, source):
        return _check_module(module, text, source, rule, confirm_topology, disable_host_compute)


def _check_module(module, text: str, source: str, rule: str = "shipped",
                  confirm_topology: str | None = None, disable_host_compute: bool = False) -> dict[str, Any]:
    """The ``offload`` command's steps (the pipeline's) on one module, after its summary."""
    from ..pipeline import AnalysisOptions, analyse_module, offload_document
    from ..provenance import detect as detect_provenance
    from .hlo import summarize

    origin = detect_provenance(text, None if source == "<stdin>" else source)
    entry: dict[str, Any] = {"path": source, "kind": "hlo", "hlo": summarize(module), "provenance": origin.to_json()}
    if origin.stage == "compiled":
        entry["note"] = _compiled_note()
        entry["findings"] = 0
        return entry
    mc = analyse_module(module, text, source, AnalysisOptions(rule, disable_host_compute), provenance=origin)
    result = mc.result
    entry["findings"] = len(result.errors) + len(result.failures)
    if confirm_topology is not None:
        mc.confirm = entry["confirm"] = _confirm.confirm(text, module, result, confirm_topology)
        if not entry["findings"] and _confirm.is_error(entry["confirm"]):
            entry["findings"] = 1  # the real compiler rejects what we did not predict
    entry["offload"] = offload_document(mc)
    return entry


_SNIFF_BYTES = 64 << 10
_SNIFF_MAX = 1 << 20
def _compiled_note() -> str:
    from ..pipeline import COMPILED_NOTE

    return COMPILED_NOTE


@dataclass(frozen=True)
class Options:
    rule: str
    """Host-offload rule (``shipped`` or ``unmerged-pr-36525``, see ``xladoctor.offload.rules``)."""
    lang: str
    full: bool
    parallel_logs: bool
    confirm_topology: str | None = None
    disable_host_compute: bool = False
    """As ``offload --disable-host-compute`` (``--xla_disable_automatic_host_compute_offload``)."""


def _read_head(f: BinaryIO) -> bytes:
    """Enough of the start to tell HLO from a log: 64 KiB, more while it is only blank lines and comments."""
    head = f.read(_SNIFF_BYTES)
    while head and len(head) < _SNIFF_MAX and _undecided(head):
        more = f.read(_SNIFF_BYTES)
        if not more:
            break
        head += more
    return head


def _read_rest(f: BinaryIO, head: bytes) -> bytes | bytearray:
    """The whole input: into one buffer sized from fstat for a regular file (no second copy)."""
    try:
        st = os.fstat(f.fileno())
        size = st.st_size - f.tell() if stat.S_ISREG(st.st_mode) else -1
    except (AttributeError, OSError, io.UnsupportedOperation):
        size = -1
    if size < 0:
        return head + f.read()
    buf = bytearray(len(head) + size)
    buf[:len(head)] = head
    view = memoryview(buf)
    got = len(head)
    while got < len(buf):
        n = _buffered(f).readinto(view[got:])
        if not n:
            break
        got += n
    view.release()
    if got < len(buf):
        del buf[got:]
    more = f.read()  # grown since fstat
    if more:
        buf += more
    return buf


def _undecided(head: bytes) -> bool:
    from ..provenance import hlo_header

    return not hlo_header(head.decode("utf-8", "replace"))  # None: a comment goes on; "": nothing yet


def _buffered(f: BinaryIO) -> io.BufferedIOBase:
    """``f`` as what it is at run time: every stream check reads (``open(..., "rb")``,
    ``sys.stdin.buffer``) is buffered, but ``typing.BinaryIO`` declares no ``readinto``."""
    return cast(io.BufferedIOBase, f)


class _Prefixed(io.RawIOBase):
    """The sniffed head, then the rest of the stream: a log is scanned without reading it whole."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head, self._rest = memoryview(head), rest

    def readable(self) -> bool:
        return True

    def readinto(self, view: Any) -> int:
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return _buffered(self._rest).readinto(view) or 0


def check_stream(f: BinaryIO, source: str, opts: Options, path: str | None = None) -> dict[str, Any]:
    """Check one input: an HLO module is read whole (triaged, then analysed); anything else is a log, streamed.

    ``path`` names a regular file the log scan may reopen (to use every core on a big log).
    """
    head = _read_head(f)
    if _looks_like_hlo(head.decode("utf-8", "replace")):
        data = _read_rest(f, head)
        from ..provenance import is_compiled

        compiled = is_compiled(data, source)
        if not opts.full:  # triage the bytes: a module no analysis applies to is neither decoded nor parsed
            from ..hlo_triage import triage

            t = triage(data, compiled)
            if not t.analyse:
                return _triaged_entry(source, t.module_name, compiled)
        text = decode_text(bytes(data) if isinstance(data, bytearray) else data, source)
        del data
        if text.startswith("\ufeff"):  # a BOM is not HLO; sniffing skipped it, so does the parse
            text = text[1:]
        return check_hlo(text, source, opts.rule, opts.confirm_topology, opts.disable_host_compute)
    from ..catalogue.fastscan import scan_path, scan_stream
    from ..catalogue.scan_report import LogScan
    from ..catalogue.scanner import LogScanner

    scanner = LogScanner()
    if path is not None:
        scan_path(path, scanner, parallel=opts.parallel_logs)
    else:
        scan_stream(_Prefixed(head, f), scanner)
    return _log_entry(LogScan(scanner.finish(), source, scanner.not_shown), opts.lang)


def _triaged_entry(source: str, name: str, compiled: bool) -> dict[str, Any]:
    note = _compiled_note() if compiled else (
        "no host-offload annotation (MoveToHost/MoveToDevice, annotate_device_placement, S(5), host compute): "
        "no E1200 is possible, so the module was not parsed (--full parses it)")
    return {"path": source, "kind": "hlo", "module": name, "parsed": False, "compiled": compiled, "note": note,
            "findings": 0}


def _log_entry(scan, lang: str) -> dict[str, Any]:
    from ..catalogue.scan_report import scan_document

    return {"path": scan.source, "kind": "log",
            "explain": scan_document(scan.findings, scan.source, lang, scan.not_shown),
            "findings": len(scan.findings)}


def check_log(path: str, lang: str) -> dict[str, Any]:
    from ..catalogue.scan_report import scan_file

    return _log_entry(scan_file(path), lang)


def check_path(path: str, explicit: bool, opts: Options) -> dict[str, Any]:
    """Check one file; never raises: whatever goes wrong becomes this file's ``error`` entry."""
    from ..files import check_readable_kind, open_regular

    try:
        if explicit:
            kind = check_readable_kind(path)
            fd = os.open(path, os.O_RDONLY)
        else:
            kind, fd = "regular", open_regular(path)
        with os.fdopen(fd, "rb", buffering=0) as f:
            return check_stream(f, path, opts, path if kind == "regular" else None)
    except InputError as err:
        return _error_entry(path, str(err))
    except OSError as e:
        return _error_entry(path, str(InputError(f"cannot read file: {e.strerror or e}", path, 1, 1)))
    except Exception as e:  # a bug in one analysis must not cost the other files their results
        return _error_entry(path, f"{path}:1:1: internal error while checking this file: {type(e).__name__}: {e} "
                                  "(a bug in xladoctor; the other files were checked)")


def _error_entry(path: str, error: str) -> dict[str, Any]:
    return {"path": path, "kind": "error", "error": error, "findings": 0}


def _check_stdin(opts: Options) -> dict[str, Any]:
    try:
        return check_stream(sys.stdin.buffer, "<stdin>", opts)
    except InputError as err:
        return _error_entry("<stdin>", str(err))


def _check_all(items: list[_Item], opts: Options, jobs: int, progress) -> list[dict[str, Any]]:
    """Entries in ``items`` order; files in a process pool when there are several and ``jobs > 1``."""
    out: list[dict[str, Any] | None] = [None] * len(items)
    todo = [i for i, it in enumerate(items) if it.status == "file"]
    for i, it in enumerate(items):
        if it.status == "skipped":
            out[i] = {"path": it.path, "kind": "skipped", "note": it.note, "findings": 0}
        elif it.status == "error":
            out[i] = _error_entry(it.path, str(InputError(it.note, it.path, 1, 1)))
        elif it.status == "stdin":
            out[i] = _check_stdin(opts)
            progress.advance()
    if jobs > 1 and len(todo) > 1:
        from ..parallel import map_isolated

        results = map_isolated(check_path, [(items[i].path, items[i].explicit, opts) for i in todo],
                               jobs, progress.advance, _crashed_entry)
        for i, entry in zip(todo, results):
            out[i] = entry
    else:
        for i in todo:
            out[i] = check_path(items[i].path, items[i].explicit, opts)
            progress.advance()
    return [e for e in out if e is not None]


def _crashed_entry(args: tuple[str, bool, Options], why: str) -> dict[str, Any]:
    path = args[0]
    return _error_entry(path, f"{path}:1:1: checking this file crashed the worker process ({why}); "
                              "the other files were checked")


def run(args: argparse.Namespace) -> int:
    from ..catalogue.fastscan import usable_cpus
    from ..catalogue.render import language_from_env
    from ..pipeline import check_diagnostics
    from ..progress import Progress

    lang = args.lang or language_from_env()
    paths = list(args.paths) + (example_paths() if args.examples else [])
    if not paths:
        raise UsageError("nothing to check: give files or directories, '-' for stdin, or --examples")
    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (one per core) or more")
    items = _expand(paths)
    expanded = [it.path for it in items if it.status in ("file", "stdin")]
    if args.html:
        refuse_overwriting_inputs(args.html, expanded)
    jobs = args.jobs or usable_cpus()
    n_files = sum(1 for it in items if it.status == "file")
    confirm_topology = args.topology if args.confirm else None
    opts = Options(args.rule, lang, args.full or args.confirm, parallel_logs=n_files <= 1,
                   confirm_topology=confirm_topology, disable_host_compute=args.disable_host_compute)
    progress = Progress(sum(1 for it in items if it.status in ("file", "stdin")), "files checked",
                        enabled=None if not args.json else False)
    try:
        files = _check_all(items, opts, jobs, progress)
    finally:
        progress.close()
    input_errors = sum(1 for f in files if f["kind"] == "error")
    doc = {"command": "check", "files": files, "findings": sum(f["findings"] for f in files),
           "input_errors": input_errors, "diagnostics": check_diagnostics(files, lang)}
    if args.html:
        from ..report.html import render_check_html
        shown = ", ".join(args.paths[:3]) + (" ..." if len(args.paths) > 3 else "")
        title = f"xladoctor: {shown}" if shown else "xladoctor: bundled examples"
        write_output(args.html, render_check_html(doc, title=title, lang=lang), "HTML report", expanded)
    if args.json:
        emit_document(doc, args)
    else:
        sys.stdout.write(render_text(doc, lang))
    for f in files:
        if f["kind"] == "error":
            print(f["error"], file=sys.stderr)
    _confirm.note_if_unavailable(next((f["confirm"] for f in files if "confirm" in f), None))
    if input_errors:
        return 2
    return 1 if doc["findings"] else 0


def render_text(doc: dict[str, Any], lang: str) -> str:
    """Files with something to say get a section; quiet ones one line each, after them."""
    out: list[str] = []
    quiet: list[str] = []
    for f in doc["files"]:
        kind = f["kind"]
        if kind == "skipped":
            continue
        if kind == "error":
            out += [f"== {escape_field(f['path'])}", f"   cannot check: {f['error']}", ""]
        elif _is_quiet(f):
            quiet.append(f"   {escape_field(f['path'])}: {_quiet_reason(f)}")
        else:
            out += [f"== {escape_field(f['path'])}", _hlo_text(f) if kind == "hlo" else _log_text(f, lang), ""]
    if quiet:
        out += [f"nothing to report in {count_text(len(quiet), 'file')}:", *quiet, ""]
    skipped = [f for f in doc["files"] if f["kind"] == "skipped"]
    special = [f for f in skipped if _is_special_skip(f)]
    if special:  # a FIFO or a symlink out of the directory is worth a line; XLA's artefacts are not
        out += [f"not read ({len(special)}):", *(f"   {escape_field(f['path'])}: {f['note']}" for f in special), ""]
    checked = len(doc["files"]) - len(skipped) - doc["input_errors"]
    tail = f"{count_text(checked, 'file')} checked, {count_text(doc['findings'], 'finding')}"
    if skipped:
        tail += f", {len(skipped)} skipped (not HLO text or logs)"
        if special:
            tail += f" including {count_text(len(special), 'special file or symlink', 'special files or symlinks')}"
    if doc["input_errors"]:
        tail += f", {doc['input_errors']} could not be read"
    out.append(tail)
    return "\n".join(out) + "\n"


def _is_special_skip(f: dict[str, Any]) -> bool:
    return "not a regular file" in f["note"] or "symlink" in f["note"]


def _is_quiet(f: dict[str, Any]) -> bool:
    if f["findings"]:
        return False
    if f.get("confirm") or f.get("provenance", {}).get("note"):
        return False
    if f["kind"] == "hlo":
        off = f.get("offload")
        return off is None or not (off.get("warnings") or off.get("failures") or off.get("outputs_moved_to_host"))
    return True


def _quiet_reason(f: dict[str, Any]) -> str:
    if f["kind"] == "log":
        return "no XLA error found"
    if "hlo" not in f:  # triaged without parsing
        why = ("compiled: the E1200 analysis needs the module from before optimizations" if f["compiled"]
               else "no host-offload annotation: nothing to analyse")
        return f"HLO module {f['module']}, {why}"
    name = f"HLO module {f['hlo']['name']} ({f['hlo']['instruction_count']:,} instructions)"
    if "note" in f:
        return f"{name}, compiled: the E1200 analysis needs the module from before optimizations"
    return f"{name}, no host-offload error predicted"


def _hlo_text(f: dict[str, Any]) -> str:
    s = f["hlo"]
    lines = [f"   HLO module {s['name']}: {count_text(s['instruction_count'], 'instruction')} in "
             f"{count_text(len(s['computations']), 'computation')}"]
    if "note" in f:
        lines.append(f"   {f['note']}")
        return "\n".join(lines)
    off = f["offload"]
    for e in off["errors"]:
        index = "{" + ",".join(map(str, e["output_index"])) + "}"
        first = "  (XLA reports this one)" if e.get("first") else ""
        lines.append(f"   E1200 predicted for output {index} ({e['output_layout']}){first}")
        lines.append(f"      {e['message'].splitlines()[1] if chr(10) in e['message'] else e['message']}")
        for hop in e["path"]:
            where = f"  at {hop['location']}" if hop.get("location") else ""
            idx = "{" + ",".join(map(str, hop["shape_index"])) + "}" if hop["shape_index"] else ""
            lines.append(f"      -> {hop['instruction']}{idx} ({hop['opcode']}){where}")
        fix = e.get("fix")
        if fix:
            lines.append(f"      fix (a) keep it on host: entry result {index} -> {fix['host']['entry_result_layout']}")
            lines.append(f"      fix (b) bring it back: move-to-device after {fix['device']['after_instruction']}"
                         + (f" ({fix['device']['location']})" if fix["device"].get("location") else ""))
    if off["errors"]:
        lines.append(f"      details and JAX code: xladoctor offload {_arg(f['path'])}  (--fix host|device -o OUT edits it)")
    for fail in off.get("failures", []):
        lines.append(f"   XLA would fail: {fail['message']}")
    if not off["error"] and not off.get("failures"):
        lines.append("   host offload: no error predicted")
    for w in off["warnings"][:5]:
        lines.append(f"   warning: {w}")
    if len(off["warnings"]) > 5:
        lines.append(f"   ... {len(off['warnings']) - 5} more warnings")
    if f.get("provenance", {}).get("note"):
        lines.append(f"   note: {f['provenance']['note']}")
    lines.extend(_confirm.render(f.get("confirm"), "   "))
    return "\n".join(lines)


def _arg(path: str) -> str:
    """A path as a command line argument a user can run: stdin is '-', others shell-quoted."""
    import shlex

    return "-" if path == "<stdin>" else shlex.quote(path)


def _log_text(f: dict[str, Any], lang: str) -> str:
    findings = f["explain"]["findings"]
    if not findings:
        return "   no XLA error found"
    lines = []
    not_shown = f["explain"].get("not_shown")
    for x in findings:
        count = f" (x{x['count']})" if x.get("count", 1) > 1 else ""
        lines.append(f"   line {x['line']}: {x['code']} {x['name']}{count}")
        analysis = x.get("analysis") or {}
        if "expected_physical_bytes" in analysis and "actual_physical_bytes" in analysis:
            lines.append(f"      expected {analysis['expected_physical_bytes']:,} B vs supplied "
                         f"{analysis['actual_physical_bytes']:,} B (recomputed from the printed layouts)")
        lines.extend(f"      {note}" for note in analysis.get("notes", [])[:3])
        if x.get("fields", {}).get("start"):
            lines.append(f"      offload walk starts at {x['fields']['start']}; run `xladoctor offload` on the module "
                         "before optimizations to see the path")
        if x.get("fixes"):
            lines.append(f"      fix: {x['fixes'][0]}")
    if not_shown:
        lines.append(f"   {not_shown['messages']} more {'message' if not_shown['messages'] == 1 else 'messages'} not shown (only the first "
                     f"{not_shown['distinct_limit']} distinct errors are kept)")
    lines.append(f"   details: xladoctor explain {_arg(f['path'])}" + (" --lang fa" if lang == "fa" else ""))
    return "\n".join(lines)
