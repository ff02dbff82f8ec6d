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


def test_the_suite_collects_without_jax(tmp_path):
    """On Python 3.10 the test extra installs no jax (jax 0.10.2 needs 3.11): a test module that
    built jax programs at collection stopped the whole run there ("Interrupted: 2 errors during
    collection", test_offload_later.py until stop 53).  Here jax, jaxlib and libtpu are absent as
    they are there (``None`` in ``sys.modules``: their import fails, ``find_spec`` says None)."""
    code = ("import sys\n"
            "for name in ('jax', 'jaxlib', 'libtpu'):\n"
            "    sys.modules[name] = None\n"
            "import pytest\n"
            f"sys.exit(pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider', '--rootdir', {str(ROOT)!r},"
            f" '-c', {str(ROOT / 'pyproject.toml')!r}, {str(ROOT / 'tests')!r}, {str(ROOT / 'src' / 'xladoctor')!r}]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert out.returncode == 0 and "error" not in out.stdout.splitlines()[-1], out.stdout[-3000:] + out.stderr[-2000:]
