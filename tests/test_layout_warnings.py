"""Issue 35 item 6: layouts jaxlib's parser keeps and XLA's shape validation refuses are read as
jaxlib reads them, with a warning finding (E0002, the rule, line:col, the instruction, what XLA does
with it) in ``hlo``, ``offload`` and ``check --full``, their JSON and SARIF; inside a tuple, where
jaxlib refuses them too, they stay refusals.  What XLA does was measured with libtpu 0.0.42.1
compile-only (an instruction's own shape: INVALID_ARGUMENT; a declared operand shape: compiles)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from hlo_snippets import entry
from json_schema_check import schema_errors
from xladoctor.base.errors import HloParseError
from xladoctor.cli.main import main
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.shape_parser import parse_shape

SIX = "p6 = f32[2,3]{1,0} parameter(1)"
# name -> (ROOT line, rule, role); each kept by jaxlib 0.10.2's parser (tests/test_jaxlib_differential.py)
CASES = {
    "duplicate minor_to_major": ("ROOT n = f32[2,3]{0,0} negate(p6)", "minor-to-major", "result"),
    "out-of-range minor_to_major": ("ROOT n = f32[2,3]{9,0} negate(p6)", "minor-to-major", "result"),
    "a zero tile": ("ROOT n = f32[2,3]{1,0:T(0)} negate(p6)", "tile", "result"),
    "an empty tile": ("ROOT n = f32[2,3]{1,0:T()} negate(p6)", "tile", "result"),
    "a negative element size": ("ROOT n = f32[2,3]{1,0:E(-1)} negate(p6)", "element-size", "result"),
    "a signed index type": ("ROOT n = f32[2,3]{1,0:#(s32)} negate(p6)", "index-type", "result"),
    "a declared operand shape": ("ROOT n = f32[2,3]{1,0} negate(f32[2,3]{9,0} p6)", "minor-to-major", "operand"),
}


def _text(root: str) -> str:
    return entry(SIX, root)


@pytest.mark.parametrize("case", CASES)
def test_the_module_is_read_with_a_warning_naming_the_rule(case):
    root, rule, role = CASES[case]
    module = parse_module(_text(root), "w.hlo")
    (w,) = module.layout_warnings
    assert (w.rule, w.role, w.line, w.instruction) == (rule, role, 6, "n")
    assert _text(root).split("\n")[5][w.column - 1] in "{0-#(s)"  # the layout, or the field in it
    assert str(module.entry.root.shape) == "f32[2,3]{1,0}"  # the default layout: every analysis can index it


def test_inside_a_tuple_it_stays_a_refusal_as_jaxlib_refuses_it():
    with pytest.raises(HloParseError, match="duplicate values"):
        parse_module(entry("ROOT t = (f32[2,3]{0,0}) parameter(1)"), "t.hlo")


def test_a_shape_read_alone_is_still_refused():
    with pytest.raises(HloParseError, match="duplicate values"):
        parse_shape("f32[2,3]{0,0}")


def test_every_use_warns_even_when_the_spelling_was_read_before():
    text = entry(SIX, "a = f32[2,3]{0,0} negate(p6)", "ROOT b = f32[2,3]{0,0} negate(a)")
    parse_module(text, "first.hlo")  # the fast path caches shapes by spelling, across parses
    assert [w.instruction for w in parse_module(text, "again.hlo").layout_warnings] == ["a", "b"]


def test_hlo_offload_and_check_show_it(tmp_path, capsys):
    path = tmp_path / "w.hlo"
    path.write_text(_text(CASES["duplicate minor_to_major"][0]))
    head = f"{path}:6:20: warning: E0002 InvalidArgument [layout minor-to-major] in 'n': layout minor_to_major"
    assert main(["hlo", str(path)]) == 0
    assert capsys.readouterr().out.startswith(head)
    assert main(["offload", str(path)]) == 1  # the compile refuses it: the verdict says so too
    out = capsys.readouterr().out
    assert out.startswith(head) and "the compile refuses it" in out and "XLA would fail" in out
    assert main(["check", "--full", str(path)]) == 1
    assert head in capsys.readouterr().out


def test_a_declared_operand_shape_warns_and_the_module_compiles(tmp_path, capsys):
    path = tmp_path / "w.hlo"
    path.write_text(_text(CASES["a declared operand shape"][0]))
    assert main(["offload", str(path)]) == 1  # the warning is a finding
    out = capsys.readouterr().out
    assert "keeps nothing of it" in out and "no host-offload error predicted" in out


def test_json_and_sarif_carry_it(tmp_path, capsys):
    path = tmp_path / "w.hlo"
    path.write_text(_text(CASES["a zero tile"][0]))
    main(["offload", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert schema_errors(doc, "offload") == []
    (f,) = [f for f in doc["diagnostics"]["findings"] if f["kind"] == "layout-warning"]
    assert (f["code"], f["severity"], f["fields"]["rule"], f["fields"]["role"]) == ("E0002", "warning", "tile", "result")
    main(["hlo", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert schema_errors(doc, "hlo") == []
    assert doc["layout_warnings"][0]["rule"] == "tile" and doc["layout_warnings"][0]["line"] == 6
    main(["offload", str(path), "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    warned = [r for r in results if r["level"] == "warning"]
    assert warned and warned[0]["ruleId"] == "E0002"
    assert warned[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 6


def test_a_module_without_bad_layouts_keeps_its_summary_as_it_was(tmp_path, capsys):
    path = tmp_path / "ok.hlo"
    path.write_text(_text("ROOT n = f32[2,3]{1,0} negate(p6)"))
    main(["hlo", str(path), "--json"])
    assert "layout_warnings" not in json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------ issue 35's leftovers: check's
# triage, the HTML card and `shape` (each failed before: check said "nothing to analyse", the page
# drew no card, shape refused with exit 2)


@pytest.mark.parametrize("case", CASES)
def test_the_triage_sends_a_module_with_a_warned_layout_to_the_parse(case):
    from xladoctor.triage.hlo_triage import triage

    t = triage(_text(CASES[case][0]).encode(), compiled=False)
    assert t.tokens == () and t.layouts and t.analyse
    assert not triage(_text("ROOT n = f32[2,3]{1,0:T(2,128)} negate(p6)").encode(), compiled=False).analyse


@pytest.mark.parametrize("case", CASES)
def test_check_without_full_gives_the_warnings_offload_gives(tmp_path, capsys, case):
    path = tmp_path / "w.hlo"
    path.write_text(_text(CASES[case][0]))
    offload_rc = main(["offload", str(path), "--json"])
    offload = [f for f in json.loads(capsys.readouterr().out)["diagnostics"]["findings"]
               if f["kind"] == "layout-warning"]
    assert main(["check", str(path), "--json"]) == offload_rc == 1
    doc = json.loads(capsys.readouterr().out)
    assert schema_errors(doc, "check") == []
    assert [f for f in doc["diagnostics"]["findings"] if f["kind"] == "layout-warning"] == offload
    assert main(["check", str(path)]) == 1
    assert f"{path}:6:" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["offload", "check"])
@pytest.mark.parametrize("case", ["duplicate minor_to_major", "a declared operand shape"])
def test_the_html_report_draws_a_card_for_each_layout_warning(tmp_path, capsys, command, case):
    path = tmp_path / "w.hlo"
    path.write_text(_text(CASES[case][0]))
    main([command, str(path), "--html", str(tmp_path / "r.html")])
    capsys.readouterr()
    page = (tmp_path / "r.html").read_text()
    (card,) = page.split('<article class="layout-warning">')[1:]
    card = card.split("</article>")[0]
    assert "E0002" in card and f"(rule {CASES[case][1]})" in card and "w.hlo:6:" in card and "<bdi dir=\"ltr\" class=\"mono\">n</bdi>" in card
    assert ("the compile refuses it" if CASES[case][2] == "result" else "keeps nothing of it") in card
    if CASES[case][2] == "operand":  # no failure, but not clean either: the page's badge says warning
        assert "verdict_clean" not in page and 'class="badge warn"' in page


@pytest.mark.parametrize("text,rule,column", [("f32[2,3]{0,0}", "minor-to-major", 9),
                                              ("f32[2,3]{1,0:T(0)}", "tile", 16),
                                              ("f32[2,3]{1,0:E(-1)}", "element-size", 16),
                                              ("b(f32[2,3]{9,0})", "minor-to-major", 11)])
def test_shape_accepts_what_jaxlib_keeps_with_the_same_warning(capsys, text, rule, column):
    assert main(["shape", text, "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert schema_errors(doc, "shape") == []
    (w,) = doc["layout_warnings"]
    assert (w["rule"], w["line"], w["column"]) == (rule, 1, column)
    assert err == f"<shape>:1:{column}: warning: E0002 InvalidArgument [layout {rule}]: {w['message']}\n"
    assert "{1,0}" in doc["shape"]  # read, and sized, with the default layout
    assert main(["shape", text]) == 0
    assert capsys.readouterr().err == err


def test_shape_on_stdin_puts_the_warning_on_its_line(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"f32[4]{0}\n  f32[2,3]{0,0}\n")))
    assert main(["shape", "-", "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert schema_errors(doc, "shape") == []
    assert "layout_warnings" not in doc["shapes"][0]
    assert doc["shapes"][1]["layout_warnings"][0]["line"] == 2 and err.startswith("<stdin>:2:11: warning: E0002")


def test_shape_still_refuses_it_inside_a_tuple_as_jaxlib_does(capsys):
    assert main(["shape", "(f32[2,3]{0,0})"]) == 2
    assert "duplicate values" in capsys.readouterr().err


# ------------------------------------------------------------------ a layout spelled across lines or
# around comments (h35h): XLA's lexer skips space, tab, CR, LF and comments between any two tokens, so
# each ROOT below is the warned `f32[2,3]{0,0}` to XLA's parser, to jaxlib's and to ours; the triage
# scanned one line at a time without comments, so `check` said "nothing to analyse" where `offload`
# warned (every case but the last failed before)
SPREAD = {
    "break before the layout": "ROOT n = f32[2,3]\n  {0,0} negate(p6)",
    "CRLF before the layout": "ROOT n = f32[2,3]\r\n{0,0} negate(p6)",
    "break inside the dimensions": "ROOT n = f32[2,\n3]{0,0} negate(p6)",
    "break after the brace": "ROOT n = f32[2,3]{\n0,0} negate(p6)",
    "break inside minor_to_major": "ROOT n = f32[2,3]{0,\n0} negate(p6)",
    "break inside the tiles": "ROOT n = f32[2,3]{1,0:\nT(0)} negate(p6)",
    "block comment before the layout": "ROOT n = f32[2,3]/*c*/{0,0} negate(p6)",
    "block comment after the brace": "ROOT n = f32[2,3]{/*c*/0,0} negate(p6)",
    "comment holding brackets": "ROOT n = f32[2,3] /* ]{[( */ {0,0} negate(p6)",
    "line comment before the layout": "ROOT n = f32[2,3] // {1,0}\n{0,0} negate(p6)",
    "line comment inside the layout": "ROOT n = f32[2,3]{0,0 // c\n} negate(p6)",
    "comment inside the dimensions": "ROOT n = f32[/* [ */2,3]{0,0} negate(p6)",
    "spaces everywhere": "ROOT n = f32[ 2 , 3 ] { 0 , 0 } negate(p6)",
}


@pytest.mark.parametrize("case", SPREAD)
def test_the_triage_sees_a_layout_spread_over_lines_or_comments(case):
    from xladoctor.triage.hlo_triage import triage

    text = _text(SPREAD[case])
    (w,) = parse_module(text, "w.hlo").layout_warnings  # the full parser reads it with its warning
    assert w.rule == ("tile" if "T(0)" in text else "minor-to-major")
    # ROOT n's own shape, wherever its layout's line is (a layout on a line of its own was said to be
    # "in the signature or entry layout": found by the device fuzz, stop 43)
    assert (w.role, w.instruction) == ("result", "n")
    assert triage(text.encode(), compiled=False).analyse  # and the triage sends it to that parse
    if importlib.util.find_spec("jaxlib") is None:  # [test] installs it from Python 3.11 on
        pytest.skip("jaxlib is not installed: our reading is checked, not that jaxlib's parser accepts it")
    from jaxlib_oracle import hlo_module_from_text

    hlo_module_from_text(text)  # jaxlib's parser accepts it (raises if not)


def test_the_triage_still_passes_over_a_clean_module_with_comments_and_breaks():
    # (a warned spelling inside a comment still sends the module to the parse, as it did before:
    # the scan does not know strings, so it reads commented text as written too)
    from xladoctor.triage.hlo_triage import triage

    text = _text("ROOT n = f32[2,3]\n  {1,0} /* the default [ */ negate(p6) // {(")
    assert not parse_module(text, "ok.hlo").layout_warnings
    assert not triage(text.encode(), compiled=False).analyse


def test_check_without_full_warns_of_a_layout_on_the_next_line(tmp_path, capsys):
    path = tmp_path / "w.hlo"
    path.write_text(_text(SPREAD["break before the layout"]))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:7:" in out and "E0002" in out


def test_shape_says_its_layout_warning_in_persian(monkeypatch, capsys):
    """Issue 38: the warning was English under --lang fa (no such option) and a Persian locale;
    now it is ``finding.layout_line`` in the reader's language, XLA's message as XLA wrote it."""
    from xladoctor.report.terminal_bidi import LRI, PDI, RLM

    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    assert main(["shape", "f32[2,3]{0,0}", "--json"]) == 0
    message = json.loads(capsys.readouterr().out)["layout_warnings"][0]["message"]
    assert main(["shape", "f32[2,3]{0,0}", "--lang", "fa", "--bidi", "logical"]) == 0
    err = capsys.readouterr().err
    assert err == (f"{RLM}{LRI}<shape>:1:9{PDI}: هشدار: {LRI}E0002 InvalidArgument{PDI} [چیدمان "
                   f"{LRI}minor-to-major{PDI}]: {LRI}{message}{PDI}\n")
    monkeypatch.setenv("LANG", "fa_IR.UTF-8")  # no --lang: the locale's, on the path argparse never sees
    assert main(["shape", "f32[2,3]{0,0}"]) == 0
    assert capsys.readouterr().err == err


def test_shape_in_persian_on_stdin_keeps_its_location_whole(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"f32[4]{0}\n  f32[2,3]{0,0}\n")))
    assert main(["shape", "-", "--lang", "fa", "--bidi", "visual"]) == 0
    err = capsys.readouterr().err
    # drawn for a terminal: the location at the right end, whole, XLA's words at the left
    assert err.rstrip("\n").endswith(" :<stdin>:2:11") and err.startswith("layout minor_to_major")
