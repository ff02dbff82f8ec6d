"""What users of ruff expect from the command line: ``--format concise``, ``--statistics``,
``--select``/``--ignore``, ``[tool.xladoctor]`` found by walking up, ``explain --list``,
and ``explain`` on an HLO module running the check."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"


def xladoctor(*argv: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_concise_statistics_select_and_ignore():
    p = xladoctor("check", "--examples", "--format", "concise")
    lines = p.stdout.splitlines()
    assert p.returncode == 1 and lines[-1] == "3 findings"
    assert lines[0].endswith("e1200_offloaded_activation.hlo:14:3: E1200 Host offload output mismatch, "
                             "output {0} at /home/user/model.py:23")
    assert [ln.split(": ")[1].split()[0] for ln in lines[:-1]] == ["E1200", "E0102", "E1200"]
    stats = xladoctor("check", "--examples", "--statistics").stdout.splitlines()
    # findings are counted, as the concise list has lines (rows add up to the tally); a log's
    # repeated message is one finding, its occurrences after it, as concise's "(x3)"
    assert stats == ["2  E1200  CompileTimeHostOffloadOutputLocationMismatch",
                     "1  E0102  RuntimeProgramInputMismatch (x3)", "3 findings (5 occurrences)"]
    assert sum(int(row.split()[0]) for row in stats[:-1]) == len(lines) - 1
    only = xladoctor("check", "--examples", "--ignore", "E12")
    assert only.returncode == 1 and only.stdout.splitlines()[-1] == "1 finding" and "E0102" in only.stdout
    none = xladoctor("check", "--examples", "--select", "E12", "--ignore", "E1200")
    assert none.returncode == 0 and none.stdout == "0 findings\n"


def test_pyproject_section_found_by_walking_up(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.xladoctor]\nignore = ["E1200"]\n')
    deep = tmp_path / "runs" / "a"
    deep.mkdir(parents=True)
    shutil.copy(E1200, deep / "m.hlo")
    p = xladoctor("check", deep / "m.hlo")
    assert p.returncode == 0 and p.stdout == "0 findings\n", p.stderr
    assert xladoctor("check", deep / "m.hlo", "--select", "E1200").returncode == 1  # the command line wins
    (tmp_path / "pyproject.toml").write_text("[tool.xladoctor]\nselct = []\n")
    bad = xladoctor("check", deep / "m.hlo")
    assert bad.returncode == 2 and bad.stderr.startswith(f"{tmp_path / 'pyproject.toml'}:1:1: ")
    assert bad.stderr.count("\n") == 1 and "selct" in bad.stderr


def test_explain_list_and_explain_on_a_module():
    listed = xladoctor("explain", "--list").stdout.splitlines()
    assert any(ln.startswith("E1200  CompileTimeHostOffloadOutputLocationMismatch") for ln in listed)
    assert len(listed) == len(set(listed)) >= 20
    p = xladoctor("explain", E1200)
    assert p.returncode == 1 and "E1200 predicted for output {0}" in p.stdout and "no XLA error" not in p.stdout
