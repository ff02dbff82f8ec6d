"""A copy of this tree with the hot modules compiled by mypyc, to measure a compiled core (issue 36 item 4).

    python bench/compiled_core.py /tmp/compiled            # copies src/ and bench/, builds setup.py's core (minutes)
    python bench/bench_before_after.py . /tmp/compiled --kinds train_scanned train_unrolled jax_entry \
        --sizes 100000 --pairs --jaxlib --rounds 3 --repeat 3
    python bench/compare_outputs.py dump /tmp/pure            # then the same dump with /tmp/compiled/src
                                                              # first on sys.path, and diff: 628 of 628

Python imports an extension module before the source of the same name, so the copy runs the
compiled modules and the pure-Python rest.  Needs mypy (mypyc ships with it), a C compiler and
Python's headers.  bench/README.md "Compiled core" has the profile behind setup.py's
``COMPILED``, the numbers and why it is an opt-in build.  Not part of the tests
(tests/test_compiled_core.py builds it the same way and compares the outputs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def build(out: Path) -> None:
    """``out/src`` (this tree's sources and setup.py's compiled core beside them) and ``out/bench``:
    built as ``XLADOCTOR_COMPILE=1 pip install .`` builds it (setup.py's ``COMPILED`` list, the one
    list of the core's modules), in place."""
    if out.exists():
        shutil.rmtree(out)
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(ROOT / "src", out / "src", ignore=ignore)
    shutil.copytree(ROOT / "bench", out / "bench", ignore=shutil.ignore_patterns("__pycache__", "results", "*_rs"))
    for name in ("setup.py", "pyproject.toml", "README.md"):  # the build, mypy's settings, the metadata
        shutil.copy(ROOT / name, out / name)
    env = dict(os.environ, XLADOCTOR_COMPILE="1")
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", str(os.cpu_count() or 1)],
                   cwd=out, env=env, check=True)
    built = sorted(out.glob("src/xladoctor/**/*.so"))
    print(f"{len(built)} extension modules in {out / 'src'}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the folder to make (replaced)")
    build(ap.parse_args().out.resolve())
