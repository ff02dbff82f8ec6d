"""``scan_document`` chooses each finding's fixes once and writes them twice (its scan entry and
``diagnostics``); the document is the one the two separate choices gave, over the log corpus.

The reference below is built the way the document was before: the scan entries with
``finding_fixes`` and ``diagnostics`` from ``log_findings`` choosing them again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from log_corpus import write_log
from xladoctor.catalogue.fixes import finding_fixes
from xladoctor.catalogue.logscan import scan_file
from xladoctor.findings import Report, to_json
from xladoctor.findings.from_log import log_findings, plain
from xladoctor.report.explain_json import scan_document

ROOT = Path(__file__).resolve().parent.parent
DATA_LOGS = Path(__file__).parent / "data" / "logs"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Path]:
    out = tmp_path_factory.mktemp("corpus")
    generated = [write_log(out / f"gen_{seed}.log", 3000, seed, error_every=60) for seed in range(4)]
    return [ROOT / "src" / "xladoctor" / "examples" / "tpu_job.log", *sorted(DATA_LOGS.glob("*.log")), *generated]


def _reference(findings, source: str, lang: str) -> dict:
    entries = [plain(f.to_json(finding_fixes(f, lang)), lang) for f in findings]
    diagnostics = to_json(Report("explain", (source,), log_findings(findings, source, lang), lang, ()))
    return {"findings": entries, "diagnostics": diagnostics}


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_scan_document_unchanged_and_fixes_chosen_once(corpus, lang, monkeypatch):
    calls: list[str] = []

    def counting(f, lang_):
        calls.append(f.code)
        return finding_fixes(f, lang_)

    monkeypatch.setattr("xladoctor.catalogue.fixes.finding_fixes", counting)  # explain_json's, imported with findings
    monkeypatch.setattr("xladoctor.findings.from_log.finding_fixes", counting)
    total = 0
    for path in corpus:
        scan = scan_file(str(path))
        calls.clear()
        doc = scan_document(scan.findings, scan.source, lang, scan.not_shown)
        assert len(calls) == len(scan.findings), path  # once per finding, not twice
        ref = _reference(scan.findings, scan.source, lang)
        assert doc["findings"] == ref["findings"], path
        assert doc["diagnostics"] == ref["diagnostics"], path
        assert [f["fixes"] for f in doc["findings"]] == \
            [[x["text"] for x in f["fixes"]] for f in doc["diagnostics"]["findings"]], path
        total += len(scan.findings)
    assert total >= 40  # the corpus exercises many codes, with and without analysis-chosen fixes


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_document_of_a_log_report_reuses_its_findings(corpus, lang, monkeypatch):
    """``explain`` makes the log's Report once (its text, exit code and document all read it): the
    document written from it is the same, and no fix is chosen again for it."""
    from xladoctor.route.log_report import log_report

    calls: list[str] = []

    def counting(f, lang_):
        calls.append(f.code)
        return finding_fixes(f, lang_)

    monkeypatch.setattr("xladoctor.catalogue.fixes.finding_fixes", counting)  # explain_json's, imported with findings
    monkeypatch.setattr("xladoctor.findings.from_log.finding_fixes", counting)
    for path in corpus[:6]:
        scan = scan_file(str(path))
        report = log_report(scan.source, lang, scan.findings, dict(scan.not_shown))
        calls.clear()
        doc = scan_document(scan.findings, scan.source, lang, scan.not_shown, report)
        assert calls == [], path
        assert doc == scan_document(scan.findings, scan.source, lang, scan.not_shown), path
        assert doc["diagnostics"].report.findings == report.findings
