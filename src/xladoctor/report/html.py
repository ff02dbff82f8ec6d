"""Self-contained HTML reports from the commands' JSON documents.

Public entry points (pure functions of the documents of docs/json.md, so one
model feeds the text, the JSON and the HTML):

* :func:`render_check_html` — the ``check`` document: a summary header (files,
  findings by code, a verdict badge per file), a table of contents, then one
  section per file and per ``inputs`` comparison;
* :func:`render_offload_html`, :func:`render_inputs_html`,
  :func:`render_explain_html` — one command's document as a whole page; the
  check page uses the same section bodies.

The page loads nothing (inline CSS, a few lines of inline script for copy
buttons, no fonts or images) and every piece of input text is escaped; see
docs/html-report.md.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..base.labels import glossary, in_lang, label
from ..findings.details_wire import offload_facts
from ..findings.wire import load_document
from ..ir.shape import format_shape_index
from .html_base import IdAllocator, badge, code_block, esc, is_rtl, lbl, ltr, page, prose
from .html_explain import explain_body
from .html_inputs import inputs_body, inputs_verdict
from .html_offload import offload_body, offload_verdict

__all__ = ["render_check_html", "render_offload_html", "render_inputs_html", "render_explain_html"]


# -- verdicts and counts ---------------------------------------------------------------

def file_verdict(f: dict[str, Any]) -> tuple[str, str]:
    """``(label key, tone)`` of one ``check`` file entry."""
    kind = f.get("kind")
    if kind == "skipped":
        return "html.verdict_skipped", "muted"
    if kind == "error":
        return "html.verdict_error", "bad"
    if kind == "hlo":
        if "offload" in f:
            return offload_verdict(f["offload"])
        return "html.verdict_note", "muted"
    if kind == "log":
        return ("html.verdict_found", "bad") if (f.get("explain") or {}).get("findings") else ("html.verdict_clean", "ok")
    return "html.verdict_note", "muted"


def findings_by_code(doc: dict[str, Any]) -> Counter:
    """Distinct findings per code over every file and comparison of a check document."""
    counts: Counter = Counter()
    for f in doc.get("files") or []:
        facts = offload_facts(f.get("offload") or {})
        counts["E1200"] += len(facts.errors)
        counts["HostOffloader failure"] += len(facts.failures)
        for x in (f.get("explain") or {}).get("findings") or []:
            counts[str(x.get("code"))] += 1
    for d in doc.get("inputs") or []:
        counts["E0102"] += len(d.get("mismatches") or [])
    return Counter({k: v for k, v in counts.items() if v})


# -- page pieces -----------------------------------------------------------------------

def _noun(n: Any, one: str, many: str, lang: str) -> str:
    """The page label ``one`` for one, ``many`` for any other count (a tile's or a card's number
    stands apart from its word, so the glossary's ``count`` does not apply)."""
    return lbl(lang, one if n == 1 else many)


def _hlo_card(s: dict[str, Any], lang: str) -> str:
    ecl = s.get("entry_computation_layout") or {}
    ops = list((s.get("opcode_counts") or {}).items())[:8]
    chips = " ".join(f'<span class="chip">{ltr(k)} <b>{esc(v)}</b></span>' for k, v in ops)
    spaces = s.get("memory_spaces") or {}
    host = spaces.get("5")
    host_chip = f' <span class="chip host">S(5) <b>{esc(host)}</b></span>' if host else ""
    # check keeps a module's summary without its instruction lists (checking/results.py): the count
    n_comp = s["computation_count"] if "computation_count" in s else len(s.get("computations") or [])
    n_instr = s.get("instruction_count")
    instr = _noun(n_instr, "html.instruction", "html.instructions", lang)
    comps = _noun(n_comp, "html.computation", "html.computations", lang)
    return (f'<div class="hlo-card"><p>{lbl(lang, "html.hlo_module")} {ltr(s.get("name"), "mono name")} \u00b7 '
            f'{esc(n_instr)} {instr} \u00b7 {n_comp} {comps}</p>'
            f'<p class="ecl"><span class="muted">{lbl(lang, "html.entry_layout")}:</span> '
            f'{ltr(ecl.get("text"), "mono wrap")}</p>'
            f'<p class="chips"><span class="muted">{lbl(lang, "html.opcodes")}:</span> {chips}{host_chip}</p></div>')


def _origin_and_confirm(f: dict[str, Any], lang: str = "en") -> list[str]:
    """The CPU-provenance warning (in the page's language) and the ``--confirm`` verdict, as the
    terminal prints them."""
    from ..oracle.confirmation import confirmation_of
    from .confirm import confirm_lines

    out = []
    note = (f.get("provenance") or {}).get("note")
    if note:
        words = in_lang(note, lang)
        out.append(f'<p class="note">{ltr(note, "wrap") if words is note else esc(words)}</p>')
    lines = confirm_lines(confirmation_of(f.get("confirm")), lang=lang)
    if lines and is_rtl(lang):  # Persian lines right to left, the names and summaries in them left to right
        body = "\n".join(prose(line, lang) for line in lines)
        out.append(f'<div class="codewrap"><pre dir="rtl" class="code"><code>{body}</code></pre></div>')
    elif lines:
        out.append(code_block("\n".join(lines), copy=False))
    return out


def _file_section(f: dict[str, Any], uid: str, lang: str, toc: list[tuple[int, str, str]]) -> str:
    key, tone = file_verdict(f)
    path = str(f.get("path", ""))
    toc.append((1, uid, path.rsplit("/", 1)[-1] or path))
    body: list[str] = []
    if f.get("kind") == "hlo":
        if f.get("hlo"):
            body.append(_hlo_card(f["hlo"], lang))
        if f.get("note"):
            body.append(f'<p class="note">{esc(f["note"])}</p>')
        if f.get("offload"):
            off = f["offload"]
            for n, e in enumerate(offload_facts(off).errors):
                idx = format_shape_index(tuple(e.get("output_index") or ()))
                toc.append((2, f"{uid}-e1200-{n + 1}", f"E1200 output {idx}"))
            body.append(f'<h3>{lbl(lang, "html.host_offload")}</h3>{offload_body(off, uid, lang)}')
        body.extend(_origin_and_confirm(f, lang))
    elif f.get("kind") == "log":
        ex = f.get("explain") or {}
        for n, x in enumerate(ex.get("findings") or []):
            toc.append((2, f"{uid}-{str(x.get('code', 'x')).lower()}-{n + 1}",
                        f"{x.get('code')} {label('html.line', lang)} {x.get('line')}"))
        body.append(explain_body(ex, uid, ex.get("lang") or lang))
    elif f.get("kind") == "error":
        body.append(f'<p class="note bad">{lbl(lang, "html.cannot_check")}: {ltr(f.get("error"), "mono wrap")}</p>')
    elif f.get("note"):
        body.append(f'<p class="note">{esc(f["note"])}</p>')
    count = f.get("findings")
    count_text = glossary.count(int(count or 0), "finding", lang)
    count_badge = f" {badge(count_text, 'muted')}" if count else ""
    return (f'<section class="file kind-{esc(f.get("kind"))}" id="{esc(uid)}">'
            f'<h2>{ltr(path, "mono path")} {badge(label(key, lang), tone)}{count_badge}</h2>'
            f'{"".join(body)}</section>')


def _inputs_section(d: dict[str, Any], uid: str, lang: str, toc: list[tuple[int, str, str]]) -> str:
    key, tone = inputs_verdict(d)
    name = f"{label('html.inputs', lang)}: {d.get('executable', '')}"
    toc.append((1, uid, name))
    for m in d.get("mismatches") or []:
        toc.append((2, f"{uid}-param-{m.get('index')}", f"E0102 {label('html.parameter', lang)} {m.get('index')}"))
    return (f'<section class="inputs" id="{esc(uid)}"><h2>{lbl(lang, "html.inputs")} '
            f'{ltr(d.get("executable"), "mono name")} {badge(label(key, lang), tone)}</h2>'
            f"{inputs_body(d, uid, lang)}</section>")


def _summary(doc: dict[str, Any], lang: str, sections: list[tuple[dict[str, Any], str]]) -> str:
    files = doc.get("files") or []
    skipped = sum(1 for f in files if f.get("kind") == "skipped")
    errors = sum(1 for f in files if f.get("kind") == "error")
    checked = len(files) - skipped
    total = doc.get("findings", sum(int(f.get("findings") or 0) for f in files))
    codes = findings_by_code(doc)
    tiles = [("html.file_checked" if checked == 1 else "html.files_checked", checked, ""),
             ("html.finding" if total == 1 else "html.findings", total, "bad" if total else "ok")]
    if skipped:
        tiles.append(("html.skipped", skipped, "muted"))
    if errors:
        tiles.append(("html.unreadable", errors, "bad"))
    tile_html = "".join(f'<div class="tile {tone}"><b>{esc(n)}</b><span>{lbl(lang, k)}</span></div>'
                        for k, n, tone in tiles)
    code_html = "".join(f'<span class="codecount">{badge(c, "code")} <b>\u00d7{n}</b></span>'
                        for c, n in codes.most_common()) or badge(label("html.verdict_clean", lang), "ok")
    rows = []
    for f, uid in sections:
        if f.get("kind") == "skipped":
            continue
        if "executable" in f and "mismatches" in f:
            key, tone = inputs_verdict(f)
            rows.append(f'<tr><td><a href="#{esc(uid)}">{ltr(label("html.inputs", lang) + ": " + str(f.get("executable")))}</a></td>'
                        f"<td>{badge(label('html.tool_inputs', lang), 'info')}</td><td>{badge(label(key, lang), tone)}</td>"
                        f"<td>{len(f.get('mismatches') or [])}</td></tr>")
            continue
        key, tone = file_verdict(f)
        rows.append(f'<tr><td><a href="#{esc(uid)}">{ltr(f.get("path"), "mono path")}</a></td>'
                    f'<td>{badge(str(f.get("kind")), "info")}</td><td>{badge(label(key, lang), tone)}</td>'
                    f'<td>{esc(f.get("findings", ""))}</td></tr>')
    skipped_list = "".join(f"<li>{ltr(f.get('path'))} <span class=\"muted\">{esc(f.get('note', ''))}</span></li>"
                           for f in files if f.get("kind") == "skipped")
    skipped_html = (f'<details class="skipped"><summary>{lbl(lang, "html.skipped")} '
                    f'<span class="count">{skipped}</span></summary><ul>{skipped_list}</ul></details>'
                    if skipped_list else "")
    return (f'<section class="summary" id="summary"><h2>{lbl(lang, "html.summary")}</h2>'
            f'<div class="tiles">{tile_html}</div>'
            f'<div class="codes"><span class="muted">{lbl(lang, "html.by_code")}:</span> {code_html}</div>'
            f'<div class="scroll"><table class="grid files"><thead><tr><th>{lbl(lang, "html.files")}</th><th></th><th></th>'
            f'<th>{lbl(lang, "html.findings")}</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f"{skipped_html}</section>")


def _toc(toc: list[tuple[int, str, str]], lang: str) -> str:
    items = []
    for level, uid, text in toc:
        items.append(f'<li class="l{level}"><a href="#{esc(uid)}">{ltr(text, "mono")}</a></li>')
    return (f'<nav class="toc" aria-label="{lbl(lang, "html.contents")}"><h2>{lbl(lang, "html.contents")}</h2>'
            f'<ol><li class="l1"><a href="#summary">{lbl(lang, "html.summary")}</a></li>{"".join(items)}</ol></nav>')


def _header(title_html: str, lang: str, verdict: str) -> str:
    return f'<header class="top"><div class="brand">xladoctor</div><h1>{title_html}</h1>{verdict}</header>'


def _overall(doc: dict[str, Any], lang: str) -> str:
    codes = findings_by_code(doc)
    if codes.get("E1200"):
        return badge(label("html.verdict_e1200", lang), "bad big")
    if codes:
        return badge(label("html.verdict_found", lang), "bad big")
    files = doc.get("files") or []
    if any(file_verdict(f)[1] == "warn" for f in files):
        return badge(label("html.verdict_warn", lang), "warn big")
    return badge(label("html.verdict_clean", lang), "ok big")


# -- public API ------------------------------------------------------------------------

def render_check_html(doc: dict[str, Any], title: str | None = None, lang: str = "en") -> str:
    """The ``check`` document as one self-contained page.  Each public renderer takes a command's
    document as built in this process (its findings typed) or read from JSON (typed here, once)."""
    doc = load_document(doc)
    ids = IdAllocator()
    toc: list[tuple[int, str, str]] = []
    sections: list[tuple[dict[str, Any], str]] = []
    html_sections: list[str] = []
    for f in doc.get("files") or []:
        if f.get("kind") == "skipped":
            sections.append((f, ""))
            continue
        uid = ids("file", str(f.get("path", "")).rsplit("/", 1)[-1])
        sections.append((f, uid))
        html_sections.append(_file_section(f, uid, lang, toc))
    for d in doc.get("inputs") or []:
        uid = ids("inputs", d.get("executable", ""))
        sections.append((d, uid))
        html_sections.append(_inputs_section(d, uid, lang, toc))
    title = title or label("html.report", lang)
    body = (_header(esc(title), lang, _overall(doc, lang))
            + f'<div class="layout">{_toc(toc, lang)}<main>{_summary(doc, lang, sections)}'
            + "".join(html_sections) + "</main></div>")
    return page(title, body, lang, doc.get("diagnostics"))


def _single(title: str | None, default: tuple[str, str], verdict: str, body_html: str, lang: str,
            diagnostics: Any = None) -> str:
    """A one-document page; ``default`` is (words, code-like name) for the title when none is given."""
    words, name = default
    if title is None:
        title = f"{words} \u2014 {name}" if name else words
        title_html = f"{esc(words)} \u2014 {ltr(name, 'name')}" if name else esc(words)
    else:
        title_html = esc(title)
    return page(title, _header(title_html, lang, verdict) + f'<div class="layout single"><main>{body_html}</main></div>',
                lang, diagnostics)


def render_offload_html(doc: dict[str, Any], title: str | None = None, lang: str = "en") -> str:
    """An ``offload`` document as a page (E1200 path, message, fixes, warnings)."""
    doc = load_document(doc)
    key, tone = offload_verdict(doc)
    return _single(title, (label("html.host_offload", lang), ""), badge(label(key, lang), tone + " big"),
                   f'<section class="file" id="offload">{offload_body(doc, "offload", lang)}</section>', lang,
                   doc.get("diagnostics"))


def render_inputs_html(doc: dict[str, Any], title: str | None = None, lang: str = "en") -> str:
    """An ``inputs`` document as a page (E0102 layouts side by side)."""
    doc = load_document(doc)
    key, tone = inputs_verdict(doc)
    return _single(title, (label("html.inputs", lang), str(doc.get("executable") or "")), badge(label(key, lang), tone + " big"),
                   f'<section class="inputs" id="inputs">{inputs_body(doc, "inputs", lang)}</section>', lang,
                   doc.get("diagnostics"))


def render_explain_html(doc: dict[str, Any], title: str | None = None, lang: str | None = None) -> str:
    """An ``explain`` scan document as a page (one card per finding)."""
    doc = load_document(doc)
    lang = lang or str(doc.get("lang") or "en")
    found = bool(doc.get("findings"))
    verdict = badge(label("html.verdict_found" if found else "html.verdict_clean", lang), "bad big" if found else "ok big")
    return _single(title, (label("html.log_findings", lang), str(doc.get("source") or "")), verdict,
                   f'<section class="file" id="log">{explain_body(doc, "log", lang)}</section>', lang,
                   doc.get("diagnostics"))
