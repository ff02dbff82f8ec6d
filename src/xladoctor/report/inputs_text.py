"""The text of ``xladoctor inputs``: the parameters missing on either side, then every mismatch
explained (:func:`xladoctor.inputs.explanation.report_lines`: sizes, padding, what each runtime
would say, the fixes), in ``lang``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.escape import escape_field
from ..base.labels import label

if TYPE_CHECKING:
    from ..findings.model import Report
    from ..inputs.compare import InputCheck


def compared_text(report: Report) -> str:
    """``inputs``' text of its Report (its details the comparison), in the Report's language."""
    from ..findings.details import ComparedInputs

    details = report.details
    if not isinstance(details, ComparedInputs):
        raise TypeError(f"{report.command}: not the Report of an input comparison")
    return inputs_text(details.check, report.lang)


def inputs_text(check: InputCheck, lang: str = "en") -> str:
    """The report, in logical order (the command draws it for its reader)."""
    from ..inputs.explanation import report_lines

    lines = []
    if check.missing:
        lines.append(label("inputs.missing", lang, names=", ".join(map(escape_field, check.missing))))
    if check.extra:
        lines.append(label("inputs.extra", lang, names=", ".join(map(escape_field, check.extra))))
    lines.extend(report_lines(check, lang=lang))
    return "\n".join(lines)
