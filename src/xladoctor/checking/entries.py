"""The ``check --json`` entry of each kind of input (docs/json.md#check): an analysed HLO
module, a module triaged without parsing, a scanned log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..files import located
from ..oracle.confirm import confirm, is_error

if TYPE_CHECKING:
    from ..catalogue.logscan import LogScan
    from ..ir.module import HloModule

COMPILED_NOTE = ("compiled (post-optimization) module: XLA's host offloader already ran on it, so the "
                 "E1200 analysis needs the module from before optimizations (*before_optimizations.txt, "
                 "Lowered.as_text('hlo'))")


def check_hlo(text: str, source: str, rule: str = "shipped", confirm_topology: str | None = None) -> dict[str, Any]:
    from ..syntax.hlo_parser import parse_module

    module = parse_module(text, source)
    with located(text, source):
        return _check_module(module, text, source, rule, confirm_topology)


def _check_module(module: HloModule, text: str, source: str, rule: str = "shipped",
                  confirm_topology: str | None = None) -> dict[str, Any]:
    from ..hlo_summary import summarize
    from ..offload import analyze_host_offload
    from ..offload.fixes import suggest_fixes
    from ..offload.report import result_json
    from ..provenance import detect as detect_provenance

    origin = detect_provenance(text, None if source == "<stdin>" else source)
    entry: dict[str, Any] = {"path": source, "kind": "hlo", "hlo": summarize(module), "provenance": origin.to_json()}
    if origin.stage == "compiled":
        entry["note"] = COMPILED_NOTE
        entry["findings"] = 0
        return entry
    result = analyze_host_offload(module, rule)
    entry["offload"] = result_json(result, suggest_fixes(module, result))
    entry["findings"] = len(result.errors) + len(getattr(result, "failures", ()))
    if confirm_topology is not None:
        entry["confirm"] = confirm(text, module, result, confirm_topology)
        if not entry["findings"] and is_error(entry["confirm"]):
            entry["findings"] = 1  # the real compiler rejects what we did not predict
    return entry


def triaged_entry(source: str, name: str, compiled: bool) -> dict[str, Any]:
    note = COMPILED_NOTE if compiled else (
        "no host-offload annotation (MoveToHost/MoveToDevice, annotate_device_placement, S(5), host compute): "
        "no E1200 is possible, so the module was not parsed (--full parses it)")
    return {"path": source, "kind": "hlo", "module": name, "parsed": False, "compiled": compiled, "note": note,
            "findings": 0}


def log_entry(scan: LogScan, lang: str) -> dict[str, Any]:
    from ..report.explain_json import scan_document

    return {"path": scan.source, "kind": "log",
            "explain": scan_document(scan.findings, scan.source, lang, scan.not_shown),
            "findings": len(scan.findings)}


def error_entry(path: str, error: str) -> dict[str, Any]:
    return {"path": path, "kind": "error", "error": error, "findings": 0}
