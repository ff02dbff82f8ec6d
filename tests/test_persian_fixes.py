"""``--lang fa`` reaches the fixes: the fix sentences of ``check`` and the "In JAX" texts of the
HTML report were English inside Persian (issue 22 item 4).  Run as a user runs them: the CLI
in a subprocess, the page in Chromium."""

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
ENGLISH = ("keep it on host", "bring it back", "a sharding with", "on the returned value")


def xladoctor(*argv: str) -> str:
    p = subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1, p.stderr
    return p.stdout


def test_check_in_persian_gives_its_fixes_in_persian():
    out = xladoctor("check", E1200, "--lang", "fa", "--bidi", "logical")
    fixes = [line for line in out.splitlines() if "(a)" in line or "(b)" in line]
    assert len(fixes) == 2 and "روی میزبان بماند" in fixes[0] and "به دستگاه برگردد" in fixes[1]
    assert not [w for w in ENGLISH if w in out]
    assert "{0} -> f32[16,256]{1,0:T(8,128)S(5)}" in fixes[0]  # the code itself is not translated
    doc = json.loads(xladoctor("check", E1200, "--lang", "fa", "--json"))
    texts = [f["text"] for d in doc["diagnostics"]["findings"] for f in d["fixes"]]
    assert texts and all("JAX: " in t and not [w for w in ENGLISH if w in t] for t in texts)
    assert "در out_shardings به خروجی {0} یک sharding" in texts[0]  # the glossary's name for the output, in Persian


@pytest.mark.parametrize("command", ["check", "offload"])
def test_the_html_in_persian_says_in_jax_in_persian(tmp_path, command):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not installed")
    page_file = tmp_path / "r.html"
    subprocess.run([sys.executable, "-m", "xladoctor", command, str(E1200), "--lang", "fa", "--html",
                    str(page_file)], capture_output=True, timeout=120)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri())
            assert page.evaluate("document.documentElement.dir") == "rtl"
            assert page.locator("svg").count() >= 1  # the path is drawn
            in_jax = page.locator("p.jax").all_inner_texts()
            headings = page.locator(".fix h5").all_inner_texts()
        finally:
            browser.close()
    assert len(in_jax) == 2 and all(t.startswith("در JAX") for t in in_jax), in_jax
    assert not [w for t in in_jax + headings for w in ENGLISH if w in t.lower()]
    assert 'memory_kind="pinned_host"' in in_jax[0] and "jax.device_put(x, device_sharding)" in in_jax[1]
    assert any("روی میزبان بماند" in h for h in headings)


def test_fleet_summarises_in_persian(tmp_path):
    """fleet had no --lang: its summary is in the language asked, counted nouns included."""
    job = tmp_path / "runs" / "job-a"
    job.mkdir(parents=True)
    (job / "tpu.log").write_text((EXAMPLES / "tpu_job.log").read_text())
    out = xladoctor("fleet", tmp_path / "runs", "--lang", "fa", "--bidi", "logical")
    first = out.splitlines()[0]
    assert "فایل از" in first and "پیام خطا" in first and "checked" not in out and "by job" not in out
    assert "E0102 x3, E1200 x1" in out  # the codes and counts stay as written


def test_the_undecidable_warning_is_in_persian(tmp_path):
    """A bare JAX lowering gets no verdict, one warning: it was English inside ``check --lang fa``."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    x = jax.ShapeDtypeStruct((8, 128), jnp.float32,
                             sharding=SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host"))
    low = jax.jit(lambda v: v * 2.0).trace(x).lower(lowering_platforms=("tpu",))
    (tmp_path / "step.hlo").write_text(low.as_text("hlo"))
    out = xladoctor("check", tmp_path / "step.hlo", "--lang", "fa", "--bidi", "logical")
    assert "بدون حکم" in out and "NO VERDICT" not in out and "1 argument" not in out
    assert 'open("' in out and 'step.mlir", "w").write(lowered.as_text())' in out  # the code stays as written
    english = xladoctor("check", tmp_path / "step.hlo")
    assert "NO VERDICT" in english and "which memory its 1 argument and its outputs are in" in english
