"""One finding as text: one renderer per :class:`~xladoctor.findings.FindingKind`, chosen from one table.

Each renderer is a pure function of the typed finding, ``(Finding, lang, width) -> lines``,
so every route that prints a finding (``check`` on an HLO module or a log, read back from
the ``diagnostics`` of the per-file document) draws it the same way, whichever analysis
made it.  Lines come without the caller's indent; continuation lines carry their own.

The drawing of a path hop and of a fix's prose are shared parts: a hop as XLA names it
(instruction and ShapeIndex, ``format_shape_index``'s ``{1,0}``) with the opcode and the
Python line it came from; a fix as its sentence without the JAX snippet that follows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..findings.model import JSON, Finding, FindingKind, Fix, Hop
from ..ir.shape import format_shape_index
from ..labels import label

Renderer = Callable[[Finding, str, int], list[str]]

_JAX_PART = "; JAX: "
"""Where an offload fix's sentence ends and its JAX snippet begins (``findings.from_offload``)."""
_MAX_NOTES = 3
"""A summary shows a logged finding's first notes only; ``explain`` shows them all."""


def shape_index_of(value: JSON) -> tuple[int, ...]:
    """A shape index from a finding's fields (a JSON list of ints)."""
    return tuple(i for i in value if isinstance(i, int)) if isinstance(value, (list, tuple)) else ()


def index_text(value: JSON) -> str:
    """A shape index from a finding's fields in XLA's spelling, ``{1,0}``."""
    return format_shape_index(shape_index_of(value))


def hop_text(h: Hop, lang: str = "en") -> str:
    """``custom-call.5 (custom-call)  at model.py:23``; a non-empty ShapeIndex follows the name."""
    idx = format_shape_index(h.shape_index) if h.shape_index else ""
    where = label("finding.at", lang, source=h.source) if h.source is not None else ""
    return f"{h.instruction}{idx} ({h.opcode or ''}){where}"


def hop_detail(h: Hop) -> str:
    """``tuple.7{0} = (f32[16,256]{1,0}, ...) tuple [main.7]  model.py:23``: the hop with its shape,
    for ``offload``'s full report."""
    idx = format_shape_index(h.shape_index) if h.shape_index else ""
    comp = f" [{h.computation}]" if h.computation else ""
    where = f"  {h.source}" if h.source is not None else ""
    return f"{h.instruction}{idx} = {h.shape or ''} {h.opcode or ''}{comp}{where}"


def fix_sentence(fix: Fix) -> str:
    """The fix's prose without its JAX snippet (the summary points to ``offload`` for the code)."""
    return fix.text.split(_JAX_PART, 1)[0]


def _message_line(message: str) -> str:
    """XLA's E1200 text is three lines (code, sentence, URL): the sentence says it all."""
    lines = message.splitlines()
    return lines[1] if len(lines) > 1 else message


def _output_mismatch(f: Finding, lang: str, width: int) -> list[str]:
    index = index_text(f.fields.get("output_index"))
    first = label("finding.first", lang) if f.fields.get("first") else ""
    lines = [label("finding.e1200", lang, index=index, layout=f.fields.get("output_layout"), first=first),
             f"   {_message_line(f.message)}"]
    lines.extend(f"   -> {hop_text(h, lang)}" for h in f.path)
    lines.extend("   " + label("finding.fix_letter", lang, letter=letter, fix=fix_sentence(fix))
                 for letter, fix in zip("ab", f.fixes))
    return lines


def _pass_failure(f: Finding, lang: str, width: int) -> list[str]:
    return [label("finding.would_fail", lang, message=f.message)]


def _logged_error(f: Finding, lang: str, width: int) -> list[str]:
    count = f" (x{f.count})" if f.count > 1 else ""
    lines = [label("finding.line", lang, line=f.location.line, code=f.code, name=f.name, count=count)]
    analysis = f.fields.get("analysis")
    if isinstance(analysis, Mapping):
        expected, actual = analysis.get("expected_physical_bytes"), analysis.get("actual_physical_bytes")
        if isinstance(expected, int) and isinstance(actual, int):
            lines.append("   " + label("finding.sizes", lang, expected=f"{expected:,}", actual=f"{actual:,}"))
    notes = f.fields.get("notes")
    if isinstance(notes, (list, tuple)):
        lines.extend(f"   {note}" for note in notes[:_MAX_NOTES])
    if f.fields.get("start"):
        lines.append("   " + label("finding.walk_start", lang, start=f.fields["start"]))
    if f.fixes:
        lines.append("   " + label("finding.fix", lang, fix=f.fixes[0].text))
    return lines


def _headline_and_fixes(f: Finding, lang: str, width: int) -> list[str]:
    """Input mismatches and the compiler's verdict: code, title, XLA's first line, the fixes."""
    where = f"{f.location.instruction}: " if f.location.instruction else ""
    lines = [f"{f.code} {f.name}: {where}{f.title}"]
    if f.message:
        lines.append(f"   {f.message.splitlines()[0]}")
    lines.extend("   " + label("finding.fix", lang, fix=fix_sentence(fix)) for fix in f.fixes)
    return lines


RENDERERS: Mapping[FindingKind, Renderer] = {
    FindingKind.OFFLOAD_OUTPUT_MISMATCH: _output_mismatch,
    FindingKind.OFFLOAD_PASS_FAILURE: _pass_failure,
    FindingKind.INPUT_MISMATCH: _headline_and_fixes,
    FindingKind.LOGGED_ERROR: _logged_error,
    FindingKind.COMPILER_REJECTS: _headline_and_fixes,
}


def render_finding(f: Finding, lang: str = "en", width: int = 100) -> list[str]:
    """The lines of one finding, drawn by its kind's renderer."""
    return RENDERERS[f.kind](f, lang, width)
