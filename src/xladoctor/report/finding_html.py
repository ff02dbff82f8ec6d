"""An E1200 finding's path as HTML: the two-lane drawing and the hop table, from the model's hops.

The HTML counterpart of :mod:`.finding_text` for ``FindingKind.OFFLOAD_OUTPUT_MISMATCH``:
both drawings read :class:`~xladoctor.findings.Hop` values (instruction and ShapeIndex as
XLA's trace names them, opcode, shape, computation, the Python ``SourceLocation``), so a
hop's Python line is always ``file:line (function)`` whichever document the hops came from
(the explain HTML once printed a raw dict there).

Where the hops come from is the caller's business: the ``diagnostics`` finding of an
``offload`` document, or, for an analysis that is not a finding (a compiled module, whose
``diagnostics`` is empty because XLA already ran the pass on it; the ``--hlo`` analysis
inside an ``explain`` document), the analysis' own path read through :func:`hops_from_json`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..findings.model import Finding, FindingKind, Hop, SourceLocation
from ..labels import label
from .finding_text import shape_index_of
from .html_base import esc, lbl, ltr, shape_index_text
from .html_flow import FlowNode

HostSet = set[tuple[str, tuple[Any, ...]]]
"""(instruction, shape index) of every position the analysis found in host memory."""

_LOCATION = re.compile(r"^(?P<file>.*):(?P<line>\d+)(?: \((?P<function>.*)\))?$")


def host_set(positions: Iterable[Mapping[str, Any]]) -> HostSet:
    """The document's ``host_positions`` (or a trace standing for them) as lookup keys."""
    return {(p.get("instruction", ""), tuple(p.get("shape_index") or ())) for p in positions}


def _source(value: Any) -> SourceLocation | None:
    """A hop's Python line as an ``offload`` document writes it (``file:line (function)``) or
    as the ``diagnostics``/``explain`` analysis does (``{file, line, function, column}``)."""
    if isinstance(value, Mapping):
        if not value.get("file"):
            return None
        return SourceLocation(str(value["file"]), int(value.get("line") or 0), value.get("function"),
                              value.get("column"))
    match = _LOCATION.match(str(value or ""))
    if match is None:
        return None
    return SourceLocation(match["file"], int(match["line"]), match["function"])


def hops_from_json(path: Iterable[Mapping[str, Any]]) -> tuple[Hop, ...]:
    """An analysis' path (``errors[i].path`` of an offload document) as the model's hops."""
    return tuple(Hop(str(h.get("instruction", "?")), shape_index_of(h.get("shape_index")), h.get("opcode") or None,
                     h.get("shape") or None, h.get("computation") or None, h.get("line"),
                     _source(h.get("source") or h.get("location")))
                 for h in path)


def matching_finding(err: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> Finding | None:
    """The ``diagnostics`` finding of an ``errors`` entry (the same output index), if it is one
    and reads back into the model."""
    from ..findings.serialise import finding_from_json

    index = list(err.get("output_index") or ())
    for d in (diagnostics or {}).get("findings") or ():
        if d.get("kind") == FindingKind.OFFLOAD_OUTPUT_MISMATCH.value and \
                list((d.get("fields") or {}).get("output_index") or ()) == index:
            try:
                return finding_from_json(d)
            except (KeyError, TypeError, ValueError):  # a hand-edited document: draw the analysis' own path
                return None
    return None


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


def logged_path(f: Mapping[str, Any], diagnostic: Mapping[str, Any] | None) -> tuple[Hop, ...]:
    """A logged finding's path: its ``diagnostics`` twin's (the model), or, in a document
    without one, the log's trace read by the same adapter ``findings.from_log`` uses."""
    from ..findings.from_log import trace_hops
    from ..findings.serialise import finding_from_json

    if diagnostic is not None and diagnostic.get("code") == f.get("code"):
        try:
            return finding_from_json(diagnostic).path
        except (KeyError, TypeError, ValueError):  # a hand-edited document: fall back to the trace
            pass
    return trace_hops((f.get("analysis") or {}).get("trace") or ())
