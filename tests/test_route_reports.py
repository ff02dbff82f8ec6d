"""Every route returns the typed Report; the JSON is drawn from it once, by report/ (issue 37).

Each route of ``route/`` is called on a real input (the bundled examples) and must return a
:class:`~xladoctor.findings.model.Report` whose findings, input errors and exit code are the
command's, with its typed details (:mod:`xladoctor.findings.details`); ``check``'s entry of it
(:func:`xladoctor.report.check_json.file_entry`) must say the same findings as the Report; a
worker's entry (JSON across the process boundary) must be the same bytes as the entry drawn here.
``route/fix.py`` is exercised as both commands use it: the fix applied, parsed back, re-analysed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from xladoctor.findings.details import (
    ComparedInputs,
    ModuleDetails,
    ModuleSummary,
    OffloadDetails,
    ScannedLog,
    TriagedModule,
)
from xladoctor.findings.model import FindingKind, Report
from xladoctor.report.check_json import file_entry
from xladoctor.route.options import Options

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
LOG = EXAMPLES / "tpu_job.log"
PLAIN = "HloModule plain\n\nENTRY main {\n  p = f32[8]{0} parameter(0)\n  ROOT n = f32[8]{0} negate(p)\n}\n"


def _codes(findings) -> list[str]:
    return [f["code"] if isinstance(f, dict) else f.code for f in findings]


def test_check_of_a_module_is_a_report_with_its_analysis():
    from xladoctor.route.dispatch import check_path

    report = check_path(str(E1200), True, Options())
    assert isinstance(report, Report) and isinstance(report.details, ModuleDetails)
    assert report.details.state == "analysed" and isinstance(report.details.offload, OffloadDetails)
    assert report.exit_code == 1 and "E1200" in _codes(report.findings)
    entry = file_entry(report)
    assert entry["kind"] == "hlo" and entry["findings"] == report.details.count
    assert _codes(entry["offload"]["diagnostics"]["findings"]) == _codes(report.findings)


def test_check_of_a_log_is_a_report_with_its_scan():
    from xladoctor.route.dispatch import check_path

    report = check_path(str(LOG), True, Options())
    assert isinstance(report.details, ScannedLog) and report.findings
    assert [m.code for m in report.details.matches] == _codes(report.findings)
    entry = file_entry(report)
    assert entry["kind"] == "log" and entry["findings"] == len(report.findings)
    assert _codes(entry["explain"]["diagnostics"]["findings"]) == _codes(report.findings)


def test_a_module_no_analysis_applies_to_is_triaged_not_parsed(tmp_path):
    from xladoctor.route.dispatch import check_path

    path = tmp_path / "plain.hlo"
    path.write_text(PLAIN)
    report = check_path(str(path), True, Options())
    assert isinstance(report.details, TriagedModule) and report.details.module == "plain"
    assert report.exit_code == 0 and file_entry(report)["parsed"] is False


def test_an_unreadable_input_is_an_input_error_with_no_details(tmp_path):
    from xladoctor.route.dispatch import check_path

    missing = tmp_path / "missing.hlo"
    report = check_path(str(missing), True, Options())
    assert report.details is None and report.exit_code == 2
    assert file_entry(report) == {"path": str(missing), "kind": "error", "error": report.input_errors[0],
                                  "findings": 0}


def test_a_worker_sends_the_entry_drawn_from_the_report():
    from xladoctor.route.dispatch import check_path
    from xladoctor.route.folder import check_path_wire

    opts = Options(parallel_logs=True)
    for path in (E1200, LOG):
        here = json.dumps(file_entry(check_path(str(path), True, opts)))
        assert check_path_wire(str(path), True, opts) == here


def test_offload_inputs_and_hlo_routes_return_reports():
    from xladoctor.route.executable_inputs import route as inputs_route
    from xladoctor.route.hlo_text import analyse_file, summary_of

    offload = analyse_file(str(E1200), Options())
    assert offload.command == "offload" and isinstance(offload.details, OffloadDetails)
    assert offload.details.text == E1200.read_text() and offload.details.module is not None
    assert offload.exit_code == 1 and "E1200" in _codes(offload.findings)
    inputs = inputs_route(str(E1200), str(E1200), None, Options())
    assert isinstance(inputs.details, ComparedInputs) and inputs.details.check.ok and inputs.exit_code == 0
    summary = summary_of(str(E1200))
    assert isinstance(summary.details, ModuleSummary) and summary.details.summary["name"] == "jit_train_step"


def test_fix_module_applies_the_fix_and_analyses_again(tmp_path):
    from xladoctor.route.fix import fix_module
    from xladoctor.route.hlo_text import analyse_file

    report = analyse_file(str(E1200), Options())
    fixed = fix_module(report, "device", str(tmp_path / "fixed.hlo"), Options())
    assert fixed is not None and len(fixed.fixed) == len(report.findings_of("E1200")) >= 1
    assert "E1200" not in _codes(fixed.left) and fixed.text != report.details.text
    clean = analyse_file(str(EXAMPLES / "offload_to_host_output_clean.hlo"), Options())
    assert not clean.findings_of("E1200") and fix_module(clean, "device", "x.hlo", Options()) is None


@pytest.mark.parametrize("unsafe", [False, True])
def test_fix_rounds_take_each_e1200_until_none_is_left(tmp_path, unsafe):
    from xladoctor.route.dispatch import check_path
    from xladoctor.route.fix import fix_rounds

    path = tmp_path / "m.hlo"
    shutil.copy(E1200, path)
    rounds = []
    for step in fix_rounds(str(path), True, Options(), None, unsafe):
        assert step.finding.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH and step.before == path.read_text()
        path.write_text(step.after)  # what the command writes (atomically) before the next round
        rounds.append(step)
    assert rounds and not check_path(str(path), True, Options()).findings_of("E1200")


def test_a_bug_drawing_one_entry_costs_only_that_file(tmp_path, monkeypatch, capsys):
    """As a bug in an analysis (tests/test_check_dirs.py), a bug in the entry's view is that file's
    internal error (exit 2), and the other files are checked and reported."""
    from xladoctor.cli.main import main
    from xladoctor.report import check_json

    shutil.copy(E1200, tmp_path / "a.hlo")
    shutil.copy(LOG, tmp_path / "b.log")
    real = check_json.file_entry

    def failing(report):
        if report.inputs[0].endswith("a.hlo"):
            raise ZeroDivisionError("simulated bug")
        return real(report)

    monkeypatch.setattr(check_json, "file_entry", failing)
    assert main(["check", str(tmp_path), "--jobs", "1"]) == 2
    out, err = capsys.readouterr()
    assert "internal error while checking this file: ZeroDivisionError: simulated bug" in err
    from xladoctor.route.dispatch import check_path

    logged = _codes(check_path(str(LOG), True, Options()).findings)
    assert "b.log" in out and all(code in out for code in logged)
