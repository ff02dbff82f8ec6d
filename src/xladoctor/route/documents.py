"""The JSON documents of the routes, each written once from its Report: ``offload --json`` (also
``check``'s per-module ``offload``), ``inputs --json``, and every command's ``diagnostics``.

Moved out of the old ``pipeline.py`` (issue 37): the analysis step is :mod:`.module_analysis`,
the routes are one module per input kind (:mod:`.hlo_text`, :mod:`.log`, :mod:`.tensors`,
:mod:`.folder`, picked by :mod:`.dispatch`).  Layering: above the analyses, the findings model
and the renderers' inputs; below ``commands/`` (nothing here imports a command).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..findings import Finding, Report

if TYPE_CHECKING:
    from ..catalogue.scanner import LogMatch
    from ..inputs.compare import InputCheck
    from ..ir.module import HloModule
    from ..ir.sizes import DimensionPadding
    from .module_analysis import ModuleCheck


def offload_document(mc: ModuleCheck, lang: str = "en") -> dict[str, Any]:
    """The ``offload --json`` document body (also ``check``'s per-module ``offload``): what a user
    or CI reads at the top (the verdict comes from ``diagnostics``), the analysis under ``details``
    (docs/json.md, schema version 2)."""
    from ..offload.report import details_json

    details = details_json(mc.result, mc.fixes)
    if lang != "en":  # xladoctor's own sentences in the reader's language (XLA's stay as XLA wrote them),
        # here, where the language is known: a document from a worker process reaches the renderers as JSON
        from ..base.labels import in_lang

        details["warnings"] = [in_lang(w, lang) for w in details["warnings"]]
        details["failures"] = [{**f, "message": in_lang(f["message"], lang)} for f in details["failures"]]
        details["dropped_offloads"] = [{**d, "reason": in_lang(d["reason"], lang)} for d in details["dropped_offloads"]]
    doc: dict[str, Any] = {"command": "offload", "provenance": mc.provenance.to_json(),
                           "stablehlo": mc.options.companion_json()}
    if mc.memory_kinds is not None:
        doc["memory_kinds"] = mc.memory_kinds
    if mc.confirm is not None:
        from ..oracle.confirmation import ConfirmObject

        doc["confirm"] = ConfirmObject(mc.confirm.in_lang(lang))
    from ..findings.wire import typed

    doc["diagnostics"] = typed(mc.report("offload", lang))
    doc["details"] = details
    if mc.result.errors:
        _type_analysis_records(doc, mc, lang)
    return doc


def _type_analysis_records(doc: dict[str, Any], mc: ModuleCheck, lang: str) -> None:
    """The module's E1200 records typed for the page, as findings/records.py types them when a
    document is read back, so no renderer reads a record's JSON: each with XLA's trace as hops and
    its finding (the diagnostics' own for the same output; for a compiled module, which has none
    since XLA already ran the pass, the finding it would be, without a file to fix)."""
    from ..findings.from_offload import mismatch_finding
    from ..findings.model import FindingKind, Hop
    from ..findings.serialise import thaw_json
    from ..findings.wire import Record

    by_index = {tuple(f.output_index): f for f in mc.fixes}
    reported = {tuple(thaw_json(f.fields.get("output_index")) or ()): f for f in reversed(doc["diagnostics"].report.findings)
                if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH}
    records = []
    details = doc["details"]
    for err, e in zip(details["errors"], mc.result.errors):
        finding = reported.get(tuple(e.output_index)) or mismatch_finding(
            e, mc.result, by_index.get(tuple(e.output_index)), None, None, None, lang)
        records.append(Record(err, finding, tuple(Hop(h.instruction, tuple(h.shape_index)) for h in e.trace)))
    details["error"] = next((r for r in records if details["error"] is not None and dict(r) == details["error"]),
                            details["error"])
    details["errors"] = records


def log_findings(findings: Iterable[LogMatch], source: str | None, lang: str = "en") -> tuple[Finding, ...]:
    """Findings step for a log scanned by the catalogue scanner."""
    from ..findings.from_log import log_findings as adapt

    return adapt(findings, source, lang)


def inputs_findings(check: InputCheck, source: str | None, module: HloModule | None = None,
                    lang: str = "en") -> tuple[Finding, ...]:
    from ..findings.from_inputs import inputs_findings as adapt

    return adapt(check, source, module, lang)


def diagnostics(command: str, inputs: Sequence[str], findings: Iterable[Finding], lang: str = "en",
                input_errors: Sequence[str] = ()) -> dict[str, Any]:
    """The ``diagnostics`` key of every command document: one serialiser for all of them; the
    object carries the typed report too, for the renderers in this process (findings/wire.py)."""
    from ..findings.wire import typed

    return typed(Report(command, tuple(inputs), tuple(findings), lang, tuple(input_errors)))


def check_diagnostics(files: Sequence[Mapping[str, Any]], lang: str = "en") -> dict[str, Any]:
    """``check``'s ``diagnostics``: every file's findings in walk order, each located in its file.

    The per-file documents already hold their findings, serialised and typed (the ``offload`` or
    ``explain`` document this process built, or a worker's, typed where it was read back), so both
    forms are concatenated, not recomputed.
    """
    from ..findings.wire import Diagnostics, findings_of

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
    doc = diagnostics("check", [str(f["path"]) for f in files if f.get("kind") not in ("skipped",)], (), lang,
                      [str(f["error"]) for f in files if f.get("kind") == "error"])
    assert isinstance(doc, Diagnostics)
    report = replace(doc.report, findings=tuple(x for x in aligned if x is not None))
    return Diagnostics({**doc, "findings": findings}, report, tuple(aligned))


def _padding_json(rows: Iterable[DimensionPadding]) -> list[dict[str, Any]]:
    return [{"dim": p.dim, "size": p.size, "padded_size": p.padded_size, "tile_entry": p.tile_entry,
             "physical_position": p.physical_position, "combined": p.combined} for p in rows]


def inputs_report(check: InputCheck, source: str | None = None, module: HloModule | None = None,
                  lang: str = "en") -> Report:
    """One comparison's findings as the one report type (its exit code is the command's)."""
    return Report("inputs", (source,) if source else (), inputs_findings(check, source, module, lang), lang)


def inputs_document(check: InputCheck, source: str | None = None, module: HloModule | None = None,
                    lang: str = "en", report: Report | None = None) -> dict[str, Any]:
    """The ``inputs`` JSON document body (see docs/json.md); ``source``/``module`` name and hold the
    expected side, for the findings' locations; ``lang``: of its sentences (summary, padding, fixes,
    notes) and of the diagnostics' titles and fix texts, as the text report and the page read them."""
    from ..base.labels import in_lang
    from ..findings.wire import typed
    from ..inputs.explanation import fixes, padding_phrase, summary

    mismatches = []
    for m in check.mismatches:
        mismatches.append({
            "index": m.index,
            "supplied_index": m.supplied.index,
            "name": m.expected.name,
            "supplied_name": m.supplied.name,
            "instruction": m.expected.instruction,
            "kind": m.kind,
            "expected": {"shape": str(m.expected.shape), "logical_bytes": m.expected_logical_bytes,
                         "physical_bytes": m.expected_physical_bytes, "jax_layout": m.expected_jax_layout,
                         "padding": _padding_json(m.expected_padding),
                         "padding_text": padding_phrase(m.expected_padding, m.expected.shape, lang)},
            "supplied": {"shape": str(m.supplied.shape), "logical_bytes": m.supplied_logical_bytes,
                         "physical_bytes": m.supplied_physical_bytes, "actual_bytes": m.supplied.actual_bytes,
                         "jax_layout": m.supplied_jax_layout, "padding": _padding_json(m.supplied_padding),
                         "padding_text": padding_phrase(m.supplied_padding, m.supplied.shape, lang)},
            "differences": [{"attribute": d.attribute, "expected": d.expected, "supplied": d.supplied}
                            for d in m.differences],
            "expansion": m.expansion,
            "runtimes": {v.runtime: {"accepts": v.accepts, "compares": in_lang(v.compares, lang),
                                     "expected": v.expected_value, "supplied": v.supplied_value}
                         for v in m.verdicts},
            "summary": summary(m, lang),
            "notes": [in_lang(n, lang) for n in m.notes],
            "hidden_layout_candidates": list(m.hidden_layout_candidates),
            "fixes": [{"kind": f.kind, "text": f.text, "code": f.code} for f in fixes(m, lang)],
        })
    return {"command": "inputs", "executable": check.executable, "ok": check.ok,
            "expected_count": check.expected_count, "supplied_count": check.supplied_count,
            "pairing": check.pairing, "per_tuple_element": check.per_tuple_element,
            "missing": check.missing, "extra": check.extra,
            "mismatches": mismatches, "messages": check.messages,
            "diagnostics": typed(report or inputs_report(check, source, module, lang))}


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
