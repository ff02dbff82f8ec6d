"""The ``offload --json`` document (docs/json.md ``## offload``), drawn once from the module's Report.

Also ``check``'s per-module ``offload`` (:mod:`.check_json`).  What a user or CI reads is at the
top (the verdict comes from ``diagnostics``), the analysis under ``details`` (schema version 2).
The Report carries the findings; its :class:`~xladoctor.findings.details.OffloadDetails` the
analysis they were made from.  Moved here from ``route/documents.py`` (issue 37): the route
returns the Report, the view writes its JSON.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..findings.details import OffloadDetails
    from ..findings.model import Report


def offload_document(report: Report, offload: OffloadDetails | None = None) -> dict[str, Any]:
    """The ``offload --json`` document body of ``report`` (its findings, in its language) and
    ``offload``, the analysis they were made from (default: the Report's own details, as
    ``offload``'s route attaches them; ``check`` gives its module's)."""
    from ..findings.details import offload_of
    from ..findings.model import Report

    offload = offload or offload_of(report)
    from ..findings.wire import typed
    from ..offload.report import details_json

    lang = report.lang
    details = details_json(offload.result, list(offload.fixes))
    if lang != "en":  # xladoctor's own sentences in the reader's language (XLA's stay as XLA wrote them),
        # here, where the language is known: a document from a worker process reaches the renderers as JSON
        from ..base.labels import in_lang

        details["warnings"] = [in_lang(w, lang) for w in details["warnings"]]
        details["failures"] = [{**f, "message": in_lang(f["message"], lang)} for f in details["failures"]]
        details["dropped_offloads"] = [{**d, "reason": in_lang(d["reason"], lang)} for d in details["dropped_offloads"]]
    doc: dict[str, Any] = {"command": "offload", "provenance": offload.provenance.to_json(),
                           "stablehlo": offload.stablehlo}
    if offload.memory_kinds is not None:
        doc["memory_kinds"] = offload.memory_kinds
    if offload.confirm is not None:
        from ..oracle.confirmation import ConfirmObject

        doc["confirm"] = ConfirmObject(offload.confirm.in_lang(lang))
    # the module's diagnostics are the offload command's, whichever command shows them
    doc["diagnostics"] = typed(Report("offload", report.inputs, report.findings, lang))
    doc["details"] = details
    if offload.result.errors:
        _type_analysis_records(doc, offload, lang)
    return doc


def _type_analysis_records(doc: dict[str, Any], offload: OffloadDetails, lang: str) -> None:
    """The module's E1200 records typed for the page, as findings/records.py types them when a
    document is read back, so no renderer reads a record's JSON: each with XLA's trace as hops and
    its finding (the diagnostics' own for the same output; for a compiled module, which has none
    since XLA already ran the pass, the finding it would be, without a file to fix)."""
    from ..findings.from_offload import mismatch_finding
    from ..findings.model import FindingKind, Hop
    from ..findings.serialise import thaw_json
    from ..findings.wire import Record

    by_index = {tuple(f.output_index): f for f in offload.fixes}
    reported = {tuple(thaw_json(f.fields.get("output_index")) or ()): f for f in reversed(doc["diagnostics"].report.findings)
                if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH}
    records = []
    details = doc["details"]
    for err, e in zip(details["errors"], offload.result.errors):
        finding = reported.get(tuple(e.output_index)) or mismatch_finding(
            e, offload.result, by_index.get(tuple(e.output_index)), None, None, None, lang)
        records.append(Record(err, finding, tuple(Hop(h.instruction, tuple(h.shape_index)) for h in e.trace)))
    details["error"] = next((r for r in records if details["error"] is not None and dict(r) == details["error"]),
                            details["error"])
    details["errors"] = records
