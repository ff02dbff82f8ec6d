"""HTML for an ``explain`` scan document: one card per distinct XLA error found in a log.

A card keeps the log's own words (the message, verbatim and left-to-right) next
to the explanation in the reader's language.  Persian prose is wrapped in
``lang="fa" dir="rtl"`` and every code-like run inside it is isolated
left-to-right, so ``memory_kind="pinned_host"`` never comes out mirrored.
E0102 findings reuse the layout bars of the inputs report; E1200 findings reuse
the two-lane path drawing when the log carries a ``host_offloader`` trace or the
analysis ran on the module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base.labels import label, plural
from ..base.units import bytes_text
from ..findings.model import Finding, Hop
from .explain_text import HIDDEN_ANALYSIS
from .finding_html import host_set, logged_fixes, logged_path, logged_twin, path_nodes, trace_nodes
from .html_base import WORDS, badge, code_block, esc, is_rtl, lang_attrs, lbl, ltr, prose
from .html_flow import FlowNode, render_flow
from .html_inputs import bytes_bars, dims_bars


def _dimensions(shape: str) -> list[int] | None:
    """The array's dimension sizes, read by the shape parser (None for a tuple or a shape XLA would refuse)."""
    from ..base.errors import InputError
    from ..syntax.shape_parser import parse_shape

    try:
        parsed = parse_shape(shape)
    except InputError:
        return None
    return None if parsed.is_tuple else list(parsed.dimensions)


def _catalogue_entry(code: str, lang: str) -> tuple[str, str]:
    """``(title, url)`` from the bundled catalogue; empty strings when it has no such code."""
    try:
        from ..catalogue import load_catalogue

        entry = load_catalogue().get(code)
    except Exception:  # the report must render even if the catalogue cannot load
        return "", ""
    if entry is None:
        return "", ""
    return entry.describe(lang).title, entry.url


def layout_dims(analysis_side: dict[str, Any]) -> list[dict[str, Any]]:
    """docs/json.md padding entries rebuilt from an explain E0102 analysis side.

    The explain analysis lists only the padded dimensions; the other physical
    dimensions come from the shape's dimensions and ``minor_to_major``.
    """
    sizes = _dimensions(str(analysis_side.get("shape") or ""))
    if sizes is None:
        return []
    order = list(analysis_side.get("minor_to_major") or reversed(range(len(sizes))))
    padded = {d.get("dim"): d for d in analysis_side.get("padded_dimensions") or []}
    out = []
    for pos, dim in enumerate(order):
        if not isinstance(dim, int) or not 0 <= dim < len(sizes):
            continue
        p = padded.get(dim, {})
        out.append({"dim": dim, "size": sizes[dim], "padded_size": p.get("padded_size", sizes[dim]),
                    "tile_entry": p.get("tile_entry"), "physical_position": pos})
    return out


def _e0102_visual(analysis: dict[str, Any], lang: str) -> str:
    exp, act = analysis.get("expected"), analysis.get("actual")
    if not isinstance(exp, dict) or not isinstance(act, dict):
        return ""
    e_dims, a_dims = layout_dims(exp), layout_dims(act)
    scale: dict[Any, int] = {}
    for d in e_dims + a_dims:
        scale[d["dim"]] = max(scale.get(d["dim"], 0), d["padded_size"], d["size"])
    sides = []
    for key, side, dims in (("expected", exp, e_dims), ("supplied", act, a_dims)):
        sides.append(f'<div class="side {key}"><h5>{lbl(lang, WORDS[key])}</h5>'
                     f'<p class="shape">{ltr(side.get("shape"), "mono shape")}</p>'
                     f'<p class="dims-caption">{lbl(lang, "html.dims")}</p>{dims_bars(dims, scale, lang)}'
                     f'<p class="muted">{ltr(bytes_text(int(side.get("physical_bytes") or 0)))}</p></div>')
    ratio = analysis.get("size_ratio")
    ratio_badge = f" {badge(f'{ratio:g}' + chr(0xD7), 'bad')}" if isinstance(ratio, (int, float)) else ""
    return (f'<div class="e0102-visual" dir="ltr">{ratio_badge}{bytes_bars(exp, act, lang)}'
            f'<div class="sides">{"".join(sides)}</div></div>')


def _trace_nodes(analysis: dict[str, Any], path: Sequence[Hop], lang: str) -> list[FlowNode]:
    """Boxes for an E1200 finding: the ``--hlo`` analysis' path if there is one (an analysis, not
    a finding), else the finding's own path (the log's trace)."""
    offload = analysis.get("offload") or {}
    errors = [e for e in offload.get("errors") or [] if isinstance(e, dict)]
    if errors:
        from ..findings.wire import Record

        err = errors[0]
        # the --hlo analysis, typed where it was made or where its document was read back
        hops = (err.finding.path or err.trace) if isinstance(err, Record) else ()
        return path_nodes(hops, err.get("output_index"),
                          err.get("output_layout"), host_set(err.get("trace") or []),
                          err.get("origin_instruction") or "", lang)
    return trace_nodes(path, lang)


# What the E0102 drawing already shows (the ratio badge and the two byte bars): not a row again.
_DRAWN_E0102 = ("size_ratio", "expected_physical_bytes", "actual_physical_bytes")


def _row_name(key: str) -> str:
    """A table row's name as a reader says it (``expected size``), not the model's key
    (``expected_size``): the keys are the catalogue's field names, which are XLA's own words."""
    return ltr(key.replace("_", " "))


def _value(key: str, value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and key.endswith(("size", "bytes")):
        return ltr(bytes_text(value))
    if isinstance(value, (dict, list)):
        return ltr(_compact(value), "mono wrap")
    return ltr(value, "mono wrap")


def _compact(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _fields_table(fields: dict[str, Any], lang: str) -> str:
    from .explain_text import HIDDEN_FIELDS

    rows = "".join(f"<tr><th>{_row_name(k)}</th><td>{_value(k, v)}</td></tr>" for k, v in fields.items()
                   if v not in (None, "", [], {}) and k not in HIDDEN_FIELDS)  # bookkeeping, as in the text
    return (f'<details class="fields" open><summary>{lbl(lang, "html.fields")}</summary>'
            f'<table class="kv" dir="ltr"><tbody>{rows}</tbody></table></details>') if rows else ""


def _analysis_block(f: dict[str, Any], uid: str, lang: str, text_lang: str, twin: Finding | None = None) -> str:
    """The analysis: E0102 drawing or E1200 path, then its notes (in ``text_lang``, the document's) and numbers."""
    analysis = f.get("analysis") or {}
    if not analysis:
        return ""
    parts = []
    drawn: tuple[str, ...] = ()
    if f.get("code") == "E0102":
        visual = _e0102_visual(analysis, lang)
        parts.append(visual)
        drawn = _DRAWN_E0102 if visual else ()
    nodes = _trace_nodes(analysis, logged_path(f, twin), lang) if f.get("code") == "E1200" else []
    if nodes:
        analysed = bool((analysis.get("offload") or {}).get("errors"))
        caption = label("html.offload_analysis" if analysed else "html.trace_from_log", lang)
        parts.append(f'<p class="dims-caption">{esc(caption)}</p>'
                     f'<div class="flow-wrap">{render_flow(nodes, uid, label("html.device_lane", lang), label("html.host_lane", lang), "E1200")}</div>')
    notes = analysis.get("notes")
    if notes and is_rtl(text_lang):
        parts.append(f'<ul class="notes" {lang_attrs(text_lang)}>'
                     + "".join(f"<li>{prose(n, text_lang)}</li>" for n in notes) + "</ul>")
    elif notes:
        parts.append(f'<ul class="notes" lang="{esc(text_lang)}" dir="ltr">'
                     + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    # what steers the report (fixes_first, replaces_fixes...) is xladoctor's bookkeeping, not the error's
    rest = {k: v for k, v in analysis.items() if k not in (*HIDDEN_ANALYSIS, *drawn, "expected", "actual")}
    if rest:
        rows = "".join(f"<tr><th>{_row_name(k)}</th><td>{_value(k, v)}</td></tr>" for k, v in rest.items())
        parts.append(f'<table class="kv" dir="ltr"><tbody>{rows}</tbody></table>')
    return (f'<details class="analysis" open><summary>{lbl(lang, "html.analysis")}</summary>'
            f'{"".join(parts)}</details>')


def finding_card(f: dict[str, Any], uid: str, lang: str, text_lang: str | None = None,
                 diagnostic: Finding | None = None) -> str:
    """One finding of an explain document; ``diagnostic`` is its typed twin in the document's
    ``diagnostics`` (the findings model), which the E1200 path and the fixes are drawn from."""
    code = str(f.get("code") or "")
    title, url = _catalogue_entry(code, lang)
    count = int(f.get("count") or 1)
    lines = f.get("lines") or ([f["line"]] if f.get("line") is not None else [])
    where = ", ".join(str(x) for x in lines[:8]) + ("\u2026" if len(lines) > 8 else "")
    text_lang = text_lang or lang  # notes and fixes are in the explain document's `lang`
    twin = logged_twin(f, diagnostic)
    fixes = "".join(f"<li>{prose(x.text, text_lang)}</li>" for x in logged_fixes(f, twin))
    link = (f'<p class="doclink">{lbl(lang, "html.docs")}: <a href="{esc(url)}" rel="noreferrer" dir="ltr">'
            f"{esc(url)}</a></p>") if url.startswith("https://") else ""
    return (
        f'<article class="finding" id="{esc(uid)}" data-code="{esc(code)}">'
        f'<header><h4>{badge(code, "code")} {ltr(f.get("name"), "name")}'
        f'{" " + badge(chr(0xD7) + str(count), "muted") if count > 1 else ""}</h4>'
        f'<span class="muted">{lbl(lang, "html.line")} {ltr(where)}</span></header>'
        f'{f"<p class=title{lang_attrs(lang)}>{prose(title, lang)}</p>" if title else ""}'
        f'<h5>{lbl(lang, "html.message")}</h5>{code_block(f.get("text", ""), "log-line", label=label("html.copy", lang))}'
        f'{_fields_table(f.get("fields") or {}, lang)}'
        f"{_analysis_block(f, uid + '-flow', lang, text_lang, twin)}"
        f'<div class="fixes-prose"{lang_attrs(text_lang)}><h5>{lbl(lang, "html.fixes")}</h5><ol>{fixes}</ol></div>'
        f"{link}</article>")


def explain_body(doc: dict[str, Any], uid: str, lang: str | None = None) -> str:
    from ..findings.wire import load_document

    doc = load_document(doc)  # typed in-process already; a document read from JSON is typed here
    text_lang = str(doc.get("lang") or lang or "en")  # the language the document's sentences are in
    lang = lang or text_lang
    findings = doc.get("findings") or []
    parts = []
    if findings:
        parts.append(f'<div class="verdict-line">{badge(label("html.verdict_found", lang), "bad")} '
                     f'<span class="muted">{esc(plural(len(findings), "check.finding", "check.findings", lang))} \u00b7 '
                     f'{ltr(doc.get("source"))}</span></div>')
    else:
        # the page's or the file card's header wears the verdict badge already: said once, in words
        parts.append(f'<p class="clean">{lbl(lang, "html.no_log_findings")}</p>')
    from ..findings.wire import findings_of

    twins = findings_of(doc.get("diagnostics"))  # typed, one per entry of diagnostics' findings
    twins = twins if len(twins) == len(findings) else ()  # one per finding, in the same order, or none
    for n, f in enumerate(findings):
        parts.append(finding_card(f, f"{uid}-{str(f.get('code', 'x')).lower()}-{n + 1}", lang, text_lang,
                                  twins[n] if twins else None))
    return "".join(parts)
