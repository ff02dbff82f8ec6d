"""The text of ``xladoctor check``: a section per file with something to say, quiet files one
line each, then a tally.  Reads the ``check --json`` document, so both tell the same story."""

from __future__ import annotations

from typing import Any

from ..escape import escape_field
from ..findings import Finding, FindingKind, Report, from_json
from ..units import count_text
from .confirm import confirm_lines
from .finding_text import render_finding


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
            out += [f"== {escape_field(f['path'])}", _hlo_text(f, lang) if kind == "hlo" else _log_text(f, lang), ""]
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


def _hlo_text(f: dict[str, Any], lang: str) -> str:
    s = f["hlo"]
    lines = [f"   HLO module {s['name']}: {count_text(s['instruction_count'], 'instruction')} in "
             f"{count_text(len(s['computations']), 'computation')}"]
    if "note" in f:
        lines.append(f"   {f['note']}")
        return "\n".join(lines)
    off = f["offload"]
    found = _findings(off)
    mismatches = [x for x in found if x.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]
    for x in mismatches:
        lines.extend(_indented(x, lang))
    if mismatches:
        lines.append(f"      details and JAX code: xladoctor offload {_arg(f['path'])}  (--fix host|device -o OUT edits it)")
    for x in found:
        if x.kind is FindingKind.OFFLOAD_PASS_FAILURE:
            lines.extend(_indented(x, lang))
    if not off["error"] and not off.get("failures"):
        lines.append("   host offload: no error predicted")
    for w in off["warnings"][:5]:
        lines.append(f"   warning: {w}")
    if len(off["warnings"]) > 5:
        lines.append(f"   ... {len(off['warnings']) - 5} more warnings")
    if f.get("provenance", {}).get("note"):
        lines.append(f"   note: {f['provenance']['note']}")
    lines.extend(confirm_lines(f.get("confirm"), "   "))
    return "\n".join(lines)


def _findings(doc: dict[str, Any]) -> list[Finding]:
    """The findings of a per-file document (``offload`` or ``explain``), read back from its ``diagnostics``."""
    report = from_json(doc["diagnostics"])
    assert isinstance(report, Report)
    return list(report.findings)


def _indented(finding: Finding, lang: str) -> list[str]:
    return ["   " + line for line in render_finding(finding, lang)]


def _arg(path: str) -> str:
    """A path as a command line argument a user can run: stdin is '-', others shell-quoted."""
    import shlex

    return "-" if path == "<stdin>" else shlex.quote(path)


def _log_text(f: dict[str, Any], lang: str) -> str:
    findings = _findings(f["explain"])
    if not findings:
        return "   no XLA error found"
    lines = []
    not_shown = f["explain"].get("not_shown")
    for x in findings:
        lines.extend(_indented(x, lang))
    if not_shown:
        lines.append(f"   {not_shown['messages']} more {'message' if not_shown['messages'] == 1 else 'messages'} not shown (only the first "
                     f"{not_shown['distinct_limit']} distinct errors are kept)")
    lines.append(f"   details: xladoctor explain {_arg(f['path'])}" + (" --lang fa" if lang == "fa" else ""))
    return "\n".join(lines)
