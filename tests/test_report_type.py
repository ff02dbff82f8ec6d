"""One report type (issue 37 item 2): every route returns ``findings.Report``; what only a route
knows is its ``analysis``, read through the report, and never crosses a process."""

from __future__ import annotations

from pathlib import Path

import pytest

import xladoctor
from xladoctor.findings import Finding, Report, from_json, to_json
from xladoctor.findings.source_line import SourceLine, distinct_lines

LOG = Path(__file__).resolve().parent.parent / "src" / "xladoctor" / "examples" / "tpu_job.log"


def test_the_old_report_and_finding_names_are_the_one_class():
    from xladoctor.route.log_report import LogReport

    assert LogReport is Report
    pytest.importorskip("jax")  # xladoctor.jax imports and starts jax
    from xladoctor.jax import InputsReport, OffloadFinding, OffloadReport

    assert OffloadReport is InputsReport is Report and OffloadFinding is Finding


def test_a_log_report_reads_its_scan_through_and_keeps_it_in_process():
    report = xladoctor.explain_log(LOG, lang="en")
    assert type(report) is Report and report.command == "explain" and report.inputs == (str(LOG),)
    assert report.source == str(LOG) and report.codes() == [f.code for f in report.findings] == ["E0102", "E1200"]
    assert report.exit_code == 1 and not report.ok
    with pytest.raises(AttributeError, match="'Report' object has no attribute 'outcome'"):
        _ = report.outcome
    assert not hasattr(report, "_scan")  # private names are never read through
    # across a process only the findings go: the JSON form is equal (analysis is not compared) ...
    assert from_json(to_json(report)) == report and from_json(to_json(report)).analysis is None


def test_a_report_without_a_route_draws_as_a_value():
    bare = Report("check", ("a.hlo",), (), "en", ("a.hlo:1:1: bad",))
    assert bare.exit_code == 2 and not bare.ok and bare._repr_html_() is None
    assert str(bare) == repr(bare) and "input_errors=('a.hlo:1:1: bad',)" in repr(bare)
    assert bare.to_json() == to_json(bare)
    with pytest.raises(AttributeError):
        _ = bare.source
    assert Report("check").ok and Report("check").exit_code == 0


def test_a_finding_without_a_program_has_no_program_facts():
    (log_e1200,) = xladoctor.explain_log(LOG, lang="en").findings_of("E1200")
    assert (log_e1200.output, log_e1200.leaf, log_e1200.offloaded_at, log_e1200.returned_at) == (None,) * 4
    assert log_e1200.offloaded_from == () and log_e1200.source_lines() == [] and log_e1200.host_fix is None
    assert log_e1200.xla_message == log_e1200.message


def test_source_lines_round_trip_and_fold():
    a, b = SourceLine("m.py", 3, "f", "y = x"), SourceLine("m.py", 4, None, "")
    assert [SourceLine.from_json(s.to_json()) for s in (a, b)] == [a, b]
    assert SourceLine.from_json({"file": "m.py"}) is None and SourceLine.from_json(None) is None
    assert distinct_lines([a, a, None, b, a]) == [a, b, a]
    assert str(a) == "m.py:3 in f: y = x" and str(b) == "m.py:4"
