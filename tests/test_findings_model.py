"""The findings model and its one JSON form: frozen values, exact round trip, real artefacts.

Findings come from the real analyses run on real inputs: the bundled examples, the
host-offload scenario corpus (XLA's own HostOffloader tests as data) and logs.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from test_offload_scenarios import FILES, load, rule_of
from xladoctor.catalogue.logscan import scan_file
from xladoctor.cli.main import main
from xladoctor.findings import (
    FINDINGS_SCHEMA_VERSION,
    Finding,
    FindingKind,
    FixKind,
    Hop,
    Location,
    Origin,
    Report,
    Severity,
    from_json,
    to_json,
)
from xladoctor.findings.from_log import log_findings
from xladoctor.findings.from_offload import offload_findings
from xladoctor.findings.model import freeze_json
from xladoctor.offload import analyze_host_offload
from xladoctor.offload.fixes import suggest_fixes
from xladoctor.syntax.hlo_parser import parse_module

EXAMPLES = Path(__file__).parent.parent / "src" / "xladoctor" / "examples"
LOGS = Path(__file__).parent / "data" / "logs"


def _offload(path: Path) -> tuple[Finding, ...]:
    module, _, options = load(path)
    result = analyze_host_offload(module, rule_of(options))
    return offload_findings(result, suggest_fixes(module, result), str(path), module)


def _roundtrip(report: Report) -> None:
    doc = to_json(report)
    assert json.loads(json.dumps(doc)) == doc
    back = from_json(doc)
    assert back == report
    assert to_json(back) == doc


def test_values_are_frozen_and_hold_plain_json_only():
    f = Finding("E1200", "N", FindingKind.OFFLOAD_OUTPUT_MISMATCH, Origin.PREDICTED, Severity.ERROR, "t", "m",
                fields={"output_index": [0, 1], "nested": {"a": [1]}})
    assert f.fields["output_index"] == (0, 1) and f.fields["nested"]["a"] == (1,)
    with pytest.raises(TypeError):
        f.fields["x"] = 1  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.code = "E0102"  # type: ignore[misc]
    assert not hasattr(f, "__dict__")
    with pytest.raises(TypeError, match="plain JSON"):
        freeze_json({"hop": Hop("x")})
    with pytest.raises(TypeError, match="keys"):
        freeze_json({1: 2})


def test_enum_values_are_the_documented_strings():
    assert [k.value for k in FindingKind] == ["offload-output-mismatch", "offload-pass-failure", "input-mismatch",
                                              "logged-error", "compiler-rejects", "layout-warning"]
    assert [s.value for s in Severity] == ["error", "warning", "note"]
    assert [o.value for o in Origin] == ["predicted", "logged", "compiler"]
    assert FixKind.HOST_OUTPUT.value == "host-output"


def test_example_e1200_is_located_at_the_start_instruction_line(tmp_path):
    path = EXAMPLES / "e1200_offloaded_activation.hlo"
    text = path.read_text()
    module = parse_module(text, str(path))
    result = analyze_host_offload(module)
    (f,) = offload_findings(result, suggest_fixes(module, result), str(path), module)
    assert (f.code, f.kind, f.origin, f.severity) == ("E1200", FindingKind.OFFLOAD_OUTPUT_MISMATCH,
                                                      Origin.PREDICTED, Severity.ERROR)
    assert f.message == result.error.full_message
    start_line = text.splitlines()[f.location.line - 1]
    assert start_line.lstrip().removeprefix("ROOT ").startswith(f"{result.error.start} =")
    assert f.location.instruction == result.error.start and f.location.computation == module.entry.name
    assert f.source is not None and (f.source.file, f.source.line) == ("/home/user/model.py", 23)
    assert [h.instruction for h in f.path] == [h.instruction for h in result.error.path]
    assert all(h.line for h in f.path) and f.fields["output_index"] == (0,)
    assert [x.kind for x in f.fixes] == [FixKind.HOST_OUTPUT, FixKind.MOVE_TO_DEVICE]


@pytest.mark.parametrize("how", ["host", "device"])
def test_a_fix_command_runs_as_written_and_clears_the_finding(tmp_path, capsys, how):
    src = tmp_path / "a.hlo"
    src.write_text((EXAMPLES / "e1200_offloaded_activation.hlo").read_text())
    module = parse_module(src.read_text(), str(src))
    result = analyze_host_offload(module)
    (f,) = offload_findings(result, suggest_fixes(module, result), str(src), module)
    fix = next(x for x in f.fixes if x.kind is (FixKind.HOST_OUTPUT if how == "host" else FixKind.MOVE_TO_DEVICE))
    assert fix.command is not None and fix.command[:2] == ("xladoctor", "offload")
    assert "-o" not in fix.command  # as ruff's --fix: the file is fixed in place
    assert main(list(fix.command[1:])) == 0  # 0 when the fix leaves nothing
    capsys.readouterr()
    assert main(["offload", str(src)]) == 0


def test_no_fix_command_for_stdin_or_memory():
    path = EXAMPLES / "e1200_offloaded_activation.hlo"
    module = parse_module(path.read_text(), "<stdin>")
    result = analyze_host_offload(module)
    for where in ("<stdin>", None):
        (f,) = offload_findings(result, suggest_fixes(module, result), where, module)
        assert all(x.command is None for x in f.fixes) and f.location.path == where


def test_pass_failures_become_findings_with_their_status():
    seen = 0
    for path in FILES:
        module, _, options = load(path)
        result = analyze_host_offload(module, rule_of(options))
        findings = offload_findings(result, (), str(path), module)
        failures = [f for f in findings if f.kind is FindingKind.OFFLOAD_PASS_FAILURE]
        assert len(failures) == len(result.failures), path.name
        assert len(findings) == len(result.errors) + len(result.failures), path.name
        for f, failure in zip(failures, result.failures):
            seen += 1
            assert f.message == failure.message and f.fields["status"] == failure.status
            assert f.code in ("E0002", "E0011", "E0012")
    assert seen >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_offload_corpus_roundtrips(path):
    findings = _offload(path)
    _roundtrip(Report("offload", (str(path),), findings))


def test_log_findings_keep_lines_counts_trace_and_roundtrip():
    scan = scan_file(str(EXAMPLES / "tpu_job.log"), parallel=False)
    findings = log_findings(scan.findings, scan.source)
    by_code = {f.code: f for f in findings}
    e0102 = by_code["E0102"]
    assert (e0102.kind, e0102.origin, e0102.severity) == (FindingKind.LOGGED_ERROR, Origin.LOGGED, Severity.ERROR)
    assert e0102.count == 3 and e0102.location == Location(scan.source, 6) and e0102.lines[0] == 6
    assert e0102.fixes and all(x.kind is FixKind.ADVICE for x in e0102.fixes)
    assert "E1200" in by_code
    _roundtrip(Report("explain", (scan.source,), findings))

    scan = scan_file(str(LOGS / "traceback_e1200.log"), parallel=False)
    (e1200,) = [f for f in log_findings(scan.findings, scan.source) if f.code == "E1200"]
    assert [(h.instruction, h.shape_index) for h in e1200.path] == [
        ("square.790", ()), ("tuple.12", (1,)), ("ROOT.tuple.99", (3,))]
    assert e1200.fields["start"] == "square.790"


def test_persian_report_keeps_keys_and_codes():
    scan = scan_file(str(EXAMPLES / "tpu_job.log"), parallel=False)
    en, fa = log_findings(scan.findings, scan.source, "en"), log_findings(scan.findings, scan.source, "fa")
    assert [f.code for f in en] == [f.code for f in fa]
    assert all(a.title != b.title for a, b in zip(en, fa))
    _roundtrip(Report("explain", (scan.source,), fa, "fa"))


def test_newer_schema_is_refused():
    doc = to_json(Report("check"))
    assert doc["schema_version"] == FINDINGS_SCHEMA_VERSION == 1
    with pytest.raises(ValueError, match="schema_version"):
        from_json({**doc, "schema_version": 2})


def _recorded_confirm(name: str) -> tuple[object, object, Any]:
    """A scenario, its analysis and the confirmation built (as ``--confirm`` builds it) from
    the real compiler's verdict recorded in tests/data/offload/REAL.tsv."""
    from test_offload_real import ROWS, _verdict
    from xladoctor.oracle import Confirmation, compare, prediction_of

    module, _, options = load(next(p for p in FILES if p.stem == name))
    result = analyze_host_offload(module, rule_of(options))
    _, kind, start, status, message = next(r for r in ROWS if r[0] == name)
    comparison = compare(prediction_of(result, module), _verdict(kind, start, status, message))
    return module, result, Confirmation.of(comparison, "tpu", "v5e:2x2", "hlo")


def test_compiler_rejecting_what_was_not_predicted_is_a_compiler_finding():
    module, result, confirm = _recorded_confirm("D3_move_to_host_only_used_by_non_aliasing_custom_call")
    assert not result.errors and not result.failures and confirm.agree is False
    (f,) = offload_findings(result, (), "d3.hlo", module, confirm=confirm)
    assert (f.kind, f.origin, f.severity, f.code) == (FindingKind.COMPILER_REJECTS, Origin.COMPILER,
                                                      Severity.ERROR, "E0002")
    assert f.message == "Custom emitter for Foo not found" and f.fields["verdict"] == "xla_error"
    _roundtrip(Report("offload", ("d3.hlo",), (f,)))


def test_compiler_agreeing_adds_no_finding():
    module, result, confirm = _recorded_confirm("36_invalid_output_streaming")
    assert confirm.agree is True
    findings = offload_findings(result, (), "36.hlo", module, confirm=confirm)
    assert [f.kind for f in findings] == [FindingKind.OFFLOAD_OUTPUT_MISMATCH] * len(result.errors)
