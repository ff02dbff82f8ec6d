"""Browser tests of the HTML report: real documents from the real commands, opened in chromium.

Every page is rendered from what ``xladoctor offload|inputs|explain|check --json``
print for real inputs (XLA's own offload scenarios, the E0102 seed, the seed
logs, a real jax program lowered for TPU), written to a file and opened with
Debian's chromium through Playwright.  Each page must: show the key elements
(E1200 hops in order, the offending output highlighted, the seed's padded
dimension 40 -> 128), log no console error, request nothing but the file
itself, lay Persian out right-to-left, and keep hostile text inert.

One browser per module; pages are cheap.  Skipped only when playwright or
/usr/bin/chromium is missing (CI installs both).  A screenshot of each report
type is written under tmp_path for a person to look at.
"""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from pathlib import Path

import pytest

from jax_programs import hlo_of_script
from xladoctor.cli.main import main
from xladoctor.report.html import render_check_html, render_explain_html, render_inputs_html, render_offload_html

DATA = Path(__file__).resolve().parent / "data"
OFFLOAD = DATA / "offload"
LOGS = DATA / "logs"
HOSTILE = "</script><img src=x onerror=alert(1)>"

SEED_EXPECTED = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"
SEED_SUPPLIED = "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"


# -- running the real commands -----------------------------------------------------------

def run_json(*argv: str) -> dict:
    """``xladoctor ARGV --json`` in-process; the parsed document."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main([*argv, "--json"])
    assert rc in (0, 1), (argv, rc)
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def seed_inputs_doc(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("seed")
    filler = "f32[8,128]{1,0:T(8,128)}\n" * 3
    (d / "expected.txt").write_text(filler + SEED_EXPECTED + "\n")
    (d / "supplied.txt").write_text(filler + SEED_SUPPLIED + "\n")
    return run_json("inputs", str(d / "expected.txt"), "--supplied-shapes", str(d / "supplied.txt"),
                    "--executable", "jit_embedding_pipeline_step_fn")


# -- the browser -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(chromium):
    return chromium


class Opened:
    """A page opened from a file, with everything it tried to do recorded."""

    def __init__(self, page, url: str):
        self.page, self.url = page, url
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.console_errors: list[str] = []
        self.dialogs: list[str] = []

    def assert_quiet(self) -> None:
        """No console error, no dialog, no request other than the file itself."""
        assert self.console_errors == []
        assert self.dialogs == []
        assert self.blocked == []
        assert self.requests == [self.url]


@pytest.fixture
def open_html(browser, tmp_path):
    opened: list = []

    def _open(html: str, name: str = "report") -> Opened:
        path = tmp_path / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        url = path.as_uri()
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        o = Opened(page, url)

        def route(r):
            o.requests.append(r.request.url)
            if r.request.url.startswith("file://"):
                r.continue_()
            else:
                o.blocked.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        page.on("console", lambda m: o.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: o.console_errors.append(str(e)))
        page.on("dialog", lambda d: (o.dialogs.append(d.message), d.dismiss()))
        page.goto(url)
        page.wait_for_load_state("load")
        opened.append(context)
        return o

    yield _open
    for c in opened:
        c.close()


def screenshot(o: Opened, tmp_path: Path, name: str) -> Path:
    out = tmp_path / f"{name}.png"
    o.page.screenshot(path=str(out), full_page=True)
    assert out.stat().st_size > 10_000
    return out


# -- E1200 ------------------------------------------------------------------------------

def _node_instructions(o: Opened, root: str = "article.e1200") -> list[str]:
    return o.page.eval_on_selector_all(f"{root} svg.flow g.node", "els => els.map(e => e.dataset.instruction)")


def test_e1200_path_hops_in_order_and_output_highlighted(open_html, tmp_path):
    doc = run_json("offload", str(OFFLOAD / "J1_annotate_device_placement_jax_style.hlo"))
    assert doc["details"]["outcome"] == "E1200"
    o = open_html(render_offload_html(doc), "offload")
    o.assert_quiet()
    err = doc["details"]["error"]
    expected = [h["instruction"] for h in err["path"]] + ["output {0}"]
    assert _node_instructions(o) == expected
    nodes = o.page.locator("article.e1200 svg.flow g.node")
    ys = []
    for i in range(nodes.count()):
        assert nodes.nth(i).is_visible()
        ys.append(nodes.nth(i).bounding_box()["y"])
    assert ys == sorted(ys) and len(set(ys)) == len(ys)  # drawn top to bottom, one per row
    # the move-to-host sits on the device side, every later hop in host memory, the output back on device
    lanes = o.page.eval_on_selector_all("article.e1200 g.node", "els => els.map(e => e.dataset.lane)")
    assert lanes == ["device", "host", "host", "device"]
    out = o.page.locator("article.e1200 g.node.output rect.box")
    assert out.is_visible()
    assert out.evaluate("e => getComputedStyle(e).stroke") == "rgb(198, 40, 40)"
    assert o.page.locator("article.e1200 path.edge.bad").count() == 1
    # XLA's exact message, copyable; both fixes side by side
    message = o.page.locator("article.e1200 pre.xla-message").inner_text()
    assert message == err["message"]
    host_fix, dev_fix = o.page.locator(".fix-host"), o.page.locator(".fix-device")
    assert err["fix"]["host"]["entry_result_layout"] in host_fix.inner_text()
    assert "tanh.1" in dev_fix.inner_text()
    hb, db = host_fix.bounding_box(), dev_fix.bounding_box()
    assert abs(hb["y"] - db["y"]) < 2 and hb["x"] + hb["width"] <= db["x"]
    # the vmodule trace is there, folded
    assert "Instruction trace leading to error:" in o.page.locator("details.vmodule pre").text_content()
    screenshot(o, tmp_path, "offload")


def test_every_offending_output_gets_its_own_drawing(open_html):
    doc = run_json("offload", str(OFFLOAD / "M1_every_offending_output.hlo"))
    o = open_html(render_offload_html(doc))
    o.assert_quiet()
    arts = o.page.locator("article.e1200")
    assert arts.count() == 2
    assert _node_instructions(o, "article.e1200:nth-of-type(1)")[:3] == ["mth0", "t0", "out"]
    assert "XLA reports this one" in arts.nth(0).inner_text()
    assert "also offending" in arts.nth(1).inner_text()


def test_host_compute_failures_and_silent_host_outputs_are_listed(open_html):
    crash = run_json("offload", str(OFFLOAD / "71_move_to_host_tuple.hlo"))
    moved = run_json("offload", str(OFFLOAD / "D1b_tanh_root_untiled_output.hlo"), "--rule", "unmerged-pr-36525")
    o = open_html(render_offload_html(crash), "crash")
    o.assert_quiet()
    assert "CHECK failure" in o.page.locator("details.failures").inner_text()
    o = open_html(render_offload_html(moved), "moved")
    o.assert_quiet()
    assert o.page.locator("header.top .badge").inner_text() == "warnings"
    text = o.page.locator("details.moved").inner_text()
    assert moved["details"]["outputs_moved_to_host"][0]["new_layout"] in text
    assert o.page.locator("details.host-compute li").count() == len(moved["details"]["host_compute"])


# -- E0102 ------------------------------------------------------------------------------

def test_e0102_seed_padded_dimension_40_to_128(open_html, tmp_path, seed_inputs_doc):
    o = open_html(render_inputs_html(seed_inputs_doc), "inputs")
    o.assert_quiet()
    art = o.page.locator("article.e0102")
    assert art.count() == 1
    padded = art.locator(".side.expected .dimrow.padded")
    assert padded.count() == 1
    assert (padded.get_attribute("data-dim"), padded.get_attribute("data-size"),
            padded.get_attribute("data-padded")) == ("2", "40", "128")
    assert padded.is_visible() and "40 \u2192 128" in padded.inner_text()
    # the padding is drawn: the striped part is 88/128 of the track, the logical part 40/128
    track = padded.locator(".track").bounding_box()["width"]
    pad = padded.locator(".bar.pad").bounding_box()["width"]
    logical = padded.locator(".bar.logical").bounding_box()["width"]
    assert pad == pytest.approx(track * 88 / 128, abs=1.5)
    assert logical == pytest.approx(track * 40 / 128, abs=1.5)
    assert art.locator(".side.supplied .dimrow.padded").count() == 0
    # total bytes: expected 3.2x the supplied buffer
    rows = art.locator(".bytes .byterow")
    e_w = sum(b.bounding_box()["width"] for b in rows.nth(0).locator(".bar").all())
    s_w = sum(b.bounding_box()["width"] for b in rows.nth(1).locator(".bar").all())
    assert e_w / s_w == pytest.approx(3.2, rel=0.02)
    text = art.inner_text()
    for piece in ("Layout(major_to_minor=(0, 1, 2), tiling=((8, 128), (2, 1)))",
                  "Layout(major_to_minor=(0, 2, 1), tiling=((8, 128), (2, 1)))", "5,242,880 B", "1,638,400 B"):
        assert piece in text
    assert seed_inputs_doc["messages"]["tpu"] in o.page.locator("details.messages").inner_text()
    screenshot(o, tmp_path, "inputs")


# -- log findings, Persian ----------------------------------------------------------------

def test_explain_cards_and_persian_right_to_left(open_html, tmp_path):
    doc = run_json("explain", str(LOGS / "seeds.log"), "--lang", "fa")
    o = open_html(render_explain_html(doc), "explain_fa")
    o.assert_quiet()
    cards = o.page.locator("article.finding")
    assert [cards.nth(i).get_attribute("data-code") for i in range(cards.count())] == ["E0102", "E1200"]
    fixes = cards.nth(0).locator(".fixes-prose")
    assert fixes.get_attribute("lang") == "fa"
    assert fixes.evaluate("e => getComputedStyle(e).direction") == "rtl"
    # code inside Persian prose stays left-to-right; so do the log message and the fields
    assert fixes.locator("bdi").count() > 0
    assert {d for d in fixes.locator("bdi").evaluate_all("els => els.map(e => getComputedStyle(e).direction)")} == {"ltr"}
    assert cards.nth(0).locator("pre.log-line").evaluate("e => getComputedStyle(e).direction") == "ltr"
    assert cards.nth(0).locator("table.kv").first.evaluate("e => getComputedStyle(e).direction") == "ltr"
    # the E0102 finding draws the seed's padding too
    padded = cards.nth(0).locator(".side.expected .dimrow.padded")
    assert (padded.get_attribute("data-size"), padded.get_attribute("data-padded")) == ("40", "128")
    link = cards.nth(1).locator("p.doclink a")
    assert link.get_attribute("href") == "https://openxla.org/xla/errors/error_1200"
    screenshot(o, tmp_path, "explain_fa")


def test_explain_e1200_trace_from_the_log_is_drawn(open_html):
    doc = run_json("explain", str(LOGS / "traceback_e1200.log"))
    o = open_html(render_explain_html(doc))
    o.assert_quiet()
    trace = [h["instruction"] for h in doc["findings"][0]["analysis"]["trace"]]
    assert _node_instructions(o, "article.finding") == trace + ["output"]


# -- hostile text ------------------------------------------------------------------------

HOSTILE_HLO = textwrap.dedent(f"""\
    HloModule hostile, entry_computation_layout={{(f32[8,128]{{1,0}})->f32[8,128]{{1,0:T(8,128)}}}}

    FileNames
    1 "/src/{HOSTILE}.py"

    FunctionNames
    1 "{HOSTILE}"

    FileLocations
    1 {{file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}}

    StackFrames
    1 {{file_location_id=1 parent_frame_id=0}}

    ENTRY main {{
      p = f32[8,128]{{1,0}} parameter(0), metadata={{op_name="{HOSTILE}" stack_frame_id=1}}
      mth = f32[8,128]{{1,0}} custom-call(p), custom_call_target="MoveToHost", metadata={{op_name="{HOSTILE}" stack_frame_id=1}}
      ROOT t = f32[8,128]{{1,0}} tanh(mth), metadata={{op_name="{HOSTILE}" stack_frame_id=1}}
    }}
    """)

HOSTILE_LOG = (
    f"step 1 {HOSTILE}\n"
    f"INVALID_ARGUMENT: Executable(jit_{HOSTILE}) expected parameter 0 of size 5242880 ({SEED_EXPECTED}) "
    f"but got buffer with incompatible size 1638400 ({SEED_SUPPLIED})\n"
    f"INVALID_ARGUMENT: Tensor which is moved to host (starting from {HOSTILE}) is returned from the entry "
    "computation but the layout for this output is not set to host memory.\n")


def _assert_inert(o: Opened) -> None:
    o.assert_quiet()
    assert o.page.locator("img").count() == 0
    assert o.page.locator("script").count() - o.page.locator('script[type="application/json"]').count() == 1  # ours
    assert o.page.locator('script[type="application/json"]').count() <= 1  # the diagnostics data block
    assert HOSTILE in o.page.locator("body").inner_text()  # shown as text, not swallowed


def _embedded(o: Opened):
    """The diagnostics document as the browser reads it back from the page."""
    return o.page.evaluate("JSON.parse(document.getElementById('xladoctor-diagnostics').textContent)")


def test_hostile_strings_in_hlo_and_logs_are_inert(open_html, tmp_path):
    hlo = tmp_path / "hostile.hlo"
    hlo.write_text(HOSTILE_HLO)
    log = tmp_path / "hostile.log"
    log.write_text(HOSTILE_LOG)
    doc = run_json("check", str(hlo), str(log), "--lang", "en")
    locations = [h.get("location") for f in doc["files"] if f["kind"] == "hlo"
                 for e in f["offload"]["details"]["errors"] for h in e["path"]]
    assert any(loc and HOSTILE in loc for loc in locations)  # the hostile file name reaches the drawing
    opened = open_html(render_check_html(doc), "hostile_check")
    _assert_inert(opened)
    assert _embedded(opened) == doc["diagnostics"]  # hostile text cannot end or alter the data block


def test_hostile_strings_everywhere_in_a_document_are_inert(open_html, seed_inputs_doc):
    """Every string of real documents replaced by hostile text (keys and numbers kept)."""
    def poison(v):
        if isinstance(v, dict):
            return {k: (v[k] if k in ("lang", "kind", "command") else poison(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [poison(x) for x in v]
        return HOSTILE + '"\'&' if isinstance(v, str) else v

    offload = run_json("offload", str(OFFLOAD / "M1_every_offending_output.hlo"))
    explain = run_json("explain", str(LOGS / "seeds.log"))
    doc = {"command": "check", "findings": 3, "files": [
        {"path": "a.hlo", "kind": "hlo", "findings": 2, "offload": offload,
         "hlo": run_json("hlo", str(OFFLOAD / "M1_every_offending_output.hlo"))},
        {"path": "b.log", "kind": "log", "findings": 2, "explain": explain},
        {"path": "c", "kind": "error", "error": "x", "findings": 0}], "inputs": [seed_inputs_doc]}
    for render in (lambda: render_check_html(poison(doc), title=HOSTILE),
                   lambda: render_offload_html(poison(offload)),
                   lambda: render_inputs_html(poison(seed_inputs_doc)),
                   lambda: render_explain_html(poison(explain))):
        _assert_inert(open_html(render()))


# -- check, end to end ------------------------------------------------------------------

def test_check_html_end_to_end(open_html, tmp_path):
    out = tmp_path / "check.html"
    files = [str(OFFLOAD / "M1_every_offending_output.hlo"), str(OFFLOAD / "11_basic_no_copy.hlo"),
             str(LOGS / "seeds.log")]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", *files, "--html", str(out), "--lang", "en"]) == 1
    o = open_html(out.read_text(encoding="utf-8"), "check")
    o.assert_quiet()
    tiles = o.page.locator(".summary .tile b").all_inner_texts()
    assert tiles[:2] == ["3", "4"]  # files checked, findings (2 x E1200 + 2 log findings)
    codes = o.page.locator(".summary .codes").inner_text()
    assert "E1200 \u00d73" in codes and "E0102 \u00d71" in codes  # the log's E1200 counts too
    verdicts = o.page.locator("table.files tbody tr td:nth-child(3)").all_inner_texts()
    assert verdicts == ["E1200 predicted", "clean", "errors found"]
    # every table-of-contents link lands on an element of the page
    hrefs = o.page.eval_on_selector_all("nav.toc a", "els => els.map(e => e.getAttribute('href'))")
    assert len(hrefs) >= 6
    for h in hrefs:
        assert o.page.locator(h).count() == 1, h
    o.page.locator("nav.toc a", has_text="E1200 output {1}").click()
    assert o.page.locator("article.e1200").nth(1).is_visible()
    screenshot(o, tmp_path, "check")


# -- a real jax program ------------------------------------------------------------------

JAX_PROGRAM = textwrap.dedent("""\
    import sys
    import jax, jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    def f(x):
        y = jax.device_put(x * 2, SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host"))
        return jnp.tanh(y), x + 1

    args = (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
    lowered = jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",))
    sys.stdout.write(lowered.as_text("hlo", debug_info=True))
    """)


def test_real_jax_program_shows_python_lines(open_html, tmp_path):
    """jax's TPU lowering of a device_put to pinned_host that is returned: E1200 (released XLA)."""
    pytest.importorskip("jax")
    hlo = hlo_of_script(JAX_PROGRAM, tmp_path)
    script = hlo.with_suffix(".py")  # the Python lines the module's metadata names
    doc = run_json("offload", str(hlo))
    assert doc["details"]["outcome"] == "E1200"
    o = open_html(render_offload_html(doc), "jax")
    o.assert_quiet()
    texts = o.page.locator("article.e1200 svg.flow g.node").all_text_contents()
    assert f"{script}:6" in texts[0] and f"{script}:7" in texts[1]  # device_put line, tanh line
    assert f"{script}:7" in o.page.locator(".fix-device").inner_text()


_CHAR_X = """e => { const t = e.firstChild; const r = document.createRange(); const xs = [];
  for (const i of [0, t.length - 1]) { r.setStart(t, i); r.setEnd(t, i + 1); xs.push(r.getBoundingClientRect().x); }
  return xs; }"""


def test_check_in_persian_is_right_to_left_with_code_left_to_right(open_html, tmp_path):
    out = tmp_path / "check_fa.html"
    files = [str(OFFLOAD / "J1_annotate_device_placement_jax_style.hlo"), str(LOGS / "seeds.log")]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["check", *files, "--html", str(out), "--lang", "fa"]) == 1
    o = open_html(out.read_text(encoding="utf-8"), "check_fa")
    o.assert_quiet()
    assert o.page.locator("html").get_attribute("lang") == "fa"
    assert o.page.locator("main").evaluate("e => getComputedStyle(e).direction") == "rtl"
    # code keeps its reading order: the layout's first character is drawn left of its last one
    first, last = o.page.locator(".hlo-card .ecl bdi").evaluate(_CHAR_X)
    assert first < last
    # the drawing is not mirrored: the device lane stays left of the host lane, hops in order
    assert o.page.locator("svg.flow").first.evaluate("e => getComputedStyle(e).direction") == "ltr"
    dev = o.page.locator("svg.flow rect.lane-device").first.bounding_box()["x"]
    host = o.page.locator("svg.flow rect.lane-host").first.bounding_box()["x"]
    assert dev < host
    assert _node_instructions(o)[:3] == ["device_put.3", "tanh.1", "tuple.1"]


# -- issue 11: long paths at phone, laptop and desktop widths; a legend for every colour ---------

LONG_DIR = ("a_very_long_directory_name_for_a_training_run_2026_12_01/"
            "another_quite_long_subdirectory_name_with_dumps")

_OVERFLOW_JS = """(w) => {
  const r = {doc: document.documentElement.scrollWidth, header: null, clipped: []};
  const h = document.querySelector('header.top');
  r.header = [h.scrollWidth, h.clientWidth];
  for (const sel of ['header.top h1', 'header.top .badge.big', 'header.top .brand']) {
    const e = document.querySelector(sel); const b = e.getBoundingClientRect();
    if (b.left < 0 || b.right > w || e.scrollWidth > e.clientWidth + 1) r.clipped.push(sel);
  }
  return r; }"""


def _long_path_pages(tmp_path: Path) -> dict[str, str]:
    d = tmp_path / LONG_DIR
    d.mkdir(parents=True)
    hlo = d / "module_0001.jit_train_step.before_optimizations_with_a_long_suffix.hlo"
    hlo.write_text((OFFLOAD / "M1_every_offending_output.hlo").read_text())
    check = run_json("check", str(hlo), str(sorted(LOGS.glob("*.log"))[0]))
    exp, sup = d / "expected_shapes_of_the_exported_model.txt", d / "supplied_shapes_from_the_checkpoint.txt"
    exp.write_text(SEED_EXPECTED + "\n")
    sup.write_text(SEED_SUPPLIED + "\n")
    page = tmp_path / "inputs.html"
    assert main(["inputs", str(exp), "--supplied-shapes", str(sup), "--html", str(page)]) == 1
    return {"check": render_check_html(check, title=f"xladoctor: {hlo}"), "inputs": page.read_text()}


@pytest.mark.parametrize("width", [390, 1024, 1920])
def test_long_paths_never_push_the_header_or_page_wider_than_the_window(browser, tmp_path, width):
    for name, html_text in _long_path_pages(tmp_path / str(width)).items():
        path = tmp_path / f"{name}-{width}.html"
        path.write_text(html_text, encoding="utf-8")
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(path.as_uri())
        r = page.evaluate(_OVERFLOW_JS, width)
        page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
        context.close()
        assert r["clipped"] == [], (name, width, r)
        assert r["header"][0] <= r["header"][1], (name, width, r)
        assert r["doc"] <= width, (name, width, r)


def test_every_colour_of_the_e1200_drawing_has_a_legend_entry():
    doc = run_json("offload", str(OFFLOAD / "M1_every_offending_output.hlo"))
    page = render_offload_html(doc)
    legend = page[page.index('<div class="legend">'):]
    for kind in ("device", "host", "out", "origin", "edge-cross", "edge-bad"):
        assert f'<i class="{kind}">' in legend, kind
    # the drawing uses exactly these: lanes, origin/output boxes, crossing and offending edges
    assert 'class="edge cross"' in page or 'class="edge bad"' in page
    assert '<i class="del">' in page and '<i class="ins">' in page  # the layout diff of fix (a)


def test_badge_colours_are_explained_once_per_page(seed_inputs_doc):
    page = render_check_html(run_json("check", "--examples"))
    footer = page[page.index('<footer class="legend colours"'):page.index("</footer>")]
    for tone in ("bad", "ok"):
        assert f'<i class="tone {tone}">' in footer
    assert page.count('<footer class="legend colours"') == 1
    inputs = render_inputs_html(seed_inputs_doc)
    assert '<i class="tone bad">' in inputs and "error found or predicted" in inputs


def test_inputs_html_is_written(tmp_path, capsys):
    exp, sup, out = tmp_path / "e.txt", tmp_path / "s.txt", tmp_path / "inputs.html"
    exp.write_text(SEED_EXPECTED + "\n")
    sup.write_text(SEED_SUPPLIED + "\n")
    assert main(["inputs", str(exp), "--supplied-shapes", str(sup), "--html", str(out)]) == 1
    captured = capsys.readouterr()
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "E0102" in page and "40" in page and "128" in page
    assert f"wrote HTML report ({len(page.encode()):,} bytes) to {out}" in captured.err  # the one writer: atomic
