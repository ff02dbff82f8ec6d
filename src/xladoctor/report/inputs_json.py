"""The ``inputs --json`` document (docs/json.md ``## inputs``), drawn once from the comparison and
its Report; also the page's (``inputs --html``) and ``xladoctor.jax``'s ``check_inputs`` notebook
page.  Moved here from ``route/documents.py`` (issue 37): the route returns the Report.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..findings.model import Report

if TYPE_CHECKING:
    from ..inputs.compare import InputCheck
    from ..ir.module import HloModule
    from ..ir.sizes import DimensionPadding


def _padding_json(rows: Iterable[DimensionPadding]) -> list[dict[str, Any]]:
    return [{"dim": p.dim, "size": p.size, "padded_size": p.padded_size, "tile_entry": p.tile_entry,
             "physical_position": p.physical_position, "combined": p.combined} for p in rows]


def compared_document(report: Report) -> dict[str, Any]:
    """The ``inputs`` document of ``inputs``' Report (its details the comparison)."""
    from ..findings.details import ComparedInputs

    details = report.details
    if not isinstance(details, ComparedInputs):
        raise TypeError(f"{report.command}: not the Report of an input comparison")
    return inputs_document(details.check, report.inputs[0] if report.inputs else None, details.module, report.lang,
                           report)


def inputs_document(check: InputCheck, source: str | None = None, module: HloModule | None = None,
                    lang: str = "en", report: Report | None = None) -> dict[str, Any]:
    """The ``inputs`` JSON document body (see docs/json.md); ``source``/``module`` name and hold the
    expected side, for the findings' locations; ``lang``: of its sentences (summary, padding, fixes,
    notes) and of the diagnostics' titles and fix texts, as the text report and the page read them."""
    from ..base.labels import in_lang
    from ..findings.wire import typed
    from ..inputs.explanation import fixes, padding_phrase, summary

    if report is None:
        from ..findings.from_inputs import inputs_findings

        report = Report("inputs", (source,) if source else (), inputs_findings(check, source, module, lang), lang)
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
            "diagnostics": typed(report)}
