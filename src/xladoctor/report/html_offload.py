"""HTML for an ``offload`` JSON document (docs/json.md ``## offload``): E1200 path, message, fixes.

The order follows what a person needs: which output fails and why (the drawn
path), XLA's exact words to match against their log, the two ways out side by
side, and then the slower-reading material (host compute, warnings, the
``vmodule`` trace) folded into ``<details>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..findings.model import Hop
from ..findings.serialise import thaw_json
from ..labels import label
from .finding_html import hops_from_json, host_set, matching_finding, path_nodes, path_table
from .html_base import badge, code_block, diff_block, esc, lbl, ltr, shape_index_text
from .html_flow import render_flow

# What fix (b) looks like in JAX, on the value the path returns (named ``x`` here).
DEVICE_PUT_SNIPPET = 'x = jax.device_put(x, jax.sharding.SingleDeviceSharding(device, memory_kind="device"))'


def offload_verdict(doc: dict[str, Any]) -> tuple[str, str]:
    """``(label key, tone)`` for a badge: E1200, another failure, warnings, or clean."""
    if doc.get("errors"):
        return "html.verdict_e1200", "bad"
    if doc.get("failures"):
        return "html.verdict_fail", "bad"
    if doc.get("warnings") or doc.get("outputs_moved_to_host") or doc.get("host_compute"):
        return "html.verdict_warn", "warn"
    return "html.verdict_clean", "ok"


def _error_facts(err: dict[str, Any], doc: dict[str, Any]) -> tuple[Mapping[str, Any], str, tuple[Hop, ...], tuple[Hop, ...]]:
    """What one ``errors`` entry's article draws: (facts for the headline, XLA's message, hops to
    draw, hops to tabulate), from its finding in the ``diagnostics`` (the model); where the
    analysis is not a finding (a compiled module: ``diagnostics`` is empty by design), from the
    analysis' own entry. The drawing falls back to XLA's trace when the path is empty."""
    f = matching_finding(err, doc.get("diagnostics"))
    if f is None:
        path = hops_from_json(err.get("path") or [])
        facts: Mapping[str, Any] = err
        message = str(err.get("message", ""))
    else:
        path, facts, message = f.path, thaw_json(f.fields), f.message
    return facts, message, path or hops_from_json(err.get("trace") or []), path


def flow_legend(lang: str) -> str:
    return (f'<div class="legend"><span><i class="device"></i>{lbl(lang, "html.device_lane")}</span>'
            f'<span><i class="host"></i>{lbl(lang, "html.host_lane")}</span>'
            f'<span><i class="out"></i>{lbl(lang, "html.not_host")}</span>'
            f'<span><i class="origin"></i>{lbl(lang, "html.origin_box")}</span>'
            f'<span><i class="edge-cross"></i>{lbl(lang, "html.cross_edge")}</span>'
            f'<span><i class="edge-bad"></i>{lbl(lang, "html.bad_edge")}</span></div>')


def _fixes(err: dict[str, Any], lang: str) -> str:
    fix = err.get("fix")
    if not fix:
        return ""
    host, dev = fix.get("host") or {}, fix.get("device") or {}
    index = shape_index_text(err.get("output_index"))
    name = f" ({ltr(host['result_name'])})" if host.get("result_name") else ""
    diff = (f"result {index}\n- {err.get('output_layout', '')}\n+ {host.get('entry_result_layout', '')}")
    host_card = (
        f'<div class="fix fix-host"><h5>{lbl(lang, "html.fix_host")}</h5>'
        f"<p>{lbl(lang, 'html.fix_host_how')}{name}</p>"
        f"{diff_block(diff, label=label('html.copy', lang))}"
        f'<div class="legend"><span><i class="del"></i>{lbl(lang, "html.removed")}</span>'
        f'<span><i class="ins"></i>{lbl(lang, "html.added")}</span></div>'
        f'<p class="jax"><b>{lbl(lang, "html.in_jax")}:</b> {ltr(host.get("jax"), "mono wrap")}</p></div>')
    where = f" {lbl(lang, 'html.at')} {ltr(dev['location'], 'loc')}" if dev.get("location") else ""
    dev_card = (
        f'<div class="fix fix-device"><h5>{lbl(lang, "html.fix_device")}</h5>'
        f"<p>{lbl(lang, 'html.fix_device_how')} {ltr(dev.get('after_instruction'))}{where}</p>"
        f"{code_block(DEVICE_PUT_SNIPPET, 'py', label=label('html.copy', lang))}"
        f'<p class="jax"><b>{lbl(lang, "html.in_jax")}:</b> {ltr(dev.get("jax"), "mono wrap")}</p></div>')
    return f'<div class="fixes"><h4>{lbl(lang, "html.fixes")}</h4><div class="fix-pair">{host_card}{dev_card}</div></div>'


def _error_article(err: dict[str, Any], doc: dict[str, Any], uid: str, lang: str) -> str:
    facts, message, drawn, table = _error_facts(err, doc)
    index = shape_index_text(facts.get("output_index"))
    tag = badge(label("html.xla_stops", lang), "bad") if facts.get("first") else badge(label("html.also", lang), "muted")
    host, origin_instruction = host_set(doc.get("host_positions", [])), facts.get("origin_instruction") or ""
    nodes = path_nodes(drawn, facts.get("output_index"), facts.get("output_layout"), host, origin_instruction, lang)
    svg = render_flow(nodes, uid, label("html.device_lane", lang), label("html.host_lane", lang), "E1200")
    return (
        f'<article class="e1200" id="{esc(uid)}">'
        f'<h4>{badge("E1200", "code")} {lbl(lang, "html.output")} {ltr(index)} {ltr(facts.get("output_layout"))} {tag}</h4>'
        f'<p class="origin">{lbl(lang, "html.path")}: {ltr(facts.get("origin"))} \u2192 {ltr(facts.get("start"))} \u2192 '
        f'{lbl(lang, "html.output")} {ltr(index)}</p>'
        f'<div class="flow-wrap">{svg}</div>{flow_legend(lang)}'
        f"{path_table(table, host, origin_instruction, lang)}"
        f'<h4>{lbl(lang, "html.xla_error")}</h4>{code_block(message, "xla-message", label=label("html.copy", lang))}'
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
    model = label("html.rule_unmerged", lang) if doc.get("rule") == "unmerged-pr-36525" else label("html.rule_shipped", lang)
    parts = [f'<div class="verdict-line">{badge(label(key, lang), tone)} '
             f'<span class="muted">{lbl(lang, "html.model")}: {esc(model)}</span></div>']
    if key == "html.verdict_clean":
        parts.append(f'<p class="clean">{lbl(lang, "html.no_offload_issue")}</p>')
    for n, err in enumerate(doc.get("errors") or []):
        parts.append(_error_article(err, doc, f"{uid}-e1200-{n + 1}", lang))
    fails = []
    for f in doc.get("failures") or []:
        what = label("html.check_failure", lang) if f.get("status") == "CHECK" else f"{label('html.verdict_fail', lang)}: {f.get('status')}"
        at = f" ({lbl(lang, 'html.at')} {ltr(f['instruction'])})" if f.get("instruction") else ""
        first = " " + badge(label("html.xla_stops", lang), "bad") if f.get("first") else ""
        fails.append(f"<b>{esc(what)}</b>{first}: {ltr(f.get('message'), 'mono wrap')}{at}")
    parts.append(_list_section(label("html.failures", lang), fails, "failures"))
    moved = [f"{lbl(lang, 'html.output')} {ltr(shape_index_text(o.get('output_index')))}: "
             f"{ltr(o.get('old_layout'))} \u2192 {ltr(o.get('new_layout'), 'mono host')} "
             f"({ltr(o.get('start'))})" for o in doc.get("outputs_moved_to_host") or []]
    parts.append(_list_section(label("html.moved_outputs", lang), moved, "moved"))
    hc = [f"{ltr(h.get('instruction'))} <span class=\"muted\">{esc(h.get('opcode'))}</span>"
          + (f" \u2937 {ltr(h['location'], 'loc')}" if h.get("location") else "")
          for h in doc.get("host_compute") or []]
    parts.append(_list_section(label("html.host_compute", lang), hc, "host-compute"))
    parts.append(_list_section(label("html.warnings", lang), [ltr(w, "mono wrap") for w in doc.get("warnings") or []],
                               "warnings", open_=False))
    hp = [ltr(p.get("instruction", "") + (shape_index_text(p.get("shape_index")) if p.get("shape_index") else ""),
              "mono chip host") for p in doc.get("host_positions") or []]
    if hp:
        parts.append(f'<details class="host-positions"><summary>{lbl(lang, "html.host_positions")} '
                     f'<span class="count">{len(hp)}</span></summary><p class="chips">{" ".join(hp)}</p></details>')
    if doc.get("vlog"):
        parts.append(f'<details class="vmodule"><summary>{lbl(lang, "html.vmodule")}</summary>'
                     f'{code_block(chr(10).join(doc["vlog"]), "vlog", label=label("html.copy", lang))}</details>')
    return "".join(parts)
