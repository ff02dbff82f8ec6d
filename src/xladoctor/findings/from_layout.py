"""The parser's layout warnings as findings: layouts jaxlib's parser keeps and XLA's shape validation
refuses (``syntax/layout_warnings.py``), each a warning naming the rule, where it is, XLA's words and
what XLA does with it.  The code is E0002 (InvalidArgument): the status XLA's compile gives the
instruction's own shape (measured with libtpu 0.0.42.1)."""

from __future__ import annotations

from ..base.labels import label
from .model import Finding, FindingKind, Location, Origin, Severity

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

CODE, NAME = "E0002", "InvalidArgument"
_WHAT_XLA_DOES = {"result": "finding.layout_result", "operand": "finding.layout_operand",
                  "signature": "finding.layout_signature"}
"""What XLA does with the layout, by where it is written (layout_warnings.LayoutWarning.role)."""


def layout_findings(module: Any, source: str | None, lang: str = "en") -> tuple[Finding, ...]:
    """One warning per layout the parser read with the default layout instead (``module.layout_warnings``)."""
    return tuple(_finding(w, source, lang) for w in module.layout_warnings)


def _finding(w: Any, source: str | None, lang: str) -> Finding:
    return Finding(CODE, NAME, FindingKind.LAYOUT_WARNING, Origin.PREDICTED, Severity.WARNING,
                   label("finding.layout_title", lang, rule=w.rule), w.message,
                   Location(source, w.line, w.column, w.instruction),
                   fields={"rule": w.rule, "role": w.role, "xla": label(_WHAT_XLA_DOES[w.role], lang)})
