"""HTML rendering without a browser: every real document renders, escapes, and loads nothing.

Runs where chromium is absent too.  Inputs are the real command outputs for every
offload scenario of XLA's HostOffloader tests and every seed log.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from pathlib import Path

import pytest

from xladoctor.cli.main import main
from xladoctor.report.html import render_check_html, render_explain_html, render_offload_html
from xladoctor.report.html_base import prose

DATA = Path(__file__).resolve().parent / "data"
SCENARIOS = sorted((DATA / "offload").glob("*.hlo"))
LOGS = sorted((DATA / "logs").glob("*.log"))


def run_json(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--json"]) in (0, 1)
    return json.loads(out.getvalue())


def _loads_nothing(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page.replace(
        'href="https://openxla.org/', "")), "external resource"
    assert "@import" not in page and not re.search(r"url\((?!#)", page)  # only in-page SVG markers
    assert page.count("<script>") == 1


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_offload_scenario_renders(path: Path):
    doc = run_json("offload", str(path))
    page = render_offload_html(doc)
    _loads_nothing(page)
    assert page.count('<article class="e1200"') == len(doc["details"]["errors"])
    for err in doc["details"]["errors"]:
        for hop in err["path"]:
            assert f'data-instruction="{html.escape(hop["instruction"])}"' in page
        assert html.escape(err["message"].splitlines()[0]) in page
    for f in doc["details"]["failures"]:
        assert html.escape(f["message"]) in page


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
@pytest.mark.parametrize("lang", ["en", "fa"])
def test_every_seed_log_renders(path: Path, lang: str):
    doc = run_json("explain", str(path), "--lang", lang)
    page = render_explain_html(doc)
    _loads_nothing(page)
    assert page.count('<article class="finding"') == len(doc["findings"])
    assert f'<html lang="{lang}" dir="{"rtl" if lang == "fa" else "ltr"}">' in page


def test_check_document_with_every_kind_of_entry_renders():
    doc = run_json("check", str(DATA / "offload" / "M1_every_offending_output.hlo"), str(LOGS[0]))
    doc["files"] += [{"path": "x.pb", "kind": "skipped", "note": "not text", "findings": 0},
                     {"path": "bad.hlo", "kind": "error", "error": "bad.hlo:1:1: expected HloModule",
                      "findings": 0}]
    page = render_check_html(doc, title="nightly")
    _loads_nothing(page)
    assert "<title>nightly</title>" in page and "expected HloModule" in page and "x.pb" in page


def test_persian_prose_isolates_code_but_not_its_sentence_punctuation():
    out = prose('بدهید (مثلاً NamedSharding(mesh, memory_kind="pinned_host")).', "fa")
    assert out.endswith('<bdi dir="ltr">NamedSharding(mesh, memory_kind=&quot;pinned_host&quot;)</bdi>).')
    assert prose("a <b>", "en") == "a &lt;b&gt;"


def test_explain_hlo_path_box_shows_python_lines_not_dicts():
    """explain --hlo keeps offload's errors as records (a hop's location is an object there);
    the path box draws it as file:line, as for offload's own document (issue 10)."""
    examples = Path(__file__).parent.parent / "src" / "xladoctor" / "examples"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["explain", str(examples / "tpu_job.log"), "--hlo", str(examples / "e1200_offloaded_activation.hlo"),
              "--json", "--lang", "en"])
    doc = json.loads(out.getvalue())
    e1200 = next(f for f in doc["findings"] if f["code"] == "E1200")
    assert isinstance(e1200["analysis"]["offload"]["errors"][0]["path"][0]["location"], dict)
    page = html.unescape(render_explain_html(doc))
    assert "/home/user/model.py:23" in page and "{'file'" not in page
