"""HTML for an ``offload`` JSON document (docs/json.md ``## offload``): E1200 path, message, fixes.

The order follows what a person needs: which output fails and why (the drawn
path), XLA's exact words to match against their log, the two ways out side by
side, and then the slower-reading material (host compute, warnings, the
``vmodule`` trace) folded into ``<details>``.
"""

from __future__ import annotations

from typing import Any

from .html_base import badge, code_block, diff_block, esc, lbl, ltr, shape_index_text
from .html_flow import FlowNode, render_flow
from .html_labels import label

# What fix (b) looks like in JAX, on the value the path returns (named ``x`` here).
DEVICE_PUT_SNIPPET = 'x = jax.device_put(x, jax.sharding.SingleDeviceSharding(device, memory_kind="device"))'


def offload_verdict(doc: dict[str, Any]) -> tuple[str, str]:
    """``(label key, tone)`` for a badge: E1200, another failure, warnings, or clean."""
    if doc.get("errors"):
        return "verdict_e1200", "bad"
    if doc.get("failures"):
        return "verdict_fail", "bad"
    if doc.get("warnings") or doc.get("outputs_moved_to_host") or doc.get("host_compute"):
        return "verdict_warn", "warn"
    return "verdict_clean", "ok"


def _host_set(doc: dict[str, Any]) -> set[tuple[str, tuple[int, ...]]]:
    return {(p.get("instruction", ""), tuple(p.get("shape_index") or ())) for p in doc.get("host_positions", [])}


def _hop_lane(i: int, hop: dict[str, Any], host: set, origin: str) -> tuple[str, str]:
    """Memory lane and node kind of a hop.

    The origin move-to-host annotation still reads device memory (its output is
    what moves), so it sits in the device lane and the next arrow crosses over;
    an input-streaming parameter already lives on the host.
    """
    key = (hop.get("instruction", ""), tuple(hop.get("shape_index") or ()))
    on_host = key in host or "S(5)" in str(hop.get("shape", ""))
    if i == 0 and hop.get("instruction") == origin and not on_host:
        return "device", "origin"
    return ("host" if on_host else "device"), "hop"


def _where(location: Any) -> str:
    """A hop's Python line: ``file:line`` as offload's JSON writes it, or the object explain's
    ``analysis.offload`` holds (``{file, line, function, column}``); never a raw dict."""
    if isinstance(location, dict):
        if not location.get("file"):
            return ""
        where = f"{location['file']}:{location.get('line')}"
        return f"{where} ({location['function']})" if location.get("function") else where
    return str(location or "")


def flow_nodes(err: dict[str, Any], doc: dict[str, Any], lang: str) -> list[FlowNode]:
    """The drawing's boxes: each path hop, then the offending entry output."""
    host = _host_set(doc)
    origin = err.get("origin_instruction") or ""
    nodes: list[FlowNode] = []
    path = err.get("path") or err.get("trace") or []
    for i, hop in enumerate(path):
        lane, kind = _hop_lane(i, hop, host, origin)
        index = shape_index_text(hop.get("shape_index"))
        title = f"{hop.get('instruction', '?')}{index if index not in ('', '{}') else ''}"
        detail = " \u00b7 ".join(x for x in (hop.get("opcode"), f"index {index}" if index not in ("", "{}") else "")
                                 if x)
        if kind == "origin":
            detail = f"{detail} \u00b7 {label(lang, 'moves_to_host')} \u2192" if detail else label(lang, "moves_to_host")
        lines = [title]
        if detail:
            lines.append(detail)
        if hop.get("shape"):
            lines.append(str(hop["shape"]))
        where = _where(hop.get("location"))
        if where:
            lines.append("\u2937 " + where)
        tip = "\n".join([title, detail, str(hop.get("shape") or ""), where,
                         f"{label(lang, 'computation')}: {hop.get('computation')}" if hop.get("computation") else ""])
        nodes.append(FlowNode(tuple(lines), lane, kind, str(hop.get("instruction", "")), tip.strip()))
    out_index = shape_index_text(err.get("output_index"))
    out_lines = [f"{label(lang, 'output')} {out_index}", str(err.get("output_layout", "")),
                 label(lang, "not_host")]
    nodes.append(FlowNode(tuple(out_lines), "device", "output", f"output {out_index}", "\n".join(out_lines)))
    return nodes


def flow_legend(lang: str) -> str:
    return (f'<div class="legend"><span><i class="device"></i>{lbl(lang, "device_lane")}</span>'
            f'<span><i class="host"></i>{lbl(lang, "host_lane")}</span>'
            f'<span><i class="out"></i>{lbl(lang, "not_host")}</span>'
            f'<span><i class="origin"></i>{lbl(lang, "origin_box")}</span>'
            f'<span><i class="edge-cross"></i>{lbl(lang, "cross_edge")}</span>'
            f'<span><i class="edge-bad"></i>{lbl(lang, "bad_edge")}</span></div>')


def _path_table(err: dict[str, Any], doc: dict[str, Any], lang: str) -> str:
    host = _host_set(doc)
    origin = err.get("origin_instruction") or ""
    rows = []
    for i, hop in enumerate(err.get("path") or []):
        lane, _kind = _hop_lane(i, hop, host, origin)
        loc = hop.get("location")
        rows.append(
            f'<tr class="in-{lane}"><td>{i + 1}</td><td>{ltr(hop.get("instruction"))}</td>'
            f'<td>{ltr(hop.get("opcode"))}</td><td>{ltr(hop.get("shape"))}</td>'
            f'<td>{ltr(shape_index_text(hop.get("shape_index")))}</td>'
            f'<td><span class="mem mem-{lane}">{esc(lane)}</span></td>'
            f'<td>{ltr(loc) if loc else ""}</td></tr>')
    head = "".join(f"<th>{lbl(lang, k)}</th>" for k in
                   ("instruction", "opcode", "shape", "shape_index", "memory", "source"))
    return (f'<details class="path-table"><summary>{lbl(lang, "path_table")}</summary>'
            f'<div class="scroll"><table class="grid"><thead><tr><th>#</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></details>')


def _fixes(err: dict[str, Any], lang: str) -> str:
    fix = err.get("fix")
    if not fix:
        return ""
    host, dev = fix.get("host") or {}, fix.get("device") or {}
    index = shape_index_text(err.get("output_index"))
    name = f" ({ltr(host['result_name'])})" if host.get("result_name") else ""
    diff = (f"result {index}\n- {err.get('output_layout', '')}\n+ {host.get('entry_result_layout', '')}")
    host_card = (
        f'<div class="fix fix-host"><h5>{lbl(lang, "fix_host")}</h5>'
        f"<p>{lbl(lang, 'fix_host_how')}{name}</p>"
        f"{diff_block(diff, label=label(lang, 'copy'))}"
        f'<div class="legend"><span><i class="del"></i>{lbl(lang, "removed")}</span>'
        f'<span><i class="ins"></i>{lbl(lang, "added")}</span></div>'
        f'<p class="jax"><b>{lbl(lang, "in_jax")}:</b> {ltr(host.get("jax"), "mono wrap")}</p></div>')
    where = f" {lbl(lang, 'at')} {ltr(dev['location'], 'loc')}" if dev.get("location") else ""
    dev_card = (
        f'<div class="fix fix-device"><h5>{lbl(lang, "fix_device")}</h5>'
        f"<p>{lbl(lang, 'fix_device_how')} {ltr(dev.get('after_instruction'))}{where}</p>"
        f"{code_block(DEVICE_PUT_SNIPPET, 'py', label=label(lang, 'copy'))}"
        f'<p class="jax"><b>{lbl(lang, "in_jax")}:</b> {ltr(dev.get("jax"), "mono wrap")}</p></div>')
    return f'<div class="fixes"><h4>{lbl(lang, "fixes")}</h4><div class="fix-pair">{host_card}{dev_card}</div></div>'


def _error_article(err: dict[str, Any], doc: dict[str, Any], uid: str, lang: str) -> str:
    index = shape_index_text(err.get("output_index"))
    tag = badge(label(lang, "xla_stops"), "bad") if err.get("first") else badge(label(lang, "also"), "muted")
    nodes = flow_nodes(err, doc, lang)
    svg = render_flow(nodes, uid, label(lang, "device_lane"), label(lang, "host_lane"), "E1200")
    origin = err.get("origin")
    return (
        f'<article class="e1200" id="{esc(uid)}">'
        f'<h4>{badge("E1200", "code")} {lbl(lang, "output")} {ltr(index)} {ltr(err.get("output_layout"))} {tag}</h4>'
        f'<p class="origin">{lbl(lang, "path")}: {ltr(origin)} \u2192 {ltr(err.get("start"))} \u2192 '
        f'{lbl(lang, "output")} {ltr(index)}</p>'
        f'<div class="flow-wrap">{svg}</div>{flow_legend(lang)}'
        f"{_path_table(err, doc, lang)}"
        f'<h4>{lbl(lang, "xla_error")}</h4>{code_block(err.get("message", ""), "xla-message", label=label(lang, "copy"))}'
        f"{_fixes(err, lang)}</article>")


def _list_section(title: str, items: list[str], cls: str, open_: bool = True) -> str:
    if not items:
        return ""
    lis = "".join(f"<li>{x}</li>" for x in items)
    return (f'<details class="{cls}"{" open" if open_ else ""}><summary>{esc(title)} '
            f'<span class="count">{len(items)}</span></summary><ul>{lis}</ul></details>')


def offload_body(doc: dict[str, Any], uid: str, lang: str = "en") -> str:
    """The section body (no page shell) for one offload document."""
    key, tone = offload_verdict(doc)
    model = label(lang, "rule_unmerged") if doc.get("rule") == "unmerged-pr-36525" else label(lang, "rule_shipped")
    parts = [f'<div class="verdict-line">{badge(label(lang, key), tone)} '
             f'<span class="muted">{lbl(lang, "model")}: {esc(model)}</span></div>']
    if key == "verdict_clean":
        parts.append(f'<p class="clean">{lbl(lang, "no_offload_issue")}</p>')
    for n, err in enumerate(doc.get("errors") or []):
        parts.append(_error_article(err, doc, f"{uid}-e1200-{n + 1}", lang))
    fails = []
    for f in doc.get("failures") or []:
        what = label(lang, "check_failure") if f.get("status") == "CHECK" else f"{label(lang, 'verdict_fail')}: {f.get('status')}"
        at = f" ({lbl(lang, 'at')} {ltr(f['instruction'])})" if f.get("instruction") else ""
        first = " " + badge(label(lang, "xla_stops"), "bad") if f.get("first") else ""
        fails.append(f"<b>{esc(what)}</b>{first}: {ltr(f.get('message'), 'mono wrap')}{at}")
    parts.append(_list_section(label(lang, "failures"), fails, "failures"))
    moved = [f"{lbl(lang, 'output')} {ltr(shape_index_text(o.get('output_index')))}: "
             f"{ltr(o.get('old_layout'))} \u2192 {ltr(o.get('new_layout'), 'mono host')} "
             f"({ltr(o.get('start'))})" for o in doc.get("outputs_moved_to_host") or []]
    parts.append(_list_section(label(lang, "moved_outputs"), moved, "moved"))
    hc = [f"{ltr(h.get('instruction'))} <span class=\"muted\">{esc(h.get('opcode'))}</span>"
          + (f" \u2937 {ltr(h['location'], 'loc')}" if h.get("location") else "")
          for h in doc.get("host_compute") or []]
    parts.append(_list_section(label(lang, "host_compute"), hc, "host-compute"))
    parts.append(_list_section(label(lang, "warnings"), [ltr(w, "mono wrap") for w in doc.get("warnings") or []],
                               "warnings", open_=False))
    hp = [ltr(p.get("instruction", "") + (shape_index_text(p.get("shape_index")) if p.get("shape_index") else ""),
              "mono chip host") for p in doc.get("host_positions") or []]
    if hp:
        parts.append(f'<details class="host-positions"><summary>{lbl(lang, "host_positions")} '
                     f'<span class="count">{len(hp)}</span></summary><p class="chips">{" ".join(hp)}</p></details>')
    if doc.get("vlog"):
        parts.append(f'<details class="vmodule"><summary>{lbl(lang, "vmodule")}</summary>'
                     f'{code_block(chr(10).join(doc["vlog"]), "vlog", label=label(lang, "copy"))}</details>')
    return "".join(parts)
