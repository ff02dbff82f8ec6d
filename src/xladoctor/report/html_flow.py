"""The E1200 path drawn as an inline SVG: two lanes, device memory and host memory.

Why two lanes: E1200 is about *where* a tensor lives.  Drawing each hop in the
lane of its memory space makes the error visible at a glance — the tensor
crosses into the host lane at the move-to-host annotation and never crosses
back, while the entry output it reaches sits in the device lane.  The final,
red, dashed arrow is the mismatch XLA refuses.

Text in SVG does not wrap, so box widths follow the longest label (monospace
metrics), long labels are shortened with an ellipsis and the full text is kept
in a ``<title>`` (tooltip) and in the table next to the drawing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .html_base import esc

CHAR_W = 7.25      # px per character of the 12px monospace font (DejaVu Sans Mono / Menlo ~0.6em)
MAX_CHARS = 58     # longer labels are shortened in the drawing (full text in the tooltip and table)
MIN_BOX_W = 190
LINE_H = 16
PAD = 10
GAP = 34           # vertical space between boxes (arrows)
LANE_GAP = 70      # horizontal space between the two lanes (crossing arrows)
TOP = 40           # room for the lane headers


@dataclass(frozen=True)
class FlowNode:
    """One box: ``lines[0]`` is the title (instruction name), the rest are details."""

    lines: tuple[str, ...]
    lane: str                 # "device" or "host"
    kind: str = "hop"         # "hop", "origin" (the move-to-host), "output" (the offending output)
    instruction: str = ""
    tooltip: str = ""


def _short(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "\u2026"


def _box_height(node: FlowNode) -> int:
    return PAD * 2 + LINE_H * len(node.lines)


@dataclass(frozen=True)
class _Geometry:
    """Where everything goes: one box width for all boxes, the x of each lane, the y of each box."""

    box_w: int
    lane_x: dict[str, int]
    ys: tuple[int, ...]
    width: int
    height: int

    @staticmethod
    def of(nodes: list[FlowNode]) -> _Geometry:
        chars = max(len(_short(line)) for n in nodes for line in n.lines)
        box_w = max(MIN_BOX_W, int(chars * CHAR_W) + 2 * PAD + 4)
        lane_x = {"device": 16, "host": 16 + box_w + LANE_GAP}
        ys: list[int] = []
        y = TOP
        for n in nodes:
            ys.append(y)
            y += _box_height(n) + GAP
        return _Geometry(box_w, lane_x, tuple(ys), lane_x["host"] + box_w + 16, y - GAP + 16)


def _header(g: _Geometry, uid: str, summary: str, lane_labels: tuple[tuple[str, str], ...]) -> list[str]:
    """The svg element, its accessible title, the two arrowhead markers and the two lanes."""
    parts: list[str] = [
        f'<svg class="flow" xmlns="http://www.w3.org/2000/svg" width="{g.width}" height="{g.height}" '
        f'viewBox="0 0 {g.width} {g.height}" role="img" aria-labelledby="t-{uid}" dir="ltr">',
        f'<title id="t-{uid}">{esc(summary)}</title>',
        "<defs>",
        f'<marker id="arr-{uid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker>',
        f'<marker id="arr-bad-{uid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead bad"/></marker>',
        "</defs>",
    ]
    for lane, text in lane_labels:
        x = g.lane_x[lane] - 8
        parts.append(f'<rect class="lane lane-{lane}" x="{x}" y="4" width="{g.box_w + 16}" '
                     f'height="{g.height - 8}" rx="10"/>')
        parts.append(f'<text class="lane-label lane-label-{lane}" x="{x + 10}" y="24">{esc(text)}</text>')
    return parts


def _edges(nodes: list[FlowNode], g: _Geometry, uid: str, final_label: str) -> list[str]:
    """One arrow per consecutive pair: straight within a lane, curved across; red into the output."""
    parts: list[str] = []
    for i in range(1, len(nodes)):
        a, b = nodes[i - 1], nodes[i]
        x1 = g.lane_x[a.lane] + g.box_w / 2
        y1 = g.ys[i - 1] + _box_height(a)
        x2 = g.lane_x[b.lane] + g.box_w / 2
        y2 = g.ys[i] - 2
        bad = b.kind == "output"
        cls = "edge bad" if bad else ("edge cross" if a.lane != b.lane else "edge")
        mk = f"arr-bad-{uid}" if bad else f"arr-{uid}"
        if a.lane == b.lane:
            d = f"M{x1:.0f},{y1} L{x2:.0f},{y2}"
        else:
            mid = (y1 + y2) / 2
            d = f"M{x1:.0f},{y1} C{x1:.0f},{mid:.0f} {x2:.0f},{mid:.0f} {x2:.0f},{y2}"
        parts.append(f'<path class="{cls}" d="{d}" marker-end="url(#{mk})"/>')
        if bad and final_label:
            lx = max(x1, x2) + 10 if a.lane == b.lane else (x1 + x2) / 2 + 8
            parts.append(f'<text class="edge-label bad" x="{lx:.0f}" y="{(y1 + y2) / 2 + 4:.0f}">'
                         f"{esc(final_label)}</text>")
    return parts


def _boxes(nodes: list[FlowNode], g: _Geometry) -> list[str]:
    """One group per node: tooltip, box, and its lines (title, details, source location)."""
    parts: list[str] = []
    for i, (n, y0) in enumerate(zip(nodes, g.ys)):
        x = g.lane_x[n.lane]
        parts.append(f'<g class="node {esc(n.kind)} in-{esc(n.lane)}" data-step="{i}" '
                     f'data-instruction="{esc(n.instruction)}" data-lane="{esc(n.lane)}">')
        parts.append(f"<title>{esc(n.tooltip or chr(10).join(n.lines))}</title>")
        parts.append(f'<rect class="box" x="{x}" y="{y0}" width="{g.box_w}" height="{_box_height(n)}" rx="8"/>')
        for j, line in enumerate(n.lines):
            cls = "t-title" if j == 0 else ("t-loc" if line.startswith("\u2937") else "t-detail")
            parts.append(f'<text class="{cls}" x="{x + PAD}" y="{y0 + PAD + LINE_H * (j + 1) - 4}">'
                         f"{esc(_short(line))}</text>")
        parts.append("</g>")
    return parts


def render_flow(nodes: list[FlowNode], uid: str, device_label: str, host_label: str,
                final_label: str = "") -> str:
    """SVG markup for the nodes in order; the last node of kind ``output`` gets the red arrow.

    Arrows are drawn before boxes, so boxes are drawn over their ends.
    """
    if not nodes:
        return ""
    g = _Geometry.of(nodes)
    summary = " \u2192 ".join(n.instruction or n.lines[0] for n in nodes)
    parts = _header(g, uid, summary, (("device", device_label), ("host", host_label)))
    parts += _edges(nodes, g, uid, final_label)
    parts += _boxes(nodes, g)
    parts.append("</svg>")
    return "".join(parts)
