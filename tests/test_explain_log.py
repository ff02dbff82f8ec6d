"""``xladoctor.explain_log``: the ``explain`` scan from Python, on a path or on text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import xladoctor
from xladoctor import InputError

LOG = Path(__file__).resolve().parent.parent / "src" / "xladoctor" / "examples" / "tpu_job.log"


def test_same_document_as_the_command() -> None:
    report = xladoctor.explain_log(str(LOG), lang="en")
    cli = subprocess.run([sys.executable, "-m", "xladoctor", "explain", str(LOG), "--json", "--lang", "en"],
                         capture_output=True, text=True)
    assert cli.returncode == 1
    doc = report.to_json()
    doc.pop("schema_version")
    assert doc == {k: v for k, v in json.loads(cli.stdout).items() if k != "schema_version"}
    assert report.codes() == ["E0102", "E1200"] and not report.ok
    assert repr(report) == f"<LogReport {LOG}: E0102 x3, E1200>"
    assert str(report).startswith(f"{LOG}:6: E0102 RuntimeProgramInputMismatch (x3)")


def test_text_and_bytes_are_scanned_as_the_log() -> None:
    text = LOG.read_text()
    by_path = xladoctor.explain_log(LOG, lang="en").to_json()["findings"]
    for given in (text, text.encode()):
        report = xladoctor.explain_log(given, lang="en")
        assert report.source == "<text>" and report.to_json()["findings"] == by_path


def test_clean_text_and_a_missing_path() -> None:
    clean = xladoctor.explain_log("step 1 loss 0.25\n")
    assert clean.ok and repr(clean) == "<LogReport <text>: no XLA error found>"
    with pytest.raises(InputError, match=r"^missing\.log:1:1: cannot read file"):
        xladoctor.explain_log("missing.log")


def test_persian_report() -> None:
    report = xladoctor.explain_log(LOG, lang="fa")
    assert report.to_json()["lang"] == "fa" and "E0102" in str(report)
    assert 'lang="fa" dir="rtl"' in report._repr_html_().replace("&quot;", '"')
