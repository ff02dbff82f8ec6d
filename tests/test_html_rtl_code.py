"""Latin text inside a Persian HTML page reads left to right, in Chromium (issue 38).

The model line "(libtpu 0.0.42.1، jaxlib 0.10.2)" was isolated in two halves around the Persian
comma, so a reader saw jaxlib's half first (at 390 and 1280 px).  The test measures where
Chromium puts the words, not which markup the page has."""

from __future__ import annotations

from pathlib import Path

from xladoctor.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"


def _page(tmp_path: Path, capsys) -> Path:
    page = tmp_path / "fa.html"
    assert main(["check", str(EXAMPLES / "e1200_offloaded_activation.hlo"), "--lang", "fa", "--html", str(page)]) == 1
    capsys.readouterr()
    return page


def test_a_latin_list_around_a_persian_comma_stays_in_order(chromium, tmp_path, capsys):
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    page.goto(_page(tmp_path, capsys).as_uri())
    model = page.locator("text=libtpu 0.0.42.1").first
    text = model.evaluate("el => el.closest('p, div, span').textContent")
    assert "libtpu 0.0.42.1، jaxlib 0.10.2" in text
    where = model.evaluate("""el => { const p = el.closest('p, div, span'); const out = {};
      for (const word of ['libtpu', 'jaxlib']) {
        const w = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode(); n; n = w.nextNode()) { const i = n.data.indexOf(word);
          if (i >= 0) { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
                        out[word] = r.getBoundingClientRect().left; break; } } }
      return out; }""")
    assert where["libtpu"] < where["jaxlib"], where  # read left to right, as written
    page.close()
