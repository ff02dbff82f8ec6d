"""``--html -`` wrote the page to a file literally named ``-`` in the current folder (found in the
first hour, issue 38): standard output already carries the report, so it is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from xladoctor.cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "xladoctor" / "examples"


@pytest.mark.parametrize("command", [
    ["check", str(EXAMPLES / "tpu_job.log")],
    ["explain", str(EXAMPLES / "tpu_job.log")],
    ["offload", str(EXAMPLES / "e1200_offloaded_activation.hlo")],
])
def test_html_to_a_dash_is_a_usage_error_and_writes_nothing(command, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--html", "-"]) == 2
    err = capsys.readouterr().err
    assert err == "xladoctor: --html needs a file name: standard output carries the report itself " \
                  "(e.g. --html report.html)\n"
    assert list(tmp_path.iterdir()) == []
