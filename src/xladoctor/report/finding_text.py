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

import re
from collections.abc import Callable, Mapping

from ..base.escape import escape_field
from ..base.labels import glossary, in_lang, label
from ..findings.model import JSON, Finding, FindingKind, Fix, FixKind, Hop
from ..findings.source_line import SourceLine, distinct_lines
from ..ir.frames import is_library
from ..ir.shape import format_shape_index
from .snippet import input_text, snippet, source_text, span

Renderer = Callable[[Finding, str, int], list[str]]

_JAX_PART = re.compile("[;\u061b] (?:JAX|PyTorch/XLA): ")
"""Where a fix's sentence gives way to its advice in the frontend's terms (offload/fixes.FRONTEND_NAMES)."""
_FRONTEND = re.compile("[;\u061b] (JAX|PyTorch/XLA): ")
"""Where an offload fix's sentence ends and its JAX snippet begins (``findings.from_offload``; the
labels ``finding.fix_*_text``: ``; JAX: `` in English, the Arabic semicolon in Persian)."""
_CALLERS_SHOWN = 2
"""``xladoctor.jax``: the offload's first callers (a helper's, up to the jitted function)."""
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
    return _JAX_PART.split(fix.text, 1)[0]


def fix_jax(fix: Fix) -> str | None:
    """What an offload fix's sentence says in its frontend's terms (after ``; JAX: `` or
    ``; PyTorch/XLA: ``), if it says it."""
    parts = _JAX_PART.split(fix.text, 1)
    return parts[1] if len(parts) > 1 else None


def fix_frontend(fix: Fix) -> str:
    """Whose terms :func:`fix_jax` is in: ``JAX`` or ``PyTorch/XLA``."""
    m = _FRONTEND.search(fix.text)
    return m.group(1) if m else "JAX"


def _message_line(message: str) -> str:
    """XLA's E1200 text is three lines (code, sentence, URL): the sentence says it all."""
    lines = message.splitlines()
    return lines[1] if len(lines) > 1 else message


def _output_mismatch(f: Finding, lang: str, width: int) -> list[str]:
    """E1200: headline, XLA's message, the path, the fixes.  A finding from ``xladoctor.jax``
    carries the program's own facts (``fields["jax"]``: the output's pytree path, the Python lines
    of the offload, its callers and the return) and its fixes as JAX code; those are drawn in
    the user's terms instead of the HLO's."""
    jax = _jax_facts(f)
    if jax is None:
        index = index_text(f.fields.get("output_index"))
        first = label("finding.first", lang, words=glossary.xla_reports(lang)) if f.fields.get("first") else ""
        lines = [label("finding.e1200", lang, output=glossary.output(index, lang, f.fields.get("result_name")),
                       layout=f.fields.get("output_layout"), first=first),
                 f"   {_message_line(f.message)}"]
        lines.extend(f"   -> {hop_text(h, lang)}" for h in f.path)
        lines.extend(snippet_lines(f, lang))
    else:
        index = index_text(f.fields.get("output_index"))
        lines = [label("jax_report.e1200", lang, target=jax.get("target"),
                       output=glossary.output(index, lang, jax.get("output"))), *_jax_origin(jax, lang), "  " + label("jax_report.xla_will_say", lang)]
        lines.extend("    " + m for m in f.message.splitlines())
    lines.extend(_fix_lines(f.fixes, lang))
    return lines


def snippet_lines(f: Finding, lang: str, path: str | None = None, indent: str = "   ") -> list[str]:
    """The offload's Python line (the HLO line when the source cannot be read here) and the HLO
    line of the output that returns it, each with a caret, as rustc shows a span; ``path``: the
    checked file when the finding does not name it."""
    out: list[str] = []
    path = f.location.path or path
    first = next((h for h in f.path if h.source is not None), f.path[0] if f.path else None)
    src = f.source
    text = source_text(src.file, src.line) if src is not None else None
    note = label("finding.snippet_offload", lang)
    # a frame in an installed package (torch_xla's own custom-call helper: PyTorch/XLA records one
    # frame per op) is never the primary span (ir/frames.py): the HLO line is shown instead
    if src is not None and text is not None and not is_library(src.file):
        out += snippet(src.file, src.line, text, span(text, src.column), note, indent)
    elif first is not None:
        out += _hlo_snippet(path, first.line, first.instruction, note, indent)
    if len(f.path) >= 2:
        note = label("finding.snippet_output", lang,
                     output=glossary.output(index_text(f.fields.get("output_index")), lang,
                                            f.fields.get("result_name")))
        out += _hlo_snippet(path, f.location.line, f.path[-2].instruction, note, indent)
    return out


def _hlo_snippet(path: str | None, line: int | None, instruction: str, note: str, indent: str) -> list[str]:
    text = input_text(path, line)
    if path is None or line is None or text is None:
        return []
    return snippet(path, line, text, span(text, None, instruction), note, indent)


def _jax_facts(f: Finding) -> Mapping[str, JSON] | None:
    facts = f.fields.get("jax")
    return facts if isinstance(facts, Mapping) else None


def _line(value: JSON) -> str | None:
    """A Python line of ``fields["jax"]`` (:class:`SourceLine`'s JSON) as ``file:line in function: text``."""
    line = SourceLine.from_json(value)
    return None if line is None else str(line)


def _lines(value: JSON) -> list[str]:
    return [str(s) for s in map(SourceLine.from_json, value if isinstance(value, tuple) else ()) if s is not None]


def _path_lines(steps: JSON) -> list[str]:
    """The distinct Python lines of the path's steps (each ``{instruction, opcode, shape, source}``)."""
    sources = (SourceLine.from_json(s.get("source")) for s in (steps if isinstance(steps, tuple) else ())
               if isinstance(s, Mapping))
    return [str(s) for s in distinct_lines(sources)]


def _jax_origin(jax: Mapping[str, JSON], lang: str) -> list[str]:
    """Where the host tensor came from in the program (a host argument, or the offload and its
    first callers), the Python lines of its path, and where the output's value is returned."""
    lines = []
    if jax.get("host_argument") is not None:
        lines.append("  " + label("jax_report.host_argument", lang, argument=jax["host_argument"]))
    offloaded_at = _line(jax.get("offloaded_at"))
    if offloaded_at is not None:
        lines.append("  " + label("jax_report.moved_to_host_at", lang, where=offloaded_at))
        lines.extend("    " + label("jax_report.called_from", lang, where=c)
                     for c in _lines(jax.get("offloaded_from"))[:_CALLERS_SHOWN])
        # the helpers that only wrap the placement come after the user's line (ir/frames.py's primary frame)
        lines.extend("    " + label("jax_report.through_helper", lang, where=c)
                     for c in _lines(jax.get("offloaded_via"))[:_CALLERS_SHOWN])
    path = _path_lines(jax.get("path"))
    if path:
        lines.append("  " + label("jax_report.path", lang))
        lines.extend(f"    {s}" for s in path)
    returned_at = _line(jax.get("returned_at"))
    if returned_at is not None:
        lines.append("  " + label("jax_report.returned_from", lang, where=returned_at))
    return lines


_CODE_HEADINGS = {FixKind.HOST_OUTPUT: ("jax_report.fix_host", glossary.fix_host),
                  FixKind.MOVE_TO_DEVICE: ("jax_report.fix_device", glossary.fix_device)}
"""A fix that carries code (``xladoctor.jax``'s) is drawn as its heading and the code."""


def _fix_lines(fixes: tuple[Fix, ...], lang: str) -> list[str]:
    """Fix (a) and (b): their sentences, or, for fixes with code, a heading and the code."""
    lines = []
    for letter, fix in zip("ab", fixes):
        if fix.code and fix.kind in _CODE_HEADINGS:
            key, name = _CODE_HEADINGS[fix.kind]
            lines.append("  " + label(key, lang, fix=name(lang)))
            lines.extend("    " + c for c in fix.code.splitlines())
        else:
            lines.append("   " + label("finding.fix_letter", lang, letter=letter, fix=fix_sentence(fix)))
    return lines


def _pass_failure(f: Finding, lang: str, width: int) -> list[str]:
    key = "finding.call_refused" if f.fields.get("status") == "ValueError" else "finding.would_fail"
    return [label(key, lang, message=in_lang(f.message, lang))]


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


def _input_mismatch(f: Finding, lang: str, width: int) -> list[str]:
    """E0102: code, title, XLA's first line, the fixes.  A finding from ``xladoctor.jax`` carries
    the argument leaf's facts (``fields["jax"]``: its pytree path, whether the call fails, the
    shapes and bytes on both sides, the explanation) and is drawn in those terms, its fix as
    the leaf's own ``device_put`` line when moving the data fixes it."""
    jax = _jax_facts(f)
    if jax is None:
        return _headline_and_fixes(f, lang, width)
    verdict = ("jax_report.call_fails_array" if jax.get("mismatch") == "shape" else
               "jax_report.call_fails_committed" if jax.get("will_fail") else "jax_report.call_works_uncommitted")
    lines = [label("jax_report.leaf_mismatch", lang, path=jax.get("path"), kind=jax.get("mismatch"),
                   verdict=label(verdict, lang)),
             "  " + label("jax_report.leaf_expects", lang, shape=jax.get("expects"), bytes=_bytes(jax.get("expects_bytes"))),
             "  " + label("jax_report.leaf_has", lang, shape=jax.get("has"), bytes=_bytes(jax.get("has_bytes")))]
    tpu = jax.get("tpu")
    if isinstance(tpu, Mapping):
        lines.append("  " + label("jax_report.leaf_tpu_tiling", lang, expected=tpu.get("expects"),
                                  expected_bytes=_bytes(tpu.get("expects_bytes")), supplied=tpu.get("has"),
                                  supplied_bytes=_bytes(tpu.get("has_bytes"))))
    explanation = jax.get("explanation")
    lines.extend("  " + str(e) for e in (explanation if isinstance(explanation, (list, tuple)) else ()))
    leaf_fix = next((x for x in f.fixes if x.kind is FixKind.DEVICE_PUT and x.code), None)
    if jax.get("relayout_fixes") and leaf_fix is not None and leaf_fix.code:
        lines.append("  " + label("jax_report.leaf_fix", lang, fix="   ".join(leaf_fix.code.splitlines())))
    else:  # fix_inputs refuses these too: moving data cannot change its shape or dtype
        lines.extend("  " + label("jax_report.leaf_fix", lang, fix=x.text) for x in f.fixes)
    return lines


def _bytes(value: JSON) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def layout_warning(f: Finding, lang: str = "en", width: int = 100) -> list[str]:
    """``FILE:LINE:COL: warning: E0002 InvalidArgument [layout RULE] in 'INSTR': XLA's words``, then what XLA
    does with it; the message quotes the input's shape text, so it is escaped for the terminal."""
    where = label("finding.layout_where", lang, instruction=escape_field(f.location.instruction)) \
        if f.location.instruction else ""
    head = label("finding.layout_line", lang, source=escape_field(f.location.path or "-"), line=f.location.line,
                 column=f.location.column, code=f.code, name=f.name, rule=f.fields.get("rule"), where=where,
                 message=escape_field(f.message))
    return [head, "   " + str(f.fields.get("xla", ""))]


RENDERERS: Mapping[FindingKind, Renderer] = {
    FindingKind.OFFLOAD_OUTPUT_MISMATCH: _output_mismatch,
    FindingKind.OFFLOAD_PASS_FAILURE: _pass_failure,
    FindingKind.INPUT_MISMATCH: _input_mismatch,
    FindingKind.LOGGED_ERROR: _logged_error,
    FindingKind.COMPILER_REJECTS: _headline_and_fixes,
    FindingKind.LAYOUT_WARNING: layout_warning,
}


def render_finding(f: Finding, lang: str = "en", width: int = 100) -> list[str]:
    """The lines of one finding, drawn by its kind's renderer."""
    return RENDERERS[f.kind](f, lang, width)
