"""Building blocks of the HTML report: escaping, bidi-safe text, badges, the page shell.

Every renderer in ``html_*.py`` goes through these helpers so that two rules
hold everywhere without each section having to remember them:

* every piece of text that came from a log, an HLO module or a JSON document is
  passed through :func:`esc` (``html.escape`` with quotes) before it reaches the
  page — instruction names and log lines are attacker-controllable;
* code-like material (shapes, instruction names, layouts, Python calls) is
  marked left-to-right (:func:`ltr`, ``<pre dir="ltr">``) so that it reads the
  same inside Persian (right-to-left) prose.

The page is self-contained: CSS and the small copy-button script are read from
``templates/`` and inlined; nothing is fetched when the file is opened.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from ..ir.shape import format_shape_index

RTL_LANGS = ("fa",)

# Runs of printable ASCII inside Persian prose that contain a letter or digit:
# ``NamedSharding(mesh, spec, memory_kind="pinned_host")``, ``jax/jaxlib``, ``E1200``.
_LATIN_RUN = re.compile(r"[!-~](?:[ -~]*[!-~])?")
_HAS_ALNUM = re.compile(r"[A-Za-z0-9]")


def esc(value: Any) -> str:
    """Escape any value for text or a double-quoted attribute (``escape.html_text``: bidi controls
    and non-UTF-8 bytes of names visualised too)."""
    from ..base.escape import html_text

    return html_text("" if value is None else value)


def is_rtl(lang: str) -> bool:
    return lang in RTL_LANGS


def ltr(value: Any, cls: str = "mono") -> str:
    """Code-like text that must stay left-to-right even inside right-to-left prose."""
    return f'<bdi dir="ltr" class="{cls}">{esc(value)}</bdi>'


def prose(text: Any, lang: str) -> str:
    """Escaped prose; in a right-to-left language, Latin/code runs are isolated left-to-right."""
    s = "" if text is None else str(text)
    if not is_rtl(lang):
        return esc(s)
    out: list[str] = []
    pos = 0
    for m in _LATIN_RUN.finditer(s):
        start, end = _balanced(s, m.start(), m.end())
        if start >= end or not _HAS_ALNUM.search(s[start:end]):
            continue
        out.append(esc(s[pos:start]))
        out.append(f'<bdi dir="ltr">{esc(s[start:end])}</bdi>')
        pos = end
    out.append(esc(s[pos:]))
    return "".join(out)


_PAIRS = {")": "(", "]": "[", "}": "{"}
_TRAILING = ".,;:!?\u060c\u061b"


def _balanced(s: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a Latin run so it neither ends in sentence punctuation nor carries a bracket it does not open.

    In ``(e.g. NamedSharding(mesh, memory_kind="pinned_host")).`` written inside
    Persian, the last ``)`` and the ``.`` belong to the Persian sentence; left in
    the left-to-right run they would be drawn on the wrong side.
    """
    changed = True
    while changed and start < end:
        changed = False
        run = s[start:end]
        last = run[-1]
        if run[0] in _TRAILING or run[0] == " ":
            start += 1
            changed = True
        elif last in _TRAILING or last in " ([{" or (last in _PAIRS and run.count(last) > run.count(_PAIRS[last])):
            # an opening bracket that ends the run opens the Persian words after it
            end -= 1
            changed = True
        elif run[0] in "([{" and run.count(run[0]) > run.count({"(": ")", "[": "]", "{": "}"}[run[0]]):
            start += 1
            changed = True
    return start, end


def lbl(lang: str, key: str) -> str:
    """A page label as HTML: escaped, and bidi-safe when the label mixes Persian with code."""
    from ..base.labels import label

    return prose(label(key, lang), lang)


def lang_attrs(lang: str) -> str:
    """``lang``/``dir`` attributes for a block whose prose is in ``lang``."""
    return f' lang="{esc(lang)}" dir="{"rtl" if is_rtl(lang) else "ltr"}"'


def code_block(text: Any, cls: str = "", copy: bool = True, label: str = "copy") -> str:
    """A copyable ``<pre>``; the copy button is progressive enhancement (works without it)."""
    button = (f'<button type="button" class="copy" data-copy aria-label="{esc(label)}">{esc(label)}</button>'
              if copy else "")
    return (f'<div class="codewrap">{button}<pre dir="ltr" class="code {esc(cls)}"><code>{esc(text)}'
            f'</code></pre></div>')


def diff_block(text: str, label: str = "copy") -> str:
    """A unified-diff-like block: ``-`` lines red, ``+`` lines green (the copy button copies plain text)."""
    lines = []
    for line in str(text).split("\n"):
        cls = "del" if line.startswith("- ") else "ins" if line.startswith("+ ") else "ctx"
        lines.append(f'<span class="{cls}">{esc(line)}</span>')
    return (f'<div class="codewrap"><button type="button" class="copy" data-copy aria-label="{esc(label)}">'
            f'{esc(label)}</button><pre dir="ltr" class="code diff"><code>{chr(10).join(lines)}</code></pre></div>')


def badge(text: str, tone: str) -> str:
    """``tone``: ``bad`` (error predicted), ``warn``, ``ok``, ``info``, ``muted``."""
    return f'<span class="badge {esc(tone)}">{esc(text)}</span>'


def shape_index_text(index: Any) -> str:
    """``[1, 0]`` -> ``{1,0}`` (XLA's spelling); strings pass through (log traces carry ``{1}``)."""
    if isinstance(index, (list, tuple)):
        return format_shape_index(tuple(index))
    return "" if index is None else str(index)


def dl_table(rows: Iterable[tuple[str, str]], cls: str = "kv") -> str:
    """Key/value rows; values are already HTML."""
    body = "".join(f"<tr><th scope=\"row\">{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="{esc(cls)}"><tbody>{body}</tbody></table>' if body else ""


def anchor_id(*parts: Any) -> str:
    """A stable, HTML-safe id from arbitrary text (paths, codes)."""
    raw = "-".join(str(p) for p in parts)
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-").lower()
    return slug or "section"


class IdAllocator:
    """Unique anchors within one page (two files may have the same basename)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, *parts: Any) -> str:
        base = anchor_id(*parts)
        n = self._seen.get(base, 0)
        self._seen[base] = n + 1
        return base if n == 0 else f"{base}-{n + 1}"


@cache
def _template(name: str) -> str:
    return (resources.files("xladoctor.report") / "templates" / name).read_text(encoding="utf-8")


_TONES = ("bad", "warn", "ok", "info", "muted")
# Label keys of words the page shows for a value (a side of a comparison, a list of names).
WORDS = {"expected": "html.expected", "supplied": "html.supplied", "missing": "html.missing", "extra": "html.extra"}
_TONE_LABELS = {"bad": "html.tone_bad", "warn": "html.tone_warn", "ok": "html.tone_ok", "info": "html.tone_info",
                "muted": "html.tone_muted"}
_USED_TONE = re.compile(r'class="(?:badge|tile) (bad|warn|ok|info|muted)\b')


def tone_legend(body: str, lang: str) -> str:
    """What each badge colour on the page means: only the tones the page uses, in one line."""
    used = set(_USED_TONE.findall(body))
    if not used:
        return ""
    items = "".join(f'<span><i class="tone {t}"></i>{lbl(lang, _TONE_LABELS[t])}</span>' for t in _TONES if t in used)
    return f'<footer class="legend colours"{lang_attrs(lang)}><b>{lbl(lang, "html.colours")}:</b>{items}</footer>'


DIAGNOSTICS_ID = "xladoctor-diagnostics"


def diagnostics_block(diagnostics: Any) -> str:
    """The command's ``diagnostics`` document, machine-readable inside the page.

    A ``type="application/json"`` script is data, never run; ``<``, ``>`` and ``&`` are written as
    JSON escapes so no text from an input (``</script>``, ``<!--``) can end or change the block.
    """
    if diagnostics is None:
        return ""
    import json

    from ..base.escape import json_text

    data = json_text(json.dumps(diagnostics, ensure_ascii=False, separators=(",", ":")))
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{DIAGNOSTICS_ID}">{data}</script>\n'


def page(title: str, body: str, lang: str = "en", diagnostics: Any = None) -> str:
    """The whole document: inline CSS and script, no external resource of any kind; ``diagnostics``
    (the command document's findings) is embedded as data for tools that read the page."""
    # A restrictive CSP documents (and enforces, in browsers) that the page loads nothing.
    csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
    return (
        "<!DOCTYPE html>\n"
        f'<html{lang_attrs(lang)}>\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="xladoctor">\n'
        f"<title>{esc(title)}</title>\n<style>\n{_template('report.css')}</style>\n</head>\n"
        f"<body>\n{body}\n{tone_legend(body, lang)}\n{diagnostics_block(diagnostics)}"
        f"<script>\n{_template('report.js')}</script>\n</body>\n</html>\n"
    )
