"""What the suite's own collection does: it imports test files and src's doctests, nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_collecting_runs_none_of_the_scripts_kept_as_data(tmp_path):
    """--doctest-modules would import tests/data/first_hour/train.py, which lowers a program and
    writes step.hlo into the directory pytest runs in (once committed by mistake from the root)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), str(ROOT / "tests" / "data")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "no tests collected" in out.stdout, out.stdout + out.stderr
    assert list(tmp_path.iterdir()) == []
