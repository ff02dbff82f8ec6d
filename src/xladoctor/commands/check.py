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
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import resources
from typing import Any

from ..errors import InputError, UsageError
from ..report.escape import escape_field
from ..syntax.hlo_parser import parse_module
from ._atomic import refuse_overwriting_inputs, write_output
from ._common import print_json, read_input

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
    p.add_argument("--strict", action="store_true",
                   help="offload analysis: older XLA / TPU rule (any host tensor at a non-host output is E1200)")
    p.add_argument("--lang", choices=("en", "fa"), default=None, help="language of explanations (default: from locale)")
    p.add_argument("--html", metavar="OUT", help="also write a self-contained HTML report to OUT")
    p.add_argument("--json", action="store_true", help="print JSON (see docs/json.md#check)")


def example_paths() -> list[str]:
    """The bundled examples, as files on disk (the package is installed unzipped)."""
    root = resources.files("xladoctor") / "examples"
    return sorted(str(p) for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


def _expand(paths: list[str]) -> list[str]:
    out: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames.sort()
                out.extend(os.path.join(dirpath, f) for f in sorted(filenames))
        else:
            out.append(path)
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
    head = text.lstrip()
    while head.startswith("//"):
        head = head.split("\n", 1)[1].lstrip() if "\n" in head else ""
    return head.startswith("HloModule")


def _is_compiled(text: str, path: str) -> bool:
    """A post-optimization module: XLA's host offloader already rewrote it (no annotations left to analyse)."""
    first = text.lstrip().split("\n", 1)[0]
    return "after_optimizations" in os.path.basename(path) or "is_scheduled=true" in first


def check_hlo(text: str, source: str, strict: bool) -> dict[str, Any]:
    from ..offload import analyze_host_offload
    from ..offload.fixes import suggest_fixes
    from ..offload.report import result_json
    from .hlo import summarize

    module = parse_module(text, source)
    entry: dict[str, Any] = {"path": source, "kind": "hlo", "hlo": summarize(module)}
    if _is_compiled(text, source):
        entry["note"] = ("compiled (post-optimization) module: XLA's host offloader already ran on it, so the "
                         "E1200 analysis needs the module from before optimizations (*before_optimizations.txt, "
                         "Lowered.as_text('hlo'))")
        entry["findings"] = 0
        return entry
    result = analyze_host_offload(module, strict)
    entry["offload"] = result_json(result, suggest_fixes(module, result))
    entry["findings"] = len(result.errors) + len(getattr(result, "failures", ()))
    return entry


def check_log(path: str, lang: str) -> dict[str, Any]:
    from ..catalogue.scan_report import scan_document, scan_file

    findings, source = scan_file(path)
    return {"path": source, "kind": "log", "explain": scan_document(findings, source, lang),
            "findings": len(findings)}


def run(args: argparse.Namespace) -> int:
    from ..catalogue.render import language_from_env

    lang = args.lang or language_from_env()
    paths = list(args.paths) + (example_paths() if args.examples else [])
    if not paths:
        raise UsageError("nothing to check: give files or directories, '-' for stdin, or --examples")
    expanded = _expand(paths)
    if args.html:
        refuse_overwriting_inputs(args.html, expanded)
    files: list[dict[str, Any]] = []
    input_errors = 0
    for path in expanded:
        reason = _skip_reason(path) if path != "-" else None
        if reason:
            files.append({"path": path, "kind": "skipped", "note": reason, "findings": 0})
            continue
        try:
            text, source = read_input(path)
            if _looks_like_hlo(text):
                files.append(check_hlo(text, source, args.strict))
            elif path == "-":
                files.append(_check_log_text(text, lang))
            else:
                files.append(check_log(path, lang))
        except InputError as err:
            input_errors += 1
            files.append({"path": path, "kind": "error", "error": str(err), "findings": 0})
    doc = {"command": "check", "files": files, "findings": sum(f["findings"] for f in files),
           "input_errors": input_errors}
    if args.html:
        from ..report.html import render_check_html
        shown = ", ".join(args.paths[:3]) + (" ..." if len(args.paths) > 3 else "")
        title = f"xladoctor: {shown}" if shown else "xladoctor: bundled examples"
        write_output(args.html, render_check_html(doc, title=title, lang=lang), "HTML report", expanded)
    if args.json:
        print_json(doc)
    else:
        sys.stdout.write(render_text(doc, lang))
    for f in files:
        if f["kind"] == "error":
            print(f["error"], file=sys.stderr)
    if input_errors:
        return 2
    return 1 if doc["findings"] else 0


def _check_log_text(text: str, lang: str) -> dict[str, Any]:
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as tmp:
        tmp.write(text)
    try:
        entry = check_log(tmp.name, lang)
    finally:
        os.unlink(tmp.name)
    entry["path"] = entry["explain"]["source"] = "<stdin>"
    return entry


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
        out += [f"nothing to report in {len(quiet)} file(s):", *quiet, ""]
    skipped = [f for f in doc["files"] if f["kind"] == "skipped"]
    checked = len(doc["files"]) - len(skipped)
    tail = f"{checked} file(s) checked, {doc['findings']} finding(s)"
    if skipped:
        tail += f", {len(skipped)} skipped (not HLO text or logs)"
    if doc["input_errors"]:
        tail += f", {doc['input_errors']} could not be read"
    out.append(tail)
    return "\n".join(out) + "\n"


def _is_quiet(f: dict[str, Any]) -> bool:
    if f["findings"]:
        return False
    if f["kind"] == "hlo":
        off = f.get("offload")
        return off is None or not (off.get("warnings") or off.get("failures") or off.get("outputs_moved_to_host"))
    return True


def _quiet_reason(f: dict[str, Any]) -> str:
    if f["kind"] == "log":
        return "no XLA error found"
    name = f"HLO module {f['hlo']['name']} ({f['hlo']['instruction_count']:,} instructions)"
    if "note" in f:
        return f"{name}, compiled: the E1200 analysis needs the module from before optimizations"
    return f"{name}, no host-offload error predicted"


def _hlo_text(f: dict[str, Any]) -> str:
    s = f["hlo"]
    lines = [f"   HLO module {s['name']}: {s['instruction_count']:,} instructions in {len(s['computations'])} "
             f"computation(s)"]
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
        lines.append(f"      details and JAX code: xladoctor offload {f['path']}  (--fix host|device -o OUT edits it)")
    for fail in off.get("failures", []):
        lines.append(f"   XLA would fail: {fail['message']}")
    if not off["error"] and not off.get("failures"):
        lines.append("   host offload: no error predicted")
    for w in off["warnings"][:5]:
        lines.append(f"   warning: {w}")
    if len(off["warnings"]) > 5:
        lines.append(f"   ... {len(off['warnings']) - 5} more warnings")
    return "\n".join(lines)


def _log_text(f: dict[str, Any], lang: str) -> str:
    findings = f["explain"]["findings"]
    if not findings:
        return "   no XLA error found"
    lines = []
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
    lines.append(f"   details: xladoctor explain {f['path']}" + (" --lang fa" if lang == "fa" else ""))
    return "\n".join(lines)
