"""Nested scans under grad with an offloading checkpoint policy: a failure exactly where libtpu rejects.

MaxText PR #4995's NESTED case, and user_programs ``remat_grad`` seeds 42, 67 and 80, failed on a
real TPU v5e chip ("The async-start expects the shape of operand 0 to match the async shape");
``remat_grad`` seed 78 (also outer 4, inner 2) ran right.  What tells them apart is not the loops:
seed 78's activation (``v + 1``) needs no named residual, so its policy offloads nothing and no
buffer is stacked on host at all.  The boundary (offload/later_nested.py) is checked here against
libtpu compile-only on generated variants: the grad form (``bench/public_boundaries.py nested``)
and the same two host stacks written by hand and read back by several readers (``stack``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from xladoctor.jax import check_offload  # noqa: E402

BENCH = Path(__file__).resolve().parent.parent / "bench"
DATA = Path(__file__).resolve().parent / "data" / "chip"
sys.path.insert(0, str(BENCH))

import public_boundaries  # noqa: E402
import public_programs  # noqa: E402
import user_programs  # noqa: E402

ASYNC_START = "The async-start expects the shape of operand 0 to match the async shape"


def _chip(family_seed: str) -> dict:
    family, seed = family_seed.split(":")
    for path in sorted(DATA.glob("round*.jsonl")):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("kind") == "user" and rec.get("family") == family and rec.get("seed") == int(seed) \
                    and not rec.get("fix"):
                return rec
    raise AssertionError(family_seed)


@pytest.mark.parametrize("name", ["remat_grad:42", "remat_grad:67", "remat_grad:80"])
def test_the_nested_scans_the_chip_rejected_are_failures(name):
    rec = _chip(name)
    assert rec["outcome"] == "compile_error" and ASYNC_START in rec["error"]
    prog = user_programs.build(*name.split(":")[:1], int(name.split(":")[1]))
    assert prog.choices["nested"] and prog.choices["scanned"] and prog.choices["depth"] >= 2
    report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
    assert report.outcome == "failure"
    assert ASYNC_START in report.failures[0] and "libtpu 0.0.42.1" in report.failures[0]
    assert "user_programs.py:" in report.failures[0]  # the loops by their Python lines


def test_the_nested_scans_that_ran_right_offload_nothing():
    """remat_grad:78, outer 4 and inner 2 like the rejected ones, ran right: nothing is placed on
    host in its module, and we say ok with no warning."""
    rec = _chip("remat_grad:78")
    assert rec["outcome"] in ("right", "wrong") and rec["compare"]["worst_fraction"] < 0.001
    prog = user_programs.build("remat_grad", 78)
    assert prog.choices["nested"] and prog.choices["depth"] == 4
    text = jax.jit(prog.fn).trace(*prog.args).lower(lowering_platforms=("tpu",)).as_text("hlo")
    assert "pinned_host" not in text and "annotate_device_placement" not in text
    report = check_offload(prog.fn, *prog.args)
    assert report.outcome == "ok" and not report.result.warnings


def test_pr_4995_nested_names_its_loops_by_python_line():
    prog = public_programs.build("maxtext_pr4995_nested")
    report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
    assert report.outcome == "failure"
    text = report.failures[0]
    assert text.startswith("INTERNAL: libtpu 0.0.42.1 fails: INTERNAL: during context [post-optimization]: " + ASYNC_START)
    assert "f32[4,3,16,128]" in text and "in each of its 4 iterations" in text and "over 3 iterations" in text
    assert text.count("public_programs_2.py:") == 3  # outer, inner and the reading loop
    assert "jax.checkpoint" in text


NESTED_CASES = [  # outer, inner, width, dtype, name_at, outer_checkpointed
    (2, 2, 128, "float32", "input", False), (4, 3, 256, "bfloat16", "input", False),
    (3, 2, 128, "float32", "pre", False), (2, 1, 128, "float32", "input", False),
    (1, 3, 128, "float32", "input", False), (3, 3, 128, "float32", "output", False),
    (2, 2, 128, "float32", "input", True)]


@pytest.mark.parametrize("case", NESTED_CASES)
def test_the_nested_rule_is_the_real_compilers(tpu_worker, case):
    """Rejected exactly when both scans run 2+ times and the policy offloads something (the layer's
    input or its pre-activation); the fix our failure gives (jax.checkpoint around the outer body)
    compiles."""
    fn, args = public_boundaries.nested_program(*case)
    row = public_boundaries.judge_one(tpu_worker, fn, args)
    assert row["compiler"] in ("compiles", "xla_error"), row
    assert (row["ours"] == "failure") is (row["compiler"] != "compiles"), row
    if row["compiler"] != "compiles":
        assert ASYNC_START in row["message"] and ASYNC_START in row["failures"][0]


STACK_CASES = [(2, 2, "float32", "scan_scan"), (3, 2, "float32", "scan_rows"), (4, 3, "float32", "fori_scan"),
               (3, 2, "bfloat16", "scan_scan"), (2, 1, "float32", "scan_scan"), (1, 2, "float32", "fori_scan"),
               (3, 2, "float32", "slice_to_device"), (3, 2, "float32", "outside_loop"),
               (3, 2, "float32", "host_argument")]


@pytest.mark.parametrize("case", STACK_CASES)
def test_the_nested_rule_on_hand_written_stacks(tpu_worker, case):
    """No grad: an inner scan stacks moves to host inside an outer scan; read back in a loop that
    keeps each slice on host it fails, read whole to device, outside a loop, or from a host argument
    it compiles."""
    fn, args = public_boundaries.stack_program(*case) if case[3] != "host_argument" else \
        public_boundaries.host_argument_program(*case[:3])
    row = public_boundaries.judge_one(tpu_worker, fn, args)
    assert row["compiler"] in ("compiles", "xla_error"), row
    assert (row["ours"] == "failure") is (row["compiler"] != "compiles"), row
