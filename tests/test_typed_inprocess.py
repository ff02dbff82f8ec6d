"""Renderers take typed findings in-process; JSON is the output and the wire between processes
only (issue 20 item 5).  Every renderer route is run with JSON-to-findings parsing made to fail:
they must not need it.  Across ``check``'s worker processes the entries travel as JSON text."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.cli.main import main as cli_main
from xladoctor.findings import serialise, wire
from xladoctor.findings.model import Report

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
LOG = EXAMPLES / "tpu_job.log"


def _no_parsing(*_args, **_kwargs):
    raise AssertionError("findings were read back from JSON in-process")


def _cli(capsys, *argv) -> str:
    cli_main([str(a) for a in argv])
    return capsys.readouterr().out


def _subprocess(*argv) -> str:
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          timeout=120).stdout


ROUTES = [("check", E1200, "-j1"), ("check", E1200, "-j1", "--format", "sarif"),
          ("check", E1200, "-j1", "--format", "concise"), ("check", E1200, "-j1", "--statistics", "--ignore", "E0"),
          ("check", LOG, "-j1", "--lang", "fa", "--bidi", "logical"), ("offload", E1200, "--format", "github"),
          ("explain", LOG), ("explain", LOG, "--format", "sarif"), ("explain", E1200)]


@pytest.mark.parametrize("argv", ROUTES, ids=[" ".join(map(str, r[:1] + r[2:])) for r in ROUTES])
def test_renderers_never_parse_findings_in_process(argv, capsys, monkeypatch, tmp_path):
    expected = _subprocess(*argv)  # the same command, parsing allowed
    html = tmp_path / "page.html"
    with_html = (*argv, "--html", html) if "--format" not in argv and "--statistics" not in argv else argv
    for name in ("from_json", "finding_from_json"):
        monkeypatch.setattr(serialise, name, _no_parsing)
    monkeypatch.setattr(wire, "_read", _no_parsing)
    from xladoctor.findings import records

    monkeypatch.setattr(records, "record_from_json", _no_parsing)
    assert _cli(capsys, *with_html) == expected
    if with_html is not argv:
        assert 'id="xladoctor-diagnostics"' in html.read_text()


def test_json_is_the_wire_between_check_workers(capsys, tmp_path):
    from xladoctor.route.folder import check_path_wire
    from xladoctor.route.options import Options

    text = check_path_wire(str(E1200), True, Options(parallel_logs=True))
    assert isinstance(text, str)
    entry = wire.from_wire(text)
    diagnostics = entry["offload"]["diagnostics"]
    report = wire.report_of(diagnostics)
    assert isinstance(report, Report) and [f.code for f in report.findings] == ["E1200"]
    assert serialise.to_json(report) == json.loads(text)["offload"]["diagnostics"]  # typed once, losslessly
    # a typed diagnostics object never crosses a process boundary with its objects
    assert type(pickle.loads(pickle.dumps(diagnostics))) is dict
    # workers (-j2, several files) and the serial run give the same bytes
    for fmt in ((), ("--json",), ("--format", "sarif")):
        assert _cli(capsys, "check", "--examples", "-j2", *fmt) == _cli(capsys, "check", "--examples", "-j1", *fmt)


def test_a_document_from_outside_is_typed_once_at_the_boundary():
    doc = json.loads(_subprocess("offload", E1200, "--json"))
    loaded = wire.load_document(doc)
    assert wire.report_of(doc["diagnostics"]) is None and wire.report_of(loaded["diagnostics"]) is not None
    assert wire.load_document(loaded) is loaded  # already typed: nothing is parsed again
    assert json.dumps(loaded) == json.dumps(doc)


def test_a_compiled_modules_analysis_is_drawn_typed(capsys, monkeypatch, tmp_path):
    """A compiled module has no finding (XLA already ran the pass); its page drew the analysis'
    JSON records read back (hops_from_json, e1200_fixes_from_json).  In-process the records carry
    their typed finding, the same page in English, the fixes in the reader's language."""
    from xladoctor.findings import records

    module = tmp_path / "compiled.hlo"
    module.write_text(E1200.read_text().replace("HloModule jit_train_step,", "HloModule jit_train_step, is_scheduled=true,", 1))
    expected = tmp_path / "expected.html"
    _subprocess("offload", module, "--html", expected)
    for name in ("hops_from_json", "e1200_fixes_from_json", "record_from_json"):
        monkeypatch.setattr(records, name, _no_parsing)
    page = tmp_path / "page.html"
    _cli(capsys, "offload", module, "--html", page)
    assert page.read_text() == expected.read_text() and "fix-host" in page.read_text()
    _cli(capsys, "offload", module, "--html", page, "--lang", "fa")
    assert 'به خروجی <bdi dir="ltr">{0}</bdi> یک' in page.read_text() and "a sharding with" not in page.read_text()


def test_explain_hlo_analysis_is_drawn_typed(capsys, monkeypatch, tmp_path):
    """``explain LOG --hlo MODULE``'s E1200 path was the records' JSON read back into hops."""
    from xladoctor.findings import records

    expected, page = tmp_path / "expected.html", tmp_path / "page.html"
    _subprocess("explain", LOG, "--hlo", E1200, "--html", expected)
    monkeypatch.setattr(records, "hops_from_json", _no_parsing)
    monkeypatch.setattr(records, "record_from_json", _no_parsing)
    _cli(capsys, "explain", LOG, "--hlo", E1200, "--html", page)
    assert page.read_text() == expected.read_text() and 'data-instruction="custom-call.5"' in page.read_text()


def test_offload_json_and_html_view_one_document(capsys, monkeypatch, tmp_path):
    """``offload --json --html`` built its document twice (once per view); now once, and both
    views are the ones each flag gives alone."""
    from xladoctor.offload import report as offload_report

    alone_json = _cli(capsys, "offload", E1200, "--json")
    alone_page = tmp_path / "alone.html"
    _cli(capsys, "offload", E1200, "--html", alone_page)
    built = []
    real = offload_report.details_json
    monkeypatch.setattr(offload_report, "details_json", lambda *a, **k: built.append(1) or real(*a, **k))
    page = tmp_path / "page.html"
    assert _cli(capsys, "offload", E1200, "--json", "--html", page) == alone_json
    assert len(built) == 1 and page.read_text() == alone_page.read_text()


def test_no_renderer_reads_a_records_json():
    """The pages draw analysis records from their typed finding only: the JSON-to-hops and
    JSON-to-fixes readers live at the process boundary (findings/records.py), not in report/."""
    import ast

    report = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "report"
    banned = {"hops_from_json", "e1200_fixes_from_json", "record_from_json", "finding_from_json", "loads",
              "from_wire"}
    for module in sorted(report.glob("*.py")):
        tree = ast.parse(module.read_text())
        named = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(tree)
                 if isinstance(n, (ast.Name, ast.Attribute))}
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names
                    if a.name in banned or (a.name == "from_json" and (n.module or "").endswith("serialise"))}
        assert not (named & banned) | imported, f"{module.name} reads JSON back: {sorted((named & banned) | imported)}"


def test_a_record_read_back_is_typed_at_the_boundary(tmp_path):
    """A compiled module's ``offload --json`` read back (a --json file, a worker's entry): its
    records are typed once by load_document, the page the same as the one made in-process."""
    from xladoctor.report.html import render_offload_html

    module = tmp_path / "compiled.hlo"
    module.write_text(E1200.read_text().replace("HloModule jit_train_step,", "HloModule jit_train_step, is_scheduled=true,", 1))
    doc = json.loads(_subprocess("offload", module, "--json"))
    loaded = wire.load_document(doc)
    (record,) = loaded["details"]["errors"]
    assert isinstance(record, wire.Record) and record.trace and record.finding.path
    assert [f.kind.value for f in record.finding.fixes] == ["host-output", "move-to-device"]
    assert wire.load_document(loaded) is loaded and json.dumps(loaded) == json.dumps(doc)
    page = tmp_path / "page.html"
    _subprocess("offload", module, "--html", page)
    assert render_offload_html(doc, title="t") == render_offload_html(loaded, title="t")
    assert "fix-host" in render_offload_html(doc, title="t")
