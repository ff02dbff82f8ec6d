"""The README's command examples are what the commands print.

Each ```text block of README.md that starts with ``$ xladoctor ...`` is run on the bundled
examples (``step.hlo`` is ``e1200_offloaded_activation.hlo`` beside its ``model.py``, ``tpu_job.log`` the bundled log) in
a fresh folder, at 100 columns; every line the README shows must appear in the real output, in
order.  The README may leave lines out and cut a line short with ``...`` (a wildcard), so it can
stay short, but it cannot show a line the tool does not print.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "src" / "xladoctor" / "examples"
DATA = ROOT / "tests" / "data" / "first_hour"
# step.hlo is the bundled E1200 example with its source_file relative, model.py the program it names
INPUTS = {"step.hlo": DATA / "step.hlo", "model.py": DATA / "model.py", "tpu_job.log": EXAMPLES / "tpu_job.log"}


def _examples() -> list[tuple[str, list[str]]]:
    """``(command, shown lines)`` for each README block that starts with ``$ xladoctor``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```text\n(.*?)```", text, flags=re.S):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith("$ xladoctor "):
            out.append((lines[0][2:], [ln for ln in lines[1:] if ln.strip()]))
    return out


def _pattern(shown: str) -> re.Pattern[str]:
    """A README line as a pattern: ``...`` stands for any text, the rest is literal."""
    parts = [re.escape(p) for p in re.split(r"\s*\.\.\.\s*", shown.strip())]
    return re.compile(r"\s*" + ".*".join(parts) + r"\s*")


def test_the_readme_shows_three_examples():
    assert [cmd.split()[1] for cmd, _ in _examples()] == ["check", "explain", "offload"]


@pytest.mark.parametrize("command,shown", _examples(), ids=lambda v: v.split()[1] if isinstance(v, str) else "")
def test_each_readme_example_is_what_the_command_prints(tmp_path, command, shown):
    for name, source in INPUTS.items():
        shutil.copy(source, tmp_path / name)
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", PYTHONPATH=str(ROOT / "src"))
    argv = shlex.split(command)
    proc = subprocess.run([sys.executable, "-m", "xladoctor", *argv[1:]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    printed = proc.stdout.splitlines()
    at = 0
    for line in shown:
        pattern = _pattern(line)
        while at < len(printed) and not pattern.fullmatch(printed[at]):
            at += 1
        assert at < len(printed), f"README line not printed (in order) by `{command}`:\n{line}\n--- printed:\n{proc.stdout}"
        at += 1
