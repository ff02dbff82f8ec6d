"""One vocabulary: the same thing has the same name in text, HTML (as Chromium shows it), JSON
and SARIF, and counted nouns agree with their number (labels/glossary.py, labels ``term.*``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
CHROMIUM = "/usr/bin/chromium"
OLD_NAMES = ("entry result {0}", "entry output", "[XLA stops here]", "1 findings", "1 parameters",
             "out_shardings for output #", "keep on host", "back to device,", "bring it back:", "fix (a),",
             "Keep the output on the host", "file(s)", "job(s)", "result {0}",
             "out_shardings leaf", "output [0]", "output #0")
FIX_NAMES = ("keep it on host", "bring it back to device")


def xladoctor(*argv: str) -> str:
    p = subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


def _page_text(html: Path) -> str:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(html.as_uri())
            return page.inner_text("body")
        finally:
            browser.close()


def test_an_output_has_one_name_everywhere(tmp_path):
    texts = {"check": xladoctor("check", E1200), "offload": xladoctor("offload", E1200),
             "json": json.dumps(json.loads(xladoctor("check", E1200, "--json"))["diagnostics"]),
             "sarif": xladoctor("check", E1200, "--format", "sarif"),
             "github": xladoctor("check", E1200, "--format", "github")}
    for where, text in texts.items():
        assert "output {0}" in text, where
        assert not [old for old in OLD_NAMES if old in text], where
    assert "(XLA reports this one)" in texts["check"] and "(XLA reports this one)" in texts["offload"]
    for where, text in texts.items():  # the two remedies, and the output in JAX's advice, by one name each
        assert all(name in text for name in FIX_NAMES), where
        assert "give output {0} a sharding" in text or where == "check", where
    html = tmp_path / "r.html"
    xladoctor("check", E1200, "--html", html)
    shown = _page_text(html)
    assert "output {0}" in shown and "XLA reports this one" in shown and "1 finding" in shown
    assert "(a) keep it on host" in shown and "(b) bring it back to device" in shown
    assert "give output {0} a sharding" in shown
    # a tile's or a card's number and its word agree too
    assert "1\nfile checked" in shown and "1\nfinding" in shown and "1 computation" in shown
    assert "1 computations" not in shown and "1\nfiles checked" not in shown and "1\nfindings" not in shown
    assert not [old for old in OLD_NAMES if old in shown]


def test_counted_nouns_agree_with_their_number(tmp_path):
    (tmp_path / "e.txt").write_text("f32[8,128]\n")
    out = xladoctor("inputs", tmp_path / "e.txt", "--supplied-shapes", tmp_path / "e.txt")
    assert out.strip() == "the 1 parameter matches"
    assert "1 file checked, 1 finding" in xladoctor("check", E1200)
    job = tmp_path / "runs" / "job-a"
    job.mkdir(parents=True)
    (job / "tpu.log").write_text((EXAMPLES / "tpu_job.log").read_text())
    fleet = xladoctor("fleet", tmp_path / "runs")
    assert fleet.startswith("1 file from 1 job checked on this machine: 4 error messages in logs\n"), fleet
    assert ": 3 in 1 file of 1 job (job-a)" in fleet and "job-a: 1 file, E0102 x3, E1200 x1" in fleet


def test_notebook_frame_fits_its_report(tmp_path):
    """The notebook iframe was 640 px whatever it held: a short report sat in empty space, a long
    one was cut.  Its height now follows the page (up to a cap; it stays resizable)."""
    import re

    import xladoctor

    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not installed")
    short = xladoctor.explain_log("I0101 step 1 loss 0.5\n")._repr_html_()
    long = xladoctor.explain_log(EXAMPLES / "tpu_job.log")._repr_html_()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for frame_html in (short, long):
                given = int(re.search(r"height:(\d+)px", frame_html).group(1))
                page = browser.new_page(viewport={"width": 1000, "height": 800})
                page.set_content(f"<html><body style='margin:0'>{frame_html}</body></html>")
                inner = page.frames[1]
                inner.wait_for_load_state()
                needed = inner.evaluate("document.documentElement.scrollHeight")
                assert given >= min(needed, 1400) * 0.8 and given <= max(needed * 1.6, 240), (given, needed)
        finally:
            browser.close()


def test_the_notebook_view_gives_the_same_python_fix_as_print(tmp_path):
    """``print(report)`` of check_offload gave ``jax.jit(f, out_shardings=...)`` and the move back on
    the user's variable; the notebook page gave only the generic HLO-level snippet."""
    pytest.importorskip("jax")
    sys.path.insert(0, str(EXAMPLES.parents[2] / "examples"))
    from offload_programs import PROGRAMS

    from xladoctor.jax import check_offload

    p = PROGRAMS["scanned_layers"]()
    report = check_offload(p.fn, *p.args)
    printed = str(report)
    frame = report._repr_html_()
    import html
    import re

    page = tmp_path / "page.html"
    page.write_text(html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1)))
    shown = _page_text(page)
    for code in ("saved = place_to_device(saved)", "out_shardings=", "pinned_host"):
        assert code in printed and code in shown, code


def test_no_noun_is_counted_with_a_parenthesised_plural():
    """``file(s)``, ``argument(s)``, ``message(s)``: every counted noun goes through the glossary."""
    import re

    from xladoctor.base.labels import LANGUAGES, label
    from xladoctor.base.labels.glossary import NOUNS, count
    from xladoctor.report.explain_text import not_shown_line

    text = (Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "base" / "labels" / "en.toml").read_text()
    assert not re.findall(r"\w\(s\)", text)
    assert not_shown_line({"E0102": 1}).startswith("1 more message not shown")
    assert not_shown_line({"E0102": 2, "E1200": 1}).startswith("3 more messages not shown")
    for noun in NOUNS:
        for lang in LANGUAGES:
            assert count(1, noun, lang) != label(NOUNS[noun][1], lang, n="1") or lang == "fa", (noun, lang)
