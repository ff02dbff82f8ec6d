"""The build: pure Python by default; ``XLADOCTOR_COMPILE=1`` adds a compiled core (issue 36 item 4).

Without the variable this adds nothing to what ``pyproject.toml`` describes: the wheel is the
pure-Python package, built and installed with nothing but setuptools.  With it, the modules in
:data:`COMPILED` are also compiled to C extension modules by mypyc (which ships with mypy; a C
compiler and Python's headers are needed).  The ``.py`` sources stay in the wheel beside them:
Python imports an extension module before a source file of the same name, so the compiled core
is what runs, and deleting the ``.so`` files gives the pure-Python package back, with the same
answers (tests/test_compiled_core.py compares the two on the output corpus).

    XLADOCTOR_COMPILE=1 pip install .          # the build environment fetches mypy (pyproject)

Why these modules: they are where ``xladoctor offload FILE`` spends its time (the parser, the
IR's instruction, computation and name tables, the clone, the offload passes); bench/README.md
"Compiled core" has the profile and the numbers.  Left out: modules mypyc cannot compile as
they are (``ir/users.py``: a ``list`` subclass; ``ir/shape.py`` and ``ir/value.py``: frozen
values kept in ``__dict__``; ``ir/module.py``: copied through ``vars()`` by ``ir/clone.py``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
COMPILED = (
    "ir/instruction.py", "ir/computation.py", "ir/names.py", "ir/name_uniquer.py", "ir/instruction_names.py", "ir/clone.py",
    "ir/rare_fields.py", "ir/operands.py", "ir/packed_fields.py",
    "syntax/instruction_line.py", "syntax/computation_reader.py", "syntax/reader.py", "syntax/attributes.py",
    "syntax/instruction_reader.py", "syntax/hlo_parser.py", "syntax/shape_parser.py",
    "offload/passes/hlo_dce.py", "offload/passes/call_inliner.py", "offload/passes/hlo_cse.py",
    "offload/passes/algebraic_simplifier.py", "offload/passes/reshape_mover.py",
    "offload/passes/tuple_simplifier.py", "offload/passes/sharding_remover.py",
)
"""The compiled core, relative to ``src/xladoctor``: the modules hot in ``offload``'s profile."""


def _ext_modules() -> list:
    if os.environ.get("XLADOCTOR_COMPILE", "") != "1":
        return []
    if {"egg_info", "dist_info"} & set(sys.argv):  # the build backend asking for metadata: nothing to compile
        return []
    try:
        from mypyc.build import mypycify  # only here: the default build needs nothing but setuptools
    except ImportError:
        raise SystemExit("xladoctor: XLADOCTOR_COMPILE=1 needs mypy (mypyc) in the build environment: "
                         "pip install 'mypy>=2.4,<2.5', or leave pip's build isolation on") from None
    os.chdir(HERE)  # mypyc names the modules from their paths under src/
    # An isolated build environment has mypy but not the runtime dependencies (ahocorasick_rs,
    # backports.zstd) that modules outside the core import: their types are not the core's business.
    flags = ["--no-warn-unused-configs", "--ignore-missing-imports", "--follow-imports=silent"]
    return mypycify([*flags, *(f"src/xladoctor/{m}" for m in COMPILED)],
                    opt_level="3", group_name="xladoctor_core")


# setup_requires is what setuptools' build backend asks pip to install into an isolated build
# environment: mypy only for the compiled build.
setup(ext_modules=_ext_modules(),
      setup_requires=["mypy>=2.4,<2.5"] if os.environ.get("XLADOCTOR_COMPILE", "") == "1" else [])
