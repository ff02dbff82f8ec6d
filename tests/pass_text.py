"""Text-in/text-out pass tests, as XLA's and xDSL's: HLO text in, one pass run, the printed module
compared with the expected text (:func:`assert_pass`), or checked FileCheck-like where the pass'
own text order is not the point (:func:`check_pass`).

A pass is given as the object the pipeline runs (``HloDCE()``, ``HostOffloader(options)``: XLA's
``HloPassInterface``), run by the pipeline runner with the IR's lint before and after it; its
``changed`` must say whether the printed module changed.  A helper that is no pass of its own
(``forward_tuple_elements``) is given as a function and only linted after.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from textwrap import dedent
from typing import Any

from xladoctor.ir.module import HloModule
from xladoctor.offload.passes.hlo_pass_interface import HloPassInterface
from xladoctor.offload.passes.hlo_pass_pipeline import HloPassPipeline
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

Runnable = HloPassInterface | Callable[[HloModule], Any]


def run_pass(run: Runnable, before: str) -> str:
    """Parse ``before``, run the pass on it, lint, and print the module."""
    module = parse_module(dedent(before).strip() + "\n")
    if not isinstance(run, HloPassInterface):
        run(module)
        module.lint()
        return print_module(module).strip()
    unchanged = print_module(module).strip()
    pipeline = HloPassPipeline(f"test-{run.name}", lint=True)
    pipeline.add_pass(run)
    changed = pipeline.run(module)
    after = print_module(module).strip()
    assert changed is (after != unchanged), f"{run.name} says changed={changed}, the printed module says otherwise"
    return after


def assert_pass(run: Runnable, before: str, after: str) -> None:
    """The module printed after the pass is exactly ``after``."""
    got, want = run_pass(run, before), dedent(after).strip()
    assert got == want, "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(),
                                                       "expected", "after the pass", lineterm=""))


def check_pass(run: Runnable, before: str, checks: str) -> None:
    """FileCheck's ``CHECK-DAG:`` (the line is in the output) and ``CHECK-NOT:`` (nowhere in it),
    one directive a line, on the printed module's lines with surrounding blanks stripped."""
    lines = [ln.strip() for ln in run_pass(run, before).splitlines()]
    text = "\n".join(lines)
    for raw in dedent(checks).strip().splitlines():
        directive, _, pattern = raw.strip().partition(": ")
        if directive == "CHECK-DAG":
            assert pattern in lines, f"no line '{pattern}' in:\n{text}"
        elif directive == "CHECK-NOT":
            assert pattern not in text, f"'{pattern}' found in:\n{text}"
        else:
            raise ValueError(f"unknown directive: {raw!r}")
