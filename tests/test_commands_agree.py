"""The commands agree, as a user scripting them finds: ``--format`` wherever there are findings,
``command`` in every document, one verdict key, and help without the XLA developers' rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
CLEAN = EXAMPLES / "offload_to_host_output_clean.hlo"
LOG = EXAMPLES / "tpu_job.log"


def xladoctor(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shapes")
    (folder / "exp.txt").write_text("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}\n")
    (folder / "sup.txt").write_text("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}\n")
    (folder / "clean.log").write_text("I0101 step 1 loss 0.5\nI0101 step 2 loss 0.4\n")
    return folder


def _finding_commands(shapes: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Each command with findings: (argv with findings, argv without)."""
    return {"check": (["check", E1200], ["check", CLEAN]),
            "offload": (["offload", E1200], ["offload", CLEAN]),
            "explain": (["explain", LOG], ["explain", shapes / "clean.log"]),
            "inputs": (["inputs", shapes / "exp.txt", "--supplied-shapes", shapes / "sup.txt"],
                       ["inputs", shapes / "exp.txt", "--supplied-shapes", shapes / "exp.txt"])}


@pytest.mark.parametrize("command", ["check", "offload", "explain", "inputs"])
def test_every_command_with_findings_takes_format_and_has_one_verdict(command, shapes):
    bad, good = _finding_commands(shapes)[command]
    for argv, rc, verdict in ((bad, 1, "findings"), (good, 0, "clean")):
        p = xladoctor(*argv, "--json")
        doc = json.loads(p.stdout)
        assert p.returncode == rc and doc["command"] == command and doc["verdict"] == verdict, (argv, p.stderr)
        assert list(doc)[:4] == ["schema_version", "$schema", "command", "verdict"]
    sarif = xladoctor(*bad, "--format", "sarif")
    assert sarif.returncode == 1, sarif.stderr
    assert json.loads(sarif.stdout)["runs"][0]["results"]
    github = xladoctor(*bad, "--format", "github")
    assert github.returncode == 1 and github.stdout.startswith("::error"), github.stdout + github.stderr


def test_hlo_and_shape_documents_name_their_command():
    assert json.loads(xladoctor("hlo", E1200, "--json").stdout)["command"] == "hlo"
    assert json.loads(xladoctor("shape", "f32[8,128]", "--json").stdout)["command"] == "shape"


@pytest.mark.parametrize("command", ["check", "offload", "fleet"])
def test_the_unmerged_rule_is_accepted_but_not_in_help(command):
    assert "unmerged-pr-36525" not in xladoctor(command, "--help").stdout
    if command != "fleet":
        p = xladoctor(command, E1200, "--rule", "unmerged-pr-36525")
        assert p.returncode in (0, 1) and "error:" not in p.stderr


@pytest.mark.parametrize("command", ["check", "offload", "explain", "inputs"])
def test_every_command_with_findings_takes_lang_and_html(command, shapes, tmp_path):
    """``--html`` was on check and inputs only, ``--lang`` on check and explain: each command with
    findings now writes its page, in the language asked, and keeps its exit code."""
    bad, _ = _finding_commands(shapes)[command]
    out = tmp_path / f"{command}.html"
    p = xladoctor(*bad, "--lang", "fa", "--html", out)
    assert p.returncode == 1, p.stderr
    page = out.read_text()
    assert '<html lang="fa" dir="rtl"' in page and 'id="xladoctor-diagnostics"' in page
    assert "گزارش HTML" in p.stderr  # the status line in the language asked
    doc = json.loads(xladoctor(*bad, "--lang", "fa", "--json").stdout)
    assert doc["command"] == command and doc["verdict"] == "findings"
    assert doc["diagnostics"]["lang"] == "fa"  # inputs' too (they were English-only)
    refused = xladoctor(*bad, "--html", bad[1])
    assert refused.returncode == 2 and "refusing to write over the input file" in refused.stderr


def test_explain_code_refuses_html_in_one_line(tmp_path):
    p = xladoctor("explain", "E1200", "--html", tmp_path / "x.html")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and not (tmp_path / "x.html").exists()


def test_fleet_reads_its_list_from_stdin_and_explains_a_log_piped_in(tmp_path):
    """``fleet -`` reads paths from stdin, as documented; a log piped in instead failed with
    "cannot list this URL: ... Protocol not known" on its first line.  Now one located line says
    what ``-`` reads and which command reads a log."""
    listed = subprocess.run([sys.executable, "-m", "xladoctor", "fleet", "-", "--json"], input=f"{LOG}\n",
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 1 and json.loads(listed.stdout)["files"] == 1
    piped = subprocess.run([sys.executable, "-m", "xladoctor", "fleet", "-"], input=Path(LOG).read_text(),
                           capture_output=True, text=True, timeout=120)
    assert piped.returncode == 2 and len(piped.stderr.strip().splitlines()) == 1
    assert "<stdin>:1:1:" in piped.stderr and "xladoctor check -" in piped.stderr
    assert "Protocol not known" not in piped.stderr


def test_a_document_that_could_not_read_an_input_does_not_say_clean(tmp_path):
    """``check --full --json`` over a clean module and one it cannot parse exits 2; its verdict said
    "clean" (a consumer branching on it, as docs/json.md advises, read a clean run)."""
    broken = tmp_path / "broken.hlo"
    broken.write_text("HloModule m\n\nENTRY main {\n  p = f32[8] parameter(0\n}\n")
    p = xladoctor("check", "--full", "--json", CLEAN, broken)
    doc = json.loads(p.stdout)
    assert p.returncode == 2 and doc["verdict"] == "input_error", (doc.get("verdict"), p.stderr)
