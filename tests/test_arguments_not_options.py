"""Issue 35 item 5: a file whose name reads as an option is a file, for every command given it after
``--``, and in every command xladoctor prints for the user to run (hints, fix commands)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"


def xladoctor(*argv: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_every_command_reads_option_like_names_after_double_dash(tmp_path):
    shutil.copy(EXAMPLES / "tpu_job.log", tmp_path / "--select=Z.txt")
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", tmp_path / "-j.hlo")
    log = xladoctor("check", "--", "--select=Z.txt", cwd=tmp_path)
    assert log.returncode == 1 and "== --select=Z.txt" in log.stdout
    assert "details: xladoctor explain ./--select=Z.txt" in log.stdout  # pasted, it reads the file
    assert xladoctor("explain", "--", "--select=Z.txt", cwd=tmp_path).returncode == 1
    assert xladoctor("fleet", "--", "--select=Z.txt", cwd=tmp_path).returncode == 1
    assert xladoctor("hlo", "--", "-j.hlo", cwd=tmp_path).returncode == 0
    module = xladoctor("check", "--json", "--", "-j.hlo", cwd=tmp_path)
    assert module.returncode == 1, module.stderr
    commands = [fix["command"] for f in json.loads(module.stdout)["diagnostics"]["findings"]
                for fix in f["fixes"] if fix.get("command")]
    assert commands and all("./-j.hlo" in c and "-j.hlo" not in c[:c.index("./-j.hlo")] for c in commands)
    fixed = xladoctor(*commands[0][1:], cwd=tmp_path)  # the printed command, run as printed
    assert fixed.returncode == 0, fixed.stderr
    assert xladoctor("check", "--", "-j.hlo", cwd=tmp_path).returncode == 0  # fixed in place, as ruff fixes
