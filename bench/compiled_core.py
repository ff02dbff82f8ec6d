"""A copy of this tree with the hot modules compiled by mypyc, to measure a compiled core (issue 36 item 4).

    python bench/compiled_core.py /tmp/compiled            # copies src/ and bench/, compiles MODULES (minutes)
    python bench/bench_before_after.py . /tmp/compiled --kinds train_scanned train_unrolled jax_entry \
        --sizes 100000 --pairs --jaxlib --rounds 3 --repeat 3
    python bench/compare_outputs.py dump /tmp/pure            # then the same dump with /tmp/compiled/src
                                                              # first on sys.path, and diff: 628 of 628

Python imports an extension module before the source of the same name, so the copy runs the
compiled modules and the pure-Python rest.  Needs mypy (mypyc ships with it), a C compiler and
Python's headers.  bench/README.md "Compiled core" has the profile behind :data:`MODULES`, the
numbers and why it is not adopted.  Not part of the tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MODULES = (
    "ir/instruction.py", "ir/computation.py", "ir/names.py", "ir/name_uniquer.py", "ir/clone.py",
    "ir/rare_fields.py", "ir/operands.py",
    "syntax/instruction_line.py", "syntax/computation_reader.py", "syntax/reader.py", "syntax/attributes.py",
    "syntax/instruction_reader.py", "syntax/hlo_parser.py", "syntax/shape_parser.py",
    "offload/passes/hlo_dce.py", "offload/passes/call_inliner.py", "offload/passes/hlo_cse.py",
    "offload/passes/algebraic_simplifier.py", "offload/passes/reshape_mover.py",
    "offload/passes/tuple_simplifier.py", "offload/passes/sharding_remover.py",
)
"""Relative to ``src/xladoctor``: the modules hot in ``offload``'s profile that mypyc compiles as
they are.  Left out: ``ir/users.py`` (a ``list`` subclass), ``ir/shape.py``, ``ir/value.py``,
``ir/primitive.py``, ``ir/sizes.py`` and ``syntax/layout_warnings.py`` (frozen values written
through ``object.__setattr__`` or ``__dict__``), ``ir/module.py`` (copied through ``vars()``)."""

_BUILD = """\
import sys
from setuptools import setup
from mypyc.build import mypycify
paths = sys.argv[1:]
sys.argv = ["setup.py", "build_ext", "--inplace"]
setup(name="xladoctor_core", package_dir={"": "src"},
      ext_modules=mypycify(["--no-warn-unused-configs", *paths], opt_level="3", group_name="xladoctor_core"))
"""


def build(out: Path) -> None:
    """``out/src`` (this tree's sources and :data:`MODULES` compiled beside them) and ``out/bench``."""
    if out.exists():
        shutil.rmtree(out)
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    shutil.copytree(ROOT / "src", out / "src", ignore=ignore)
    shutil.copytree(ROOT / "bench", out / "bench", ignore=shutil.ignore_patterns("__pycache__", "results", "*_rs"))
    shutil.copy(ROOT / "pyproject.toml", out / "pyproject.toml")  # mypy's settings
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", _BUILD, *(f"src/xladoctor/{m}" for m in MODULES)], cwd=out, env=env,
                   check=True)
    built = sorted(out.glob("src/xladoctor/**/*.so"))
    print(f"{len(built)} extension modules in {out / 'src'}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the folder to make (replaced)")
    build(ap.parse_args().out.resolve())
