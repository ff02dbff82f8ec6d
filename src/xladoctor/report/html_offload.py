"""HTML for an ``offload`` JSON document (docs/json.md ``## offload``): E1200 path, message, fixes.

The order follows what a person needs: which output fails and why (the drawn
path), XLA's exact words to match against their log, the two ways out side by
side, and then the slower-reading material (host compute, warnings, the
``vmodule`` trace) folded into ``<details>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..base.labels import glossary, in_lang, label
from ..findings.details_wire import OffloadFacts, offload_facts
from ..findings.model import Finding, FindingKind, Fix, Hop
from ..findings.serialise import thaw_json
from .finding_html import (
    HostSet,
    fix_cards,
    matching_finding,
    path_nodes,
    path_table,
)
from .html_base import badge, code_block, esc, lbl, ltr, prose, shape_index_text
from .html_flow import render_flow


def offload_verdict(doc: dict[str, Any]) -> tuple[str, str]:
    """``(label key, tone)`` for a badge: E1200, another failure, warnings, or clean."""
    return _verdict(offload_facts(doc), doc)


def _verdict(facts: OffloadFacts, doc: dict[str, Any]) -> tuple[str, str]:
    if facts.errors:
        return "html.verdict_e1200", "bad"
    if facts.failures:
        return "html.verdict_fail", "bad"
    if facts.warnings or facts.moved or facts.host_compute or _layout_warnings(doc.get("diagnostics")):
        return "html.verdict_warn", "warn"
    return "html.verdict_clean", "ok"


def _layout_warnings(diagnostics: Any) -> list[Finding]:
    """The parser's E0002 layout warnings among a document's findings."""
    from ..findings.wire import findings_of

    return [f for f in findings_of(diagnostics) if f is not None and f.kind is FindingKind.LAYOUT_WARNING]


def _layout_card(f: Finding, lang: str) -> str:
    """One layout warning as ``offload``'s text says it: where, the rule, XLA's words, what XLA does."""
    where = f"{f.location.path or '-'}:{f.location.line}:{f.location.column}"
    instruction = f" {lbl(lang, 'html.at')} {ltr(f.location.instruction)}" if f.location.instruction else ""
    return (f'<article class="layout-warning"><h4>{badge(f.code, "code")} {badge(f.name, "warn")} '
            f'{esc(f.title)}</h4><p class="origin">{ltr(where)}{instruction}</p>'
            f'{code_block(f.message, "xla-message", label=label("html.copy", lang))}'
            f'<p>{esc(str(f.fields.get("xla", "")))}</p></article>')


class _ErrorFacts(NamedTuple):
    """What one ``errors`` entry's article draws."""

    facts: Mapping[str, Any]
    """The headline's and the fix cards' facts (the finding's fields)."""
    message: str
    drawn: tuple[Hop, ...]
    table: tuple[Hop, ...]
    fixes: tuple[Fix, ...]


def _findings_by_output(diagnostics: Any) -> dict[tuple[Any, ...], Finding]:
    """Each output index -> the first E1200 finding of it (:func:`matching_finding` for every
    ``errors`` entry at once: one scan, not one per entry, for a pytree of thousands of outputs)."""
    from ..findings.wire import findings_of

    out: dict[tuple[Any, ...], Finding] = {}
    for f in findings_of(diagnostics):
        if f is not None and f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH:
            out.setdefault(tuple(thaw_json(f.fields.get("output_index")) or ()), f)
    return out


def _error_facts(err: dict[str, Any], doc: dict[str, Any],
                 by_output: dict[tuple[Any, ...], Finding] | None = None) -> _ErrorFacts:
    """One ``errors`` entry's facts, message, hops (to draw and to tabulate) and fixes, from its
    finding in the ``diagnostics`` (the model); where the analysis is not a finding (a compiled
    module: ``diagnostics`` is empty by design), from the typed finding its record carries
    (findings/wire.py's ``Record``: made by the analysis, or by ``load_document`` for a document
    read back).  The drawing falls back to XLA's trace when the path is empty."""
    from ..findings.wire import Record

    f = (matching_finding(err, doc.get("diagnostics")) if by_output is None
         else by_output.get(tuple(err.get("output_index") or ())))
    trace = err.trace if isinstance(err, Record) else ()
    if f is None and isinstance(err, Record):
        f = err.finding
    if f is None:  # a hand-made record that is not an analysis' (no output index or trace): its text only
        return _ErrorFacts(err, str(err.get("message", "")), (), (), ())
    return _ErrorFacts(thaw_json(f.fields), f.message, f.path or trace, f.path, f.fixes)


def flow_legend(lang: str) -> str:
    return (f'<div class="legend"><span><i class="device"></i>{lbl(lang, "html.device_lane")}</span>'
            f'<span><i class="host"></i>{lbl(lang, "html.host_lane")}</span>'
            f'<span><i class="out"></i>{lbl(lang, "html.not_host")}</span>'
            f'<span><i class="origin"></i>{lbl(lang, "html.origin_box")}</span>'
            f'<span><i class="edge-cross"></i>{lbl(lang, "html.cross_edge")}</span>'
            f'<span><i class="edge-bad"></i>{lbl(lang, "html.bad_edge")}</span></div>')


def _error_article(err: dict[str, Any], doc: dict[str, Any], uid: str, lang: str, host: HostSet | None = None,
                   by_output: dict[tuple[Any, ...], Finding] | None = None) -> str:
    facts, message, drawn, table, fixes = _error_facts(err, doc, by_output)
    index = shape_index_text(facts.get("output_index"))
    tag = badge(glossary.xla_reports(lang), "bad") if facts.get("first") else badge(glossary.also_offending(lang), "muted")
    if host is None:
        host = offload_facts(doc).host_keys
    origin_instruction = facts.get("origin_instruction") or ""
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
        f"{fix_cards(fixes, facts, lang)}</article>")


def _list_section(title: str, items: list[str], cls: str, open_: bool = True) -> str:
    if not items:
        return ""
    lis = "".join(f"<li>{x}</li>" for x in items)
    return (f'<details class="{cls}"{" open" if open_ else ""}><summary>{esc(title)} '
            f'<span class="count">{len(items)}</span></summary><ul>{lis}</ul></details>')


def offload_body(doc: dict[str, Any], uid: str, lang: str = "en") -> str:
    """The section body (no page shell) for one offload document."""
    from ..findings.wire import load_document

    doc = load_document(doc)  # typed in-process already; a document read from JSON is typed here
    facts = offload_facts(doc)
    key, tone = _verdict(facts, doc)
    model = label("html.rule_unmerged", lang) if facts.rule == "unmerged-pr-36525" else label("html.rule_shipped", lang)
    parts = [f'<div class="verdict-line">{badge(label(key, lang), tone)} '
             f'<span class="muted">{lbl(lang, "html.model")}: {prose(model, lang)}</span></div>']
    if key == "html.verdict_clean":
        parts.append(f'<p class="clean">{lbl(lang, "html.no_offload_issue")}</p>')
    parts.extend(_layout_card(f, lang) for f in _layout_warnings(doc.get("diagnostics")))  # first, as in the text
    errors = facts.errors
    host = facts.host_keys if errors else set()
    by_output = _findings_by_output(doc.get("diagnostics")) if errors else {}
    for n, err in enumerate(errors):
        parts.append(_error_article(err, doc, f"{uid}-e1200-{n + 1}", lang, host, by_output))
    fails = []
    for f in facts.failures:
        what = label("html.check_failure", lang) if f.status == "CHECK" else f"{label('html.verdict_fail', lang)}: {f.status}"
        at = f" ({lbl(lang, 'html.at')} {ltr(f.instruction)})" if f.instruction else ""
        first = " " + badge(glossary.xla_reports(lang), "bad") if f.first else ""
        fails.append(f"<b>{esc(what)}</b>{first}: {_said(f.message, lang)}{at}")
    parts.append(_list_section(label("html.failures", lang), fails, "failures"))
    moved = [f"{lbl(lang, 'html.output')} {ltr(shape_index_text(o.output_index))}: "
             f"{ltr(o.old_layout)} \u2192 {ltr(o.new_layout, 'mono host')} "
             f"({ltr(o.start)})" for o in facts.moved]
    parts.append(_list_section(label("html.moved_outputs", lang), moved, "moved"))
    hc = [f"{ltr(h.instruction)} <span class=\"muted\">{esc(h.opcode)}</span>"
          + (f" \u2937 {ltr(h.location, 'loc')}" if h.location else "")
          for h in facts.host_compute]
    parts.append(_list_section(label("html.host_compute", lang), hc, "host-compute"))
    parts.append(_list_section(label("html.warnings", lang), [_said(w, lang) for w in facts.warnings],
                               "warnings", open_=False))
    hp = [ltr(p.instruction + (shape_index_text(list(p.shape_index)) if p.shape_index else ""),
              "mono chip host") for p in facts.host_positions]
    if hp:
        parts.append(f'<details class="host-positions"><summary>{lbl(lang, "html.host_positions")} '
                     f'<span class="count">{len(hp)}</span></summary><p class="chips">{" ".join(hp)}</p></details>')
    if facts.vlog:
        parts.append(f'<details class="vmodule"><summary>{lbl(lang, "html.vmodule")}</summary>'
                     f'{code_block(chr(10).join(facts.vlog), "vlog", label=label("html.copy", lang))}</details>')
    return "".join(parts)


def _said(text: Any, lang: str) -> str:
    """A warning or failure message: xladoctor's own (a label) in the reader's language, as prose;
    XLA's (matched against its output) as it wrote it, left to right in code type."""
    from .terminal_bidi import is_rtl_char

    words = str(in_lang(text, lang) if text is not None else "")
    if any(is_rtl_char(ch) for ch in words):  # said in the reader's words (the document may say it already)
        return f'<span class="wrap">{esc(words)}</span>'
    return ltr(text, "mono wrap")
