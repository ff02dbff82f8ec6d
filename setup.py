"""The build: pure Python by default; ``XLADOCTOR_COMPILE=1`` adds a compiled core (issue 36 item 4).

Without the variable this adds nothing to what ``pyproject.toml`` describes: the wheel is the
pure-Python package, built and installed with nothing but setuptools.  With it, the modules in
:data:`COMPILED` are also compiled to C extension modules by mypyc (which ships with mypy; a C
compiler and Python's headers are needed).  The ``.py`` sources stay in the wheel beside them:
Python imports an extension module before a source file of the same name, so the compiled core
is what runs, and deleting the ``.so`` files gives the pure-Python package back, with the same
answers (tests/test_compiled_core.py compares the two on the output corpus).

    XLADOCTOR_COMPILE=1 pip install .          # the build environment fetches mypy (pyproject)

Why these modules: they are where ``xladoctor offload FILE`` spends its time: the parser, the
IR's instruction, computation and name tables, the clone, and (since branch h44c) every module
the offload analysis runs -- all the passes of the pipeline (HostOffloader and
HostOffloadLegalize with their helpers, the dead steps, the simplifiers), the pipeline, the later
failures, the verifier and shape inference; and (h45c) ``ir/opcodes.py``, whose constants are
``Final``: a compiled module reads a ``Final`` of another compiled module from a C static and has a
``Final`` literal (``HOST_MEMORY_SPACE``, the annotation targets) put in place, where any other
global is a lookup in a dict per read.  With the parser alone compiled, those passes were
what stayed interpreted (a profile of ``offload`` on the train steps and on ``jax_entry``), and
compiled code calling interpreted code pays Python's call protocol both ways.  bench/README.md
"Compiled core" and "The compiled core covers the analysis" have the profiles and the numbers.

Left out, each for a reason:

* ``ir/users.py`` (a ``list`` subclass), ``ir/calls.py`` (a ``Mapping`` read through Python's protocol
  by code that read the ``dict`` subclass it was: an instruction's calls where it has no other rare
  field; not measured compiled) and ``ir/module.py`` (copied through ``vars()`` by
  ``ir/clone.py``): a native class can be neither.  Compiled as ordinary classes
  (``mypyc_attr(native_class=False)``, methods compiled) they gave the same answers and no
  measurable gain (the methods are still called through Python's protocol); a native class
  would need a restructure (``Users`` holding its list costs 56 bytes per instruction).
* ``ir/shape.py``, ``ir/value.py``, ``ir/primitive.py``, ``ir/sizes.py``,
  ``syntax/layout_warnings.py``: frozen values written through ``object.__setattr__`` and
  ``__dict__``; compiled as ordinary classes, ``MutableTupleShape`` (whose ``tuple_shapes`` is a
  list, changed in place) fails the compiled ``Shape.__init__``'s check of a tuple.
* ``offload/passes/hlo_pass_interface.py``: an interpreted class may not subclass a compiled one,
  and the tests subclass the passes' base.
* The findings, reports and frontends: under a few per cent of ``offload`` each.

The rules for a compiled module (tests/test_compiled_core.py catches a break): a property write
must match the getter's type (``instr.operands = (a, b)``, not a list), a value must have the
type it is declared with at run time (``frozenset - dict_keys`` is a ``set``), no
interpreted class may subclass a compiled one, and a field a base class declares is assigned
without an annotation in a subclass (annotated again, mypyc's traverse visits it twice and the
collector never frees the objects' cycles: e114466).  What makes compiled code slow without
breaking it (branch h45c; bench/README.md "The compiled core's own overheads"): ``x.__class__``
(a generic attribute lookup: write ``type(x)``), bound-method aliases (``push = stack.append``:
called through Python's protocol, not mypyc's list and set operations), code ``exec``'d at
import (interpreted), globals that are not ``Final`` read per instruction, and a
``tuple[int, int]`` field (stored unboxed, 16 bytes in every instance: type a shared tuple
``tuple[int, ...]``); and (h45k) a class imported from an interpreted module (a globals read
per use: bind it to a ``Final`` name, as ``packed_fields.USERS``), builtins without a mypyc
primitive (``reversed``, ``map``, ``id`` passed as a value -- ``id(x)`` is one: a lookup in ``builtins`` and a generic call each
time; a comprehension or an index loop is native; ``any(map(f, xs))`` over a compiled ``f``
calls it through Python's protocol too: h46c), an interpreted generator or property read per
instruction (``module.instructions()``, ``Shape.is_array``), a compiled method bound to a local
(``add = comp.add_instruction``: called through Python's protocol) and a value read from an
untyped or union-typed store (``instr._operands``: declare the local to get native reads).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
COMPILED = (
    "ir/instruction.py", "ir/computation.py", "ir/computation_header.py", "ir/names.py", "ir/name_uniquer.py", "ir/instruction_names.py", "ir/clone.py",
    "ir/rare_fields.py", "ir/operands.py", "ir/packed_fields.py",
    "syntax/instruction_line.py", "syntax/computation_reader.py", "syntax/reader.py", "syntax/attributes.py",
    "syntax/instruction_reader.py", "syntax/hlo_parser.py", "syntax/shape_parser.py",
    "offload/passes/hlo_dce.py", "offload/passes/call_inliner.py", "offload/passes/hlo_cse.py",
    "offload/passes/algebraic_simplifier.py", "offload/passes/reshape_mover.py",
    "offload/passes/tuple_simplifier.py", "offload/passes/sharding_remover.py",
    "offload/passes/host_offloader/__init__.py", "offload/passes/host_offloader/host_compute.py",
    "offload/passes/host_offloader/messages.py", "offload/passes/host_offloader/rewrites.py",
    "offload/passes/host_offloader/start_discovery.py", "offload/passes/host_offloader/state.py",
    "offload/passes/host_offloader/verdict.py", "offload/passes/host_offloader/walk.py",
    "offload/passes/host_offload_legalize/__init__.py", "offload/passes/host_offload_legalize/branches.py",
    "offload/passes/host_offload_legalize/chain.py", "offload/passes/host_offload_legalize/copies.py",
    "offload/passes/host_offload_legalize/state.py",
    "offload/passes/dead_steps.py", "offload/passes/insertions.py", "offload/passes/host_offload_utils.py",
    "offload/passes/host_offloading_prepare.py",
    "offload/annotations.py", "offload/later_failures.py", "offload/later_loops.py", "offload/no_start.py",
    "offload/analysis.py", "ir/verify.py", "ir/shape_inference.py", "syntax/literal.py",
    "offload/passes/conditional_code_motion.py", "offload/passes/concat_decomposer.py",
    "offload/passes/conditional_canonicalizer.py", "offload/passes/sdy_manual_shapes.py",
    "offload/passes/scatter_to_dus.py", "offload/passes/while_initializer_removal.py",
    "offload/passes/while_loop_simplifier.py", "offload/passes/pipelining_optimizations.py",
    "offload/passes/hlo_pass_pipeline.py", "offload/passes/stablehlo_rebuild.py",
    "offload/passes/hlo_host_device_type_call_wrapper.py", "offload/passes/analysis_context.py",
    "offload/passes/pass_state.py", "offload/later_scatter.py", "offload/later_nested.py", "offload/loop_trips.py",
    "offload/pipeline.py", "offload/later_scan.py", "ir/opcodes.py", "ir/callers.py", "ir/module_add.py", "syntax/line_split.py",
    "syntax/body_scope.py",
)
"""The compiled core, relative to ``src/xladoctor``: the modules hot in ``offload``'s profile."""

NATIVE = {"xladoctor.catalogue._newline_count": "src/xladoctor/catalogue/_newline_count.c"}
"""Plain C extension modules of the compiled core, beside mypyc's: the newline count of a log's line
numbers (SSE2, or AVX2 where the core has it, over a buffer in place; ``bytes.count`` is CPython's scalar loop, a third of
``explain``'s CPU on a 500 MB log whose last error is at its end: bench/README.md, issue 36 item 6).
catalogue/newlines.py falls back to ``bytes.count`` where it is not built."""


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
    from setuptools import Extension

    native = [Extension(name, [source], extra_compile_args=["-O3"]) for name, source in NATIVE.items()]
    return [*mypycify([*flags, *(f"src/xladoctor/{m}" for m in COMPILED)], opt_level="3", group_name="xladoctor_core"),
            *native]


# setup_requires is what setuptools' build backend asks pip to install into an isolated build
# environment: mypy only for the compiled build.
setup(ext_modules=_ext_modules(),
      setup_requires=["mypy>=2.4,<2.5"] if os.environ.get("XLADOCTOR_COMPILE", "") == "1" else [])
