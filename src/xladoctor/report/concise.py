"""``--format concise`` and ``--statistics``: one line per finding, counts per code, as ruff prints.

``path:line:col: CODE title, output {0} at model.py:23 (x3)`` reads in any editor's error
list and greps well; ``--statistics`` is the table of how many of each code.  Both are drawn
from the findings model (the document's ``diagnostics``), like SARIF and GitHub annotations,
so they say the same findings.  Input-derived pieces are escaped before they are painted.
"""

from __future__ import annotations

from collections import Counter

from ..base.escape import escape_field
from ..base.labels import glossary, label
from ..findings.model import Finding, Report
from ..ir.shape import format_shape_index
from .colour import Painter

_SEVERITY_STYLE = {"error": "red", "warning": "yellow"}


def _where(f: Finding, fallback: str) -> str:
    loc = f.location
    path = loc.path or fallback
    line = loc.line or (f.lines[0] if f.lines else 1)
    return f"{escape_field(path)}:{line}:{loc.column or 1}"


Row = tuple[str, tuple[tuple[str, str], ...]]
"""A line's plain text and the pieces of it to paint ``(piece, style)``, in order; the piece
``""`` paints the whole line.  Painted after the line is drawn for its reader (see :func:`draw`)."""


def concise_row(f: Finding, fallback: str, lang: str = "en") -> Row:
    """One finding in one line (no newline), and what of it is painted."""
    text = escape_field(f.title)
    index = f.fields.get("output_index")
    if isinstance(index, list | tuple) and all(isinstance(i, int) for i in index):
        name = f.fields.get("result_name")
        output = glossary.output(format_shape_index(tuple(i for i in index if isinstance(i, int))), lang,
                                 escape_field(str(name)) if name else None)
        text += label("finding.concise_output", lang, output=output)
    if f.source is not None:
        text += " " + label("finding.concise_at", lang, source=escape_field(f"{f.source.file}:{f.source.line}"))
    if f.count > 1:
        text += f" (x{f.count})"
    where, code = _where(f, fallback), escape_field(f.code)
    return f"{where}: {code} {text}", ((where, "bold"), (code, _SEVERITY_STYLE.get(str(f.severity.value), "bold")))


def concise_line(f: Finding, fallback: str, paint: Painter, lang: str = "en") -> str:
    """One finding in one line (no newline), painted."""
    return draw([concise_row(f, fallback, lang)], paint, lang)


def render_concise(report: Report, paint: Painter, bidi: str | None = None, width: int | None = None) -> str:
    """The concise list; ``bidi`` ('visual' or 'logical') draws Persian lines for their reader."""
    fallback = report.inputs[0] if report.inputs else "<input>"
    rows: list[Row] = [concise_row(f, fallback, report.lang) for f in report.findings]
    rows.extend((escape_field(e), ()) for e in report.input_errors)
    rows.append(_tally(report))
    return draw(rows, paint, report.lang, bidi, width) + "\n"


def _tally(report: Report, occurrences: int | None = None) -> Row:
    n = sum(1 for _ in report.findings)
    words = glossary.count(n, "finding", report.lang)
    if occurrences is not None and occurrences != n:
        words = label("term.with_occurrences", report.lang, findings=words,
                      occurrences=glossary.count(occurrences, "occurrence", report.lang))
    return words, (("", "red" if n else "green"),)


def render_statistics(report: Report, paint: Painter, bidi: str | None = None, width: int | None = None) -> str:
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
    width_n = max((len(f"{n:,}") for n in counts.values()), default=1)
    rows: list[Row] = []
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], -occurrences[kv[0]], kv[0])):
        times = f" (x{occurrences[key]:,})" if occurrences[key] != n else ""
        code = escape_field(key[0])
        rows.append((f"{n:>{width_n},}  {code}  {escape_field(key[1])}{times}", ((code, "red"),)))
    rows.append(_tally(report, sum(occurrences.values())))
    return draw(rows, paint, report.lang, bidi, width) + "\n"


def draw(rows: list[Row], paint: Painter, lang: str, bidi: str | None = None, width: int | None = None) -> str:
    """The rows as lines: a Persian one drawn for its reader first (``bidi``: 'visual' for a
    terminal, shaped and reordered, wrapped to ``width``; 'logical' for files, its code isolated;
    as check's text, report/terminal_bidi.py), then painted.  Painting after the reordering keeps
    the ANSI sequences out of it (they would be reordered as text); the painted pieces are
    left-to-right runs (a path, a code), which the reordering keeps whole."""
    out = []
    for text, pieces in rows:
        if lang == "fa" and bidi is not None:
            from .terminal_bidi import bidi_text  # lazy: arabic-reshaper only for a Persian line

            text = bidi_text(text, bidi, width)
        out.append(_paint_pieces(text, pieces, paint))
    return "\n".join(out)


def _paint_pieces(text: str, pieces: tuple[tuple[str, str], ...], paint: Painter) -> str:
    if not paint.enabled:
        return text
    at = 0
    for piece, style in pieces:
        if piece == "":
            return "\n".join(paint(row, style) for row in text.split("\n"))
        found = text.find(piece, at)
        if found < 0:
            continue
        painted = paint(piece, style)
        text = text[:found] + painted + text[found + len(piece):]
        at = found + len(painted)
    return text
