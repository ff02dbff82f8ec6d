"""``explain``'s text is drawn from the findings model, so it can be drawn again from the JSON.

For real logs (the test logs, the shipped TPU job log) in English and Persian: the text
``xladoctor explain LOG`` prints is exactly the text drawn from the ``diagnostics`` of
``xladoctor explain LOG --json`` read back into :class:`~xladoctor.findings.Finding` values,
so what a user reads and what a tool reads from the JSON cannot tell different stories.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xladoctor.cli.main import main
from xladoctor.findings import FindingKind, Report, from_json
from xladoctor.report.explain_text import draw_findings

ROOT = Path(__file__).parent.parent
LOGS = [*sorted((ROOT / "tests" / "data" / "logs").glob("*.log")), ROOT / "src" / "xladoctor" / "examples" / "tpu_job.log"]


@pytest.mark.parametrize("lang", ["en", "fa"])
@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_explain_text_is_the_model_drawn(log: Path, lang: str, capsys):
    main(["explain", str(log), "--lang", lang, "--bidi", "logical", "--width", "100"])
    printed = capsys.readouterr().out
    main(["explain", str(log), "--lang", lang, "--json"])
    doc = json.loads(capsys.readouterr().out)
    report = from_json(doc["diagnostics"])
    assert isinstance(report, Report) and report.findings
    assert all(f.kind is FindingKind.LOGGED_ERROR for f in report.findings)
    drawn = draw_findings(report.findings, lang, 100, "logical")
    assert printed == drawn or (printed.startswith(drawn) and doc["not_shown"])  # then its line follows
