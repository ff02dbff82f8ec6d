"""HTML for an ``inputs`` JSON document (docs/json.md ``## inputs``): E0102 as pictures of layouts.

Why bars: the seed's puzzle is that two *equal* logical arrays differ 3.2x in
bytes.  Drawing each physical dimension as a bar whose solid part is the
logical extent and whose striped part is the padding a tile adds (40 -> 128)
shows where the bytes go, which no table of numbers does.  A second pair of
bars compares the total bytes each runtime sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base.labels import label
from ..base.units import bytes_text, human_bytes
from ..findings.model import FindingKind, Fix, FixKind
from .finding_html import finding_where, fix_cards
from .html_base import WORDS, badge, code_block, esc, lbl, ltr

RUNTIME_NAMES = {"tpu": "TPU (PJRT)", "cpu_gpu": "CPU / GPU (PJRT)", "gpu": "GPU (TFRT)",
                 "stream_executor": "StreamExecutor"}


def inputs_verdict(doc: dict[str, Any]) -> tuple[str, str]:
    return ("html.verdict_clean", "ok") if doc.get("ok") else ("html.verdict_mismatch", "bad")


def dims_bars(dims: list[dict[str, Any]], scale: dict[Any, int], lang: str) -> str:
    """One row per physical dimension, major-most first.

    ``dims`` are docs/json.md padding entries (minor-most first); ``scale`` maps a
    logical dimension to the widest padded size either side shows for it, so the
    two columns of a comparison share one ruler per dimension.
    """
    rows = []
    for d in sorted(dims, key=lambda d: -int(d.get("physical_position", 0))):
        size, padded = int(d.get("size") or 0), int(d.get("padded_size") or 0)
        dim = d.get("dim")
        full = max(1, scale.get(dim, padded) or padded or 1)
        logical_pct = 100.0 * size / full
        pad_pct = 100.0 * max(0, padded - size) / full
        is_padded = padded > size
        name = label("html.dim_name", lang, dim=dim) if dim is not None else label("html.dim_virtual", lang)
        tile = d.get("tile_entry")
        tile_txt = label("html.dim_tile", lang, tile=tile) if tile is not None else ""
        extent = f"{size} \u2192 {padded}" if is_padded else f"{size}"
        pos = int(d.get("physical_position", 0))
        where = esc(label("html.dim_minor_most", lang) if pos == 0 else label("html.dim_position", lang, pos=pos))
        pad_note = f' <small class="padnote">+{padded - size} {lbl(lang, "html.padding")}</small>' if is_padded else ""
        tile_note = f" <small>{esc(tile_txt)}</small>" if tile_txt else ""
        rows.append(
            f'<div class="dimrow{" padded" if is_padded else ""}" data-dim="{esc(dim)}" '
            f'data-size="{size}" data-padded="{padded}">'
            f'<span class="dimname">{ltr(name)}<small>{where}</small></span>'
            f'<span class="track"><span class="bar logical" style="width:{logical_pct:.3f}%"></span>'
            f'<span class="bar pad" style="width:{pad_pct:.3f}%"></span></span>'
            f'<span class="extent">{ltr(extent)}{pad_note}{tile_note}</span></div>')
    return f'<div class="dims" dir="ltr">{"".join(rows)}</div>'


def bytes_bars(expected: dict[str, Any], supplied: dict[str, Any], lang: str) -> str:
    """Total bytes of both sides on one ruler: logical part solid, padding striped."""
    e_phys, s_phys = int(expected.get("physical_bytes") or 0), int(supplied.get("physical_bytes") or 0)
    s_actual = supplied.get("actual_bytes")
    s_total = int(s_actual) if s_actual is not None else s_phys
    full = max(1, e_phys, s_total)
    rows = []
    for key, side, total in (("expected", expected, e_phys), ("supplied", supplied, s_total)):
        logical = min(int(side.get("logical_bytes") or 0), total)
        rows.append(
            f'<div class="byterow {key}"><span class="who">{lbl(lang, WORDS[key])}</span>'
            f'<span class="track"><span class="bar logical" style="width:{100.0 * logical / full:.3f}%"></span>'
            f'<span class="bar pad" style="width:{100.0 * (total - logical) / full:.3f}%"></span></span>'
            f'<span class="amount">{ltr(human_bytes(total))}</span></div>')
    legend = (f'<div class="legend"><span><i class="logical"></i>{lbl(lang, "html.logical")}</span>'
              f'<span><i class="pad"></i>{lbl(lang, "html.padding")}</span></div>')
    return f'<div class="bytes" dir="ltr">{"".join(rows)}{legend}</div>'


def _side(side: dict[str, Any], key: str, scale: dict[Any, int], lang: str) -> str:
    rows = [(label("html.physical_bytes", lang), ltr(bytes_text(int(side.get("physical_bytes") or 0)))),
            (label("html.logical_bytes", lang), ltr(bytes_text(int(side.get("logical_bytes") or 0))))]
    if side.get("actual_bytes") is not None:
        rows.append((label("html.actual_bytes", lang), ltr(bytes_text(int(side["actual_bytes"])))))
    if side.get("jax_layout"):
        rows.append((label("html.jax_layout", lang), ltr(side["jax_layout"], "mono wrap")))
    kv = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return (f'<div class="side {key}"><h5>{lbl(lang, WORDS[key])}</h5>'
            f'<p class="shape">{ltr(side.get("shape"), "mono shape")}</p>'
            f'<p class="muted">{esc(side.get("padding_text") or "")}</p>'
            f'<p class="dims-caption">{lbl(lang, "html.dims")}</p>'
            f'{dims_bars(side.get("padding") or [], scale, lang)}'
            f'<table class="kv"><tbody>{kv}</tbody></table></div>')


def _scale(*sides: dict[str, Any]) -> dict[Any, int]:
    scale: dict[Any, int] = {}
    for side in sides:
        for d in side.get("padding") or []:
            scale[d.get("dim")] = max(scale.get(d.get("dim"), 0), int(d.get("padded_size") or 0),
                                      int(d.get("size") or 0))
    return scale


def _runtimes(m: dict[str, Any], lang: str) -> str:
    rows = []
    for key, r in (m.get("runtimes") or {}).items():
        ok = r.get("accepts")
        rows.append(f'<tr class="{"ok" if ok else "bad"}"><td>{esc(RUNTIME_NAMES.get(key, key))}</td>'
                    f'<td>{badge(label("html.accepts", lang) if ok else label("html.rejects", lang), "ok" if ok else "bad")}</td>'
                    f'<td>{esc(r.get("compares"))}</td><td>{ltr(r.get("expected"))}</td><td>{ltr(r.get("supplied"))}</td></tr>')
    if not rows:
        return ""
    return (f'<h5>{lbl(lang, "html.runtimes")}</h5><div class="scroll"><table class="grid runtimes"><thead><tr>'
            f'<th></th><th></th><th></th><th>{lbl(lang, "html.expected")}</th><th>{lbl(lang, "html.supplied")}</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def mismatch_fixes(m: Mapping[str, Any], diagnostics: Mapping[str, Any] | None) -> tuple[Fix, ...]:
    """A ``mismatches`` entry's fixes as the model holds them: its finding's in the document's
    ``diagnostics`` (same parameter index), or, in a document without one, its own ``fixes``
    read with the kinds the adapter gives them."""
    from ..findings.from_inputs import FIX_KINDS

    f = finding_where(diagnostics, FindingKind.INPUT_MISMATCH, "index", lambda got: got == m.get("index"))
    if f is not None:
        return f.fixes
    return tuple(Fix(FIX_KINDS.get(str(f.get("kind")), FixKind.ADVICE), str(f.get("text") or ""), f.get("code"))
                 for f in m.get("fixes") or [] if isinstance(f, Mapping))


def mismatch_article(m: dict[str, Any], uid: str, lang: str, diagnostics: Mapping[str, Any] | None = None) -> str:
    exp, sup = m.get("expected") or {}, m.get("supplied") or {}
    scale = _scale(exp, sup)
    name = m.get("name") or m.get("instruction")
    title = f"{label('html.parameter', lang)} {m.get('index')}"
    expansion = m.get("expansion")
    exp_badge = badge(f"{expansion:g}\u00d7", "bad") if isinstance(expansion, (int, float)) else ""
    diffs = "".join(f"<li>{ltr(d.get('attribute'))}: {ltr(d.get('expected'))} \u2260 {ltr(d.get('supplied'))}</li>"
                    for d in m.get("differences") or [])
    notes = "".join(f"<li>{esc(n)}</li>" for n in (m.get("notes") or []) + (m.get("hidden_layout_candidates") or []))
    diff_html = f"<h5>{lbl(lang, 'html.differences')}</h5><ul>{diffs}</ul>" if diffs else ""
    notes_html = f'<ul class="notes">{notes}</ul>' if notes else ""
    return (
        f'<article class="e0102" id="{esc(uid)}">'
        f'<h4>{badge("E0102", "code")} {esc(title)}{" " + ltr(name) if name else ""} '
        f'{badge(str(m.get("kind")), "muted")} {exp_badge}</h4>'
        f'<p class="summary-line">{esc(m.get("summary") or "")}</p>'
        f"{bytes_bars(exp, sup, lang)}"
        f'<div class="sides">{_side(exp, "expected", scale, lang)}{_side(sup, "supplied", scale, lang)}</div>'
        f"{diff_html}{notes_html}"
        f"{_runtimes(m, lang)}{fix_cards(mismatch_fixes(m, diagnostics), m, lang)}</article>")


def inputs_body(doc: dict[str, Any], uid: str, lang: str = "en") -> str:
    from ..findings.wire import load_document

    doc = load_document(doc)  # typed in-process already; a document read from JSON is typed here
    key, tone = inputs_verdict(doc)
    head = (f'<div class="verdict-line">{badge(label(key, lang), tone)} '
            f'<span class="muted">{lbl(lang, "html.executable")}: {ltr(doc.get("executable"))} \u00b7 '
            f'{esc(doc.get("expected_count"))} / {esc(doc.get("supplied_count"))} \u00b7 {lbl(lang, "html.pairing")} {esc(doc.get("pairing"))}'
            f"</span></div>")
    parts = [head]
    for what in ("missing", "extra"):
        if doc.get(what):
            parts.append(f'<p><b>{lbl(lang, WORDS[what])}:</b> {" ".join(ltr(x, "mono chip") for x in doc[what])}</p>')
    for n, m in enumerate(doc.get("mismatches") or []):
        parts.append(mismatch_article(m, f"{uid}-param-{m.get('index', n)}", lang, doc.get("diagnostics")))
    msgs = doc.get("messages") or {}
    if msgs:
        blocks = "".join(f'<h5>{esc(RUNTIME_NAMES.get(k, k))}</h5>{code_block(v, "xla-message", label=label("html.copy", lang))}'
                         for k, v in msgs.items())
        parts.append(f'<details class="messages" open><summary>{lbl(lang, "html.messages")}</summary>{blocks}</details>')
    if doc.get("ok"):
        parts.append(f'<p class="clean">{lbl(lang, "html.inputs_ok")}</p>')
    return "".join(parts)
