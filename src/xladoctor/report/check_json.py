"""The ``check --json`` document (docs/json.md ``## check``): each file's entry drawn once from
that input's Report, and the run's ``diagnostics`` and Report from the entries.

A route returns one :class:`~xladoctor.findings.model.Report` per input, its findings and its
``details`` (:mod:`xladoctor.findings.details`); :func:`file_entry` is the one writer of the entry
``check`` keeps of it (and sends from a worker process, as JSON).  Moved here from the route
(issue 37): no route builds a document, no view reaches into the route's objects.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from ..base.plain_dataclass import fields_with  # a Report copied: no dataclasses (issue 36)

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..findings.details import ModuleDetails, ScannedLog, SkippedInput, TriagedModule
    from ..findings.model import Finding, Report

_LOG_DETAILS = __name__.rsplit(".", 2)[0] + ".findings.log_details"


def file_entry(report: Report) -> dict[str, Any]:
    """The ``files[i]`` entry of one input's Report: an error, a skipped path, a log, or a module
    (triaged from its bytes, compiled, undecidable or analysed)."""
    path = report.inputs[0]
    details = report.details
    if report.input_errors:
        return error_entry(path, report.input_errors[0])
    # A log's details are instances of findings.log_details' classes: where that module was never
    # imported there is none, and a module's entry does not import it (2 dataclasses, issue 36).
    logs = sys.modules.get(_LOG_DETAILS)
    if logs is not None and isinstance(details, logs.ScannedLog):
        return _log_entry(path, details, report)
    if logs is not None and isinstance(details, logs.SkippedInput):
        return _skipped_entry(path, details)
    from ..findings.details import ModuleDetails, TriagedModule  # a log's entry creates no module's class

    if isinstance(details, ModuleDetails):
        return _module_entry(path, details, report)
    if isinstance(details, TriagedModule):
        return _triaged_entry(path, details)
    raise TypeError(f"{path}: a Report without the details of a checked input")


def error_entry(path: str, error: str) -> dict[str, Any]:
    return {"path": path, "kind": "error", "error": error, "findings": 0}


def _skipped_entry(path: str, skipped: SkippedInput) -> dict[str, Any]:
    return {"path": path, "kind": "skipped", "note": skipped.note, "findings": 0,
            **({"companion_of": skipped.companion_of} if skipped.companion_of else {})}


def _triaged_entry(path: str, module: TriagedModule) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, "kind": "hlo", "module": module.module, "parsed": False,
                             "compiled": module.compiled, "note": module.note, "findings": 0}
    if module.provenance is not None:
        entry["provenance"] = module.provenance.to_json()
    if module.graph is not None:
        entry["graph"] = module.graph
    return entry


def _module_entry(path: str, module: ModuleDetails, report: Report) -> dict[str, Any]:
    from ..findings.wire import typed

    entry: dict[str, Any] = {"path": path, "kind": "hlo", "hlo": module.summary,
                             "provenance": module.provenance.to_json()}
    if module.state == "compiled":
        entry["note"] = module.note
        entry["findings"] = module.count
    elif module.state == "undecidable":
        entry["memory_kinds"] = module.memory_kinds
        entry["verdict"] = "undecidable"
        entry["note"] = module.note
        entry["findings"] = module.count
        entry["diagnostics"] = typed(type(report)(**fields_with(report, {"details": None})))
    else:
        from .offload_json import offload_document

        assert module.offload is not None
        entry["memory_kinds"] = module.memory_kinds
        entry["findings"] = module.count
        offload = offload_document(report, module.offload)
        if module.offload.confirm is not None:
            entry["confirm"] = offload["confirm"]  # the same object, in the check's language
        entry["offload"] = offload
    if module.graph is not None:
        entry["graph"] = module.graph
    return entry


def _log_entry(path: str, log: ScannedLog, report: Report) -> dict[str, Any]:
    from .explain_json import scan_document

    return {"path": path, "kind": "log",
            "explain": scan_document(list(log.matches), path, report.lang, log.not_shown, report),
            "findings": len(log.matches)}


def check_diagnostics(files: Sequence[Mapping[str, Any]], lang: str = "en") -> dict[str, Any]:
    """``check``'s ``diagnostics``: every file's findings in walk order, each located in its file.

    The per-file documents already hold their findings, serialised and typed (the ``offload`` or
    ``explain`` document this process built, or a worker's, typed where it was read back), so both
    forms are concatenated, not recomputed.
    """
    from ..findings.model import Report
    from ..findings.wire import Diagnostics, findings_of, typed

    findings: list[Any] = []
    aligned: list[Finding | None] = []
    for f in files:
        inner = (f if f.get("verdict") == "undecidable" else f.get("offload")) if f.get("kind") == "hlo" \
            else f.get("explain") if f.get("kind") == "log" else None
        if inner and "diagnostics" in inner:
            written = inner["diagnostics"]["findings"]
            got = findings_of(inner["diagnostics"])
            findings.extend(written)
            aligned.extend(got if len(got) == len(written) else [None] * len(written))
    doc = typed(Report("check", tuple(str(f["path"]) for f in files if f.get("kind") not in ("skipped",)), (), lang,
                       tuple(str(f["error"]) for f in files if f.get("kind") == "error")))
    report = type(doc.report)(**fields_with(doc.report, {"findings": tuple(x for x in aligned if x is not None)}))
    return Diagnostics({**doc, "findings": findings}, report, tuple(aligned))


def check_document(files: list[dict[str, Any]], lang: str = "en") -> tuple[dict[str, Any], Report]:
    """The ``check`` document of ``files`` (each file's entry, as kept) and the run's Report, whose
    exit code is the command's (``explain MODULE.hlo`` writes the same document for one file)."""
    from ..findings.wire import report_of

    diagnostics = check_diagnostics(files, lang)
    report = report_of(diagnostics)
    assert report is not None  # check_diagnostics types what it writes
    doc = {"command": "check", "files": files, "findings": sum(f["findings"] for f in files),
           "input_errors": sum(1 for f in files if f["kind"] == "error"), "diagnostics": diagnostics}
    return doc, report
