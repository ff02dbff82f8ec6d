"""The ``check --json`` entry of each kind of input (docs/json.md#check): an analysed HLO
module, a module triaged without parsing, a scanned log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..files import located
from ..oracle.confirm import confirm, is_error
from ..pipeline import compiled_note

if TYPE_CHECKING:
    from ..catalogue.logscan import LogScan
    from ..ir.module import HloModule

def check_hlo(text: str, source: str, rule: str = "shipped", confirm_topology: str | None = None,
              disable_host_compute: bool = False) -> dict[str, Any]:
    from ..pipeline import parse_hlo

    module = parse_hlo(text, source)
    with located(text, source):
        return _check_module(module, text, source, rule, confirm_topology, disable_host_compute)


def _check_module(module: HloModule, text: str, source: str, rule: str = "shipped",
                  confirm_topology: str | None = None, disable_host_compute: bool = False) -> dict[str, Any]:
    """The ``offload`` command's steps (the pipeline's) on one module, after its summary."""
    from ..hlo_summary import summarize
    from ..pipeline import AnalysisOptions, analyse_module, offload_document
    from ..provenance import detect as detect_provenance

    origin = detect_provenance(text, None if source == "<stdin>" else source)
    entry: dict[str, Any] = {"path": source, "kind": "hlo", "hlo": summarize(module), "provenance": origin.to_json()}
    if origin.stage == "compiled":
        entry["note"] = compiled_note()
        entry["findings"] = 0
        return entry
    mc = analyse_module(module, text, source, AnalysisOptions(rule, disable_host_compute), provenance=origin)
    result = mc.result
    entry["findings"] = len(result.errors) + len(result.failures)
    if confirm_topology is not None:
        mc.confirm = entry["confirm"] = confirm(text, module, result, confirm_topology)
        if not entry["findings"] and is_error(entry["confirm"]):
            entry["findings"] = 1  # the real compiler rejects what we did not predict
    entry["offload"] = offload_document(mc)
    return entry


def triaged_entry(source: str, name: str, compiled: bool) -> dict[str, Any]:
    note = compiled_note() if compiled else (
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
