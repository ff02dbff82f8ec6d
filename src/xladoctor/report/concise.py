"""``--format concise`` and ``--statistics``: one line per finding, counts per code, as ruff prints.

``path:line:col: CODE title, output {0} at model.py:23 (x3)`` reads in any editor's error
list and greps well; ``--statistics`` is the table of how many of each code.  Both are drawn
from the findings model (the document's ``diagnostics``), like SARIF and GitHub annotations,
so they say the same findings.  Input-derived pieces are escaped before they are painted.
"""

from __future__ import annotations

from collections import Counter

from ..escape import escape_field
from ..findings.model import Finding, Report
from ..ir.shape import format_shape_index
from ..labels import glossary, label
from .colour import Painter

_SEVERITY_STYLE = {"error": "red", "warning": "yellow"}


def _where(f: Finding, fallback: str) -> str:
    loc = f.location
    path = loc.path or fallback
    line = loc.line or (f.lines[0] if f.lines else 1)
    return f"{escape_field(path)}:{line}:{loc.column or 1}"


def concise_line(f: Finding, fallback: str, paint: Painter, lang: str = "en") -> str:
    """One finding in one line (no newline)."""
    text = escape_field(f.title)
    index = f.fields.get("output_index")
    if isinstance(index, list | tuple) and all(isinstance(i, int) for i in index):
        text += ", " + glossary.output(format_shape_index(tuple(i for i in index if isinstance(i, int))), lang)
    if f.source is not None:
        text += " " + label("finding.concise_at", lang, source=escape_field(f"{f.source.file}:{f.source.line}"))
    if f.count > 1:
        text += f" (x{f.count})"
    code = paint(escape_field(f.code), _SEVERITY_STYLE.get(str(f.severity.value), "bold"))
    return f"{paint(_where(f, fallback), 'bold')}: {code} {text}"


def render_concise(report: Report, paint: Painter) -> str:
    fallback = report.inputs[0] if report.inputs else "<input>"
    lines = [concise_line(f, fallback, paint, report.lang) for f in report.findings]
    lines.extend(escape_field(e) for e in report.input_errors)
    lines.append(_tally(report, paint))
    return "\n".join(lines) + "\n"


def _tally(report: Report, paint: Painter, occurrences: int | None = None) -> str:
    n = sum(1 for _ in report.findings)
    words = glossary.count(n, "finding", report.lang)
    if occurrences is not None and occurrences != n:
        words = label("term.with_occurrences", report.lang, findings=words,
                      occurrences=glossary.count(occurrences, "occurrence", report.lang))
    return paint(words, "red" if n else "green")


def render_statistics(report: Report, paint: Painter) -> str:
    """Per code: how many findings, the code and its name, most first; then the tally.

    What is counted is findings, the lines of ``--format concise`` (so the rows add up to the
    tally under them).  A log repeats a message: that is one finding with a ``count``; the
    occurrences follow as ``(xN)`` where they differ from the findings, as the concise list
    marks them, and the tally adds their total (docs/json.md, "Other formats")."""
    counts: Counter[tuple[str, str]] = Counter()
    occurrences: Counter[tuple[str, str]] = Counter()
    for f in report.findings:
        counts[(f.code, f.name)] += 1
        occurrences[(f.code, f.name)] += f.count
    width = max((len(f"{n:,}") for n in counts.values()), default=1)
    lines = []
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], -occurrences[kv[0]], kv[0])):
        times = f" (x{occurrences[key]:,})" if occurrences[key] != n else ""
        lines.append(f"{n:>{width},}  {paint(escape_field(key[0]), 'red')}  {escape_field(key[1])}{times}")
    lines.append(_tally(report, paint, sum(occurrences.values())))
    return "\n".join(lines) + "\n"
