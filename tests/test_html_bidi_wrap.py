"""Persian HTML at a phone's width: Latin snippets inside Persian prose wrap without their commas
and brackets changing sides (issue 38's stop note: the model line ``(libtpu 0.0.42.1، jaxlib
0.10.2)`` was not isolated, so at 390 px it was drawn ``libtpu 0.0.42.1، jaxlib) ... (0.10.2``).
Measured in Chromium: every Latin run of a Persian page is inside a left-to-right isolate, and
the Persian comma after a snippet is drawn on the snippet's left, as Persian reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from xladoctor.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"

_LOOSE_LATIN_JS = r"""() => {
  // text outside any left-to-right isolate (or pre/svg/script) that holds a Latin snippet with
  // punctuation or digits beside Persian: the bidi algorithm would reorder its pieces
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const el = n.parentElement;
    if (!el || el.closest('pre, svg, script, style, bdi, [dir=ltr]')) continue;
    const t = n.textContent;
    if (/[\u0600-\u06ff]/.test(t) && /[A-Za-z][A-Za-z0-9_.]*[ ,()\u060c]+[A-Za-z0-9]/.test(t)) out.push(t.trim());
  }
  return out;
}"""

_MODEL_LINE_JS = r"""() => {
  const line = [...document.querySelectorAll('.verdict-line .muted')].find(e => e.textContent.includes('libtpu'));
  const snippet = [...line.querySelectorAll('bdi')].find(b => b.textContent.startsWith('libtpu'));
  if (!snippet) return null;
  const box = snippet.getBoundingClientRect();
  const text = snippet.nextSibling;  // "، " then the next snippet
  const r = document.createRange();
  const at = text.textContent.indexOf('\u060c');
  r.setStart(text, at); r.setEnd(text, at + 1);
  const comma = r.getBoundingClientRect();
  return {box: [box.left, box.right, box.top, box.bottom], comma: [comma.left, comma.right, comma.top],
          bidi: getComputedStyle(snippet).unicodeBidi, dir: getComputedStyle(snippet).direction};
}"""


def _pages(tmp_path: Path, capsys) -> list[Path]:
    pages = []
    for argv in (["check", str(EXAMPLES)], ["offload", str(EXAMPLES / "e1200_offloaded_activation.hlo")]):
        page = tmp_path / f"{argv[0]}.html"
        main([*argv, "--lang", "fa", "--html", str(page)])
        pages.append(page)
    capsys.readouterr()
    return pages


@pytest.mark.parametrize("width", [390, 1280])
def test_latin_snippets_in_persian_pages_are_isolated_and_keep_their_comma_side(chromium, tmp_path, capsys, width):
    for page_file in _pages(tmp_path, capsys):
        context = chromium.new_context(viewport={"width": width, "height": 900})
        tab = context.new_page()
        tab.goto(page_file.as_uri())
        assert tab.evaluate(_LOOSE_LATIN_JS) == [], (page_file.name, width)
        model = tab.evaluate(_MODEL_LINE_JS)
        context.close()
        assert model is not None, (page_file.name, "the model line's snippet is not isolated")
        assert model["bidi"] == "isolate" and model["dir"] == "ltr"
        (left, _, top, bottom), (_, c_right, c_top) = model["box"], model["comma"]
        if top - 2 <= c_top <= bottom:  # on the snippet's line: Persian reads on to its left
            assert c_right <= left + 1, (page_file.name, width, model)
        else:  # wrapped: the comma starts the next line, below the snippet
            assert c_top > top, (page_file.name, width, model)
