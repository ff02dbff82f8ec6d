"""An E1200 finding's path as HTML: the two-lane drawing and the hop table, from the model's hops.

The HTML counterpart of :mod:`.finding_text` for ``FindingKind.OFFLOAD_OUTPUT_MISMATCH``:
both drawings read :class:`~xladoctor.findings.Hop` values (instruction and ShapeIndex as
XLA's trace names them, opcode, shape, computation, the Python ``SourceLocation``), so a
hop's Python line is always ``file:line (function)`` whichever document the hops came from
(the explain HTML once printed a raw dict there).

Where the hops come from is the caller's business: the ``diagnostics`` finding of an
``offload`` document, or, for an analysis that is not a finding (a compiled module, whose
``diagnostics`` is empty because XLA already ran the pass on it; the ``--hlo`` analysis
inside an ``explain`` document), the typed finding its record carries (findings/wire.py's
``Record``; a record read back from JSON is typed at that boundary, findings/records.py).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..base.labels import glossary, label
from ..findings.model import Finding, FindingKind, Fix, FixKind, Hop
from ..ir.frames import is_library
from .finding_text import fix_frontend, fix_jax, shape_index_of
from .html_base import code_block, diff_block, esc, is_rtl, lbl, ltr, prose, shape_index_text
from .html_flow import FlowNode

HostSet = set[tuple[str, tuple[Any, ...]]]
"""(instruction, shape index) of every position the analysis found in host memory."""

def host_set(positions: Iterable[Mapping[str, Any]]) -> HostSet:
    """The document's ``host_positions`` (or a trace standing for them) as lookup keys."""
    return {(p.get("instruction", ""), tuple(p.get("shape_index") or ())) for p in positions}


def finding_where(diagnostics: Mapping[str, Any] | None, kind: FindingKind, field: str,
                  wanted: Callable[[Any], bool]) -> Finding | None:
    """The first typed ``diagnostics`` finding of ``kind`` whose ``fields[field]`` is ``wanted``
    (the document's own report, findings/wire.py: nothing is read back from JSON here)."""
    from ..findings.serialise import thaw_json
    from ..findings.wire import findings_of

    for f in findings_of(diagnostics):
        if f is not None and f.kind is kind and wanted(thaw_json(f.fields.get(field))):
            return f
    return None


def matching_finding(err: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> Finding | None:
    """The ``diagnostics`` finding of an ``errors`` entry (the same output index), if it is one
    and reads back into the model."""
    index = list(err.get("output_index") or ())
    return finding_where(diagnostics, FindingKind.OFFLOAD_OUTPUT_MISMATCH, "output_index",
                         lambda got: list(got or ()) == index)


def hop_lane(i: int, hop: Hop, host: HostSet, origin: str) -> tuple[str, str]:
    """Memory lane and node kind of a hop.

    The origin move-to-host annotation still reads device memory (its output is
    what moves), so it sits in the device lane and the next arrow crosses over;
    an input-streaming parameter already lives on the host.
    """
    on_host = (hop.instruction, hop.shape_index) in host or "S(5)" in (hop.shape or "")
    if i == 0 and hop.instruction == origin and not on_host:
        return "device", "origin"
    return ("host" if on_host else "device"), "hop"


def _hop_node(i: int, hop: Hop, host: HostSet, origin: str, lang: str) -> FlowNode:
    lane, kind = hop_lane(i, hop, host, origin)
    index = shape_index_text(list(hop.shape_index))
    shown = index not in ("", "{}")
    title = f"{hop.instruction}{index if shown else ''}"
    detail = " \u00b7 ".join(x for x in (hop.opcode, f"index {index}" if shown else "") if x)
    if kind == "origin":
        moves = label("html.moves_to_host", lang)
        detail = f"{detail} \u00b7 {moves} \u2192" if detail else moves
    where = str(hop.source) if hop.source is not None else ""
    lines = [title, *([detail] if detail else []), *([hop.shape] if hop.shape else []),
             *(["\u2937 " + where] if where else [])]
    tip = "\n".join([title, detail, hop.shape or "", where,
                     f"{label('html.computation', lang)}: {hop.computation}" if hop.computation else ""])
    return FlowNode(tuple(lines), lane, kind, hop.instruction, tip.strip())


def path_nodes(path: Sequence[Hop], output_index: Any, output_layout: Any, host: HostSet, origin: str,
               lang: str) -> list[FlowNode]:
    """The drawing's boxes: each hop of the path, then the offending entry output."""
    nodes = [_hop_node(i, hop, host, origin, lang) for i, hop in enumerate(path)]
    out_index = shape_index_text(output_index)
    out_lines = [f"{label('html.output', lang)} {out_index}", str(output_layout or ""), label("html.not_host", lang)]
    nodes.append(FlowNode(tuple(out_lines), "device", "output", f"output {out_index}", "\n".join(out_lines)))
    return nodes


def finding_nodes(f: Finding, host: HostSet, lang: str) -> list[FlowNode]:
    """The drawing of an E1200 finding of the model."""
    return path_nodes(f.path, list(shape_index_of(f.fields.get("output_index"))), f.fields.get("output_layout"),
                      host, str(f.fields.get("origin_instruction") or ""), lang)


def path_table(path: Sequence[Hop], host: HostSet, origin: str, lang: str) -> str:
    """The hops as a folded table (instruction, opcode, shape, index, memory, Python line)."""
    rows = []
    for i, hop in enumerate(path):
        lane, _kind = hop_lane(i, hop, host, origin)
        rows.append(
            f'<tr class="in-{lane}"><td>{i + 1}</td><td>{ltr(hop.instruction)}</td>'
            f'<td>{ltr(hop.opcode)}</td><td>{ltr(hop.shape)}</td>'
            f'<td>{ltr(shape_index_text(list(hop.shape_index)))}</td>'
            f'<td><span class="mem mem-{lane}">{esc(lane)}</span></td>'
            f'<td>{ltr(hop.source) if hop.source is not None else ""}</td></tr>')
    head = "".join(f"<th>{lbl(lang, k)}</th>" for k in
                   ("html.instruction", "html.opcode", "html.shape", "html.shape_index", "html.memory", "html.source"))
    return (f'<details class="path-table"><summary>{lbl(lang, "html.path_table")}</summary>'
            f'<div class="scroll"><table class="grid"><thead><tr><th>#</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></details>')


def trace_nodes(path: Sequence[Hop], lang: str) -> list[FlowNode]:
    """Boxes for a logged E1200's path (the log's host_offloader trace: names and ShapeIndex,
    no opcode or shape), every hop in host memory, then the output that is not."""
    nodes = [FlowNode((hop.instruction, f"index {shape_index_text(list(hop.shape_index))}"), "host", "hop",
                      hop.instruction) for hop in path]
    if nodes:
        nodes.append(FlowNode((label("html.output", lang), label("html.not_host", lang)), "device", "output", "output"))
    return nodes


def logged_twin(f: Mapping[str, Any], twin: Finding | None) -> Finding | None:
    """A logged finding's typed ``diagnostics`` twin, when it is one (the same code)."""
    return twin if twin is not None and twin.code == f.get("code") else None


def logged_fixes(f: Mapping[str, Any], twin: Finding | None) -> tuple[Fix, ...]:
    """A logged finding's fixes: its twin's (the model), or, in a document without one, the
    entry's own sentences as the advice ``findings.from_log`` makes of them."""
    if twin is not None:
        return twin.fixes
    return tuple(Fix(FixKind.ADVICE, str(x)) for x in f.get("fixes") or ())


def logged_path(f: Mapping[str, Any], twin: Finding | None) -> tuple[Hop, ...]:
    """A logged finding's path: its twin's (the model), or, in a document without one, the
    log's trace read by the same adapter ``findings.from_log`` uses."""
    from ..findings.from_log import trace_hops

    if twin is not None:
        return twin.path
    return trace_hops((f.get("analysis") or {}).get("trace") or ())


# -- fixes: one card per FixKind, drawn from the model's ``Fix`` and the finding's fields ----------

FixCard = Callable[[Fix, Mapping[str, Any], str], str]
"""``(fix, the finding's fields, lang) -> HTML``."""

DEVICE_PUT_SNIPPET = 'x = jax.device_put(x, jax.sharding.SingleDeviceSharding(device, memory_kind="device"))'
"""What E1200 fix (b) looks like in JAX, on the value the path returns (named ``x`` here)."""
PLACE_TO_DEVICE_SNIPPET = "x = torch_xla.experimental.stablehlo_custom_call.place_to_device(x)"
"""The same in PyTorch/XLA (torch_xla 2.9's own call), for a graph provenance marks as torch_xla's."""


def _command(fix: Fix, lang: str) -> str:
    """The ``xladoctor`` command line that applies the fix, copyable, when there is one."""
    return code_block(shlex.join(fix.command), "sh", label=label("html.copy", lang)) if fix.command else ""


def _in_jax(fix: Fix, lang: str) -> str:
    jax = fix_jax(fix)
    if not jax:
        return ""
    # English: the snippet is code, one left-to-right run; Persian: a sentence around code runs
    shown = f'<span class="wrap">{prose(jax, lang)}</span>' if is_rtl(lang) else ltr(jax, "mono wrap")
    heading = prose(label("html.in_frontend", lang, frontend=fix_frontend(fix)), lang)
    return f'<p class="jax"><b>{heading}:</b> {shown}</p>'


def _in_jax_code(fix: Fix, lang: str) -> str:
    """The program's own JAX code for the fix when the page knows it (``xladoctor.jax``), else the
    sentence's JAX part."""
    if fix.code:
        return (f'<p class="jax"><b>{lbl(lang, "html.in_jax")}:</b></p>'
                f"{code_block(fix.code, 'py', label=label('html.copy', lang))}")
    return _in_jax(fix, lang)


def _host_output_card(fix: Fix, facts: Mapping[str, Any], lang: str) -> str:
    """E1200 remedy (a): the output's layout before and after (S(5)), as a diff."""
    name = f" ({ltr(facts['result_name'])})" if facts.get("result_name") else ""
    diff = (f"{glossary.output(shape_index_text(facts.get('output_index')), lang)}\n- {facts.get('output_layout') or ''}\n"
            f"+ {facts.get('host_layout') or ''}")
    return (f'<div class="fix fix-host"><h5>{prose(label("html.fix_host", lang, fix=glossary.fix_host(lang)), lang)}</h5>'
            f"<p>{lbl(lang, 'html.fix_host_how')}{name}</p>"
            f"{diff_block(diff, label=label('html.copy', lang))}"
            f'<div class="legend"><span><i class="del"></i>{lbl(lang, "html.removed")}</span>'
            f'<span><i class="ins"></i>{lbl(lang, "html.added")}</span></div>'
            f"{_in_jax_code(fix, lang)}{_command(fix, lang)}</div>")


def _move_to_device_card(fix: Fix, facts: Mapping[str, Any], lang: str) -> str:
    """E1200 remedy (b): a move-to-device after the returned instruction, at its Python line."""
    torch = fix_frontend(fix) == "PyTorch/XLA"
    where = facts.get("returned_location")
    if torch and isinstance(where, str) and is_library(where):  # torch_xla's own frame, not the user's
        where = None
    at = f" {lbl(lang, 'html.at')} {ltr(where, 'loc')}" if where else ""
    snippet = fix.code or (PLACE_TO_DEVICE_SNIPPET if torch else DEVICE_PUT_SNIPPET)
    return (f'<div class="fix fix-device"><h5>{prose(label("html.fix_device", lang, fix=glossary.fix_device(lang)), lang)}</h5>'
            f"<p>{lbl(lang, 'html.fix_device_how')} {ltr(facts.get('returned_value'))}{at}</p>"
            f"{code_block(snippet, 'py', label=label('html.copy', lang))}"
            f"{'' if fix.code else _in_jax(fix, lang)}{_command(fix, lang)}</div>")


def _listed_card(fix: Fix, facts: Mapping[str, Any], lang: str) -> str:
    """A remedy told in prose, with its code and command when it has them (E0102's relayouts,
    recompiles, configuration changes; catalogue advice)."""
    code = code_block(fix.code, "py", label=label("html.copy", lang)) if fix.code else ""
    return (f'<li class="fix-item"><span class="badge info">{esc(fix.kind.value)}</span> '
            f"{esc(fix.text)}{code}{_command(fix, lang)}</li>")


FIX_CARDS: Mapping[FixKind, FixCard] = {
    FixKind.HOST_OUTPUT: _host_output_card,
    FixKind.MOVE_TO_DEVICE: _move_to_device_card,
    FixKind.DEVICE_PUT: _listed_card,
    FixKind.RELAYOUT: _listed_card,
    FixKind.RECOMPILE: _listed_card,
    FixKind.CONFIG: _listed_card,
    FixKind.ADVICE: _listed_card,
}


def fix_cards(fixes: Sequence[Fix], facts: Mapping[str, Any], lang: str) -> str:
    """A finding's fixes: E1200's two remedies side by side, any other kind as a numbered list."""
    pair = "".join(FIX_CARDS[f.kind](f, facts, lang) for f in fixes
                   if f.kind in (FixKind.HOST_OUTPUT, FixKind.MOVE_TO_DEVICE))
    listed = "".join(FIX_CARDS[f.kind](f, facts, lang) for f in fixes
                     if f.kind not in (FixKind.HOST_OUTPUT, FixKind.MOVE_TO_DEVICE))
    out = f'<div class="fixes"><h4>{lbl(lang, "html.fixes")}</h4><div class="fix-pair">{pair}</div></div>' if pair else ""
    if listed:
        out += f'<h5>{lbl(lang, "html.fixes")}</h5><ol class="fixlist">{listed}</ol>'
    return out
