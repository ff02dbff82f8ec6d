"""Judging one run on the chip against the same program on the CPU: inputs, comparison, outcome.

Shared by ``--confirm --run`` (:mod:`.run_main`, in the worker that holds the chip) and the chip
campaign (``bench/chip_jobs.py``), so that the tool and the campaign whose data the tests read
call the same thing "right".  Pure numpy: nothing here imports jax, so the parent process and
the tests can use it without a backend.

Outcomes: ``right``, ``wrong`` (an output differs from the CPU's beyond the tolerance below),
``compile_error``, ``runtime_error`` (``halt`` when the core halted), ``refused`` (JAX refused the
call before running), ``trace_error`` (JAX refused the program itself), ``ran`` (no reference to
compare with).  The supervisor of the worker adds ``crash`` (the process died) and ``timeout``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..base.labels import label

HALT_MARKS = ("E0200", "RuntimeUnexpectedCoreHalt")
"""What the runtime prints when the TPU core halted (the next program in that process fails too)."""
NARROW_TOLERANCE = 5e-2
"""rtol = atol for types narrower than 32 bits (bf16, f16, 8-bit): their own rounding."""
WIDE_TOLERANCE = 2e-3
"""rtol = atol for 32- and 64-bit types, with both sides' matmuls at 'highest' precision."""
OUTCOMES_BY_STAGE = {"trace": "trace_error", "compile": "compile_error", "call": "refused",
                     "run": "runtime_error", "fetch": "runtime_error"}


def text_of(e: BaseException) -> str:
    """The exception as a user sees it printed: ``module.Class: message`` (first 4,000 characters)."""
    return f"{type(e).__module__}.{type(e).__name__}: {e}"[:4000]


def seed_of(name: str) -> int:
    """The seed the chip campaign derives from a program's name (crc32), so reruns get the same numbers."""
    return zlib.crc32(name.encode())


def random_inputs(specs: Iterable[tuple[Sequence[int], Any]], seed: int) -> list[np.ndarray]:
    """One array per ``(shape, dtype)``: floats normal with scale 0.5, booleans 0/1, integers 0-2
    (small, so that indices stay in range and sums stay exact).  The CPU reference and the chip
    get the same numbers for the same ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in specs:
        dt = np.dtype(dtype)
        if np.issubdtype(dt, np.floating) or dt.name.startswith(("bfloat16", "float8")):
            out.append((rng.standard_normal(tuple(shape)) * 0.5).astype(dt))
        elif dt == np.bool_:
            out.append(rng.integers(0, 2, tuple(shape)).astype(dt))
        else:
            out.append(rng.integers(0, 3, tuple(shape)).astype(dt))
    return out


def compare_leaves(got: Sequence[Any], want: Sequence[Any]) -> dict[str, Any]:
    """Leaf by leaf (outputs in order): how many elements differ beyond a dtype's tolerance.

    ``max_rel_to_scale`` is the largest difference over the largest magnitude of the CPU's leaf:
    measured that way the campaign's f32 differences were noise (at most 0.17% of the scale)."""
    if len(got) != len(want):
        return {"same": False, "why": label("confirm.outputs_count", got=len(got), want=len(want))}
    bad_leaves, worst = [], 0.0
    for i, (a, b) in enumerate(zip(got, want)):
        a64, b64 = np.asarray(a).astype(np.float64), np.asarray(b).astype(np.float64)
        if a64.shape != b64.shape:
            return {"same": False, "why": label("confirm.output_shape", output=i, got=list(a64.shape),
                                                want=list(b64.shape))}
        tol = NARROW_TOLERANCE if np.dtype(np.asarray(a).dtype).itemsize < 4 else WIDE_TOLERANCE
        off = ~np.isclose(a64, b64, rtol=tol, atol=tol, equal_nan=True)
        frac = float(off.mean()) if off.size else 0.0
        if frac > 0:
            diff = np.abs(a64 - b64)
            scale = float(np.nanmax(np.abs(b64))) or 1.0
            bad_leaves.append({"leaf": i, "dtype": str(np.asarray(a).dtype), "shape": list(a64.shape),
                               "fraction_wrong": round(frac, 4), "max_abs_diff": float(np.nanmax(diff)),
                               "max_rel_to_scale": float(np.nanmax(diff)) / scale,
                               "fraction_off_by_5pct_of_scale": float(np.mean(diff > 0.05 * scale))})
        worst = max(worst, frac)
    return {"same": not bad_leaves, "wrong_leaves": bad_leaves[:8], "n_wrong_leaves": len(bad_leaves),
            "worst_fraction": worst}


def judged(stage: str, out: Any, err: str, ref_stage: str, ref_out: Any, ref_err: str,
           compare: Any = compare_leaves) -> dict[str, Any]:
    """The outcome of a chip run (``stage`` ``ok`` with outputs ``out``, or the stage that failed
    and its error text) against the CPU's on the same inputs.  ``compare`` takes the two outputs
    (the campaign passes a pytree-aware one)."""
    res: dict[str, Any] = {}
    if ref_stage != "ok":
        res["reference_error"] = ref_err[:600]
    if stage != "ok":
        outcome = OUTCOMES_BY_STAGE[stage]
        return {**res, "error": err, "outcome": "halt" if any(m in err for m in HALT_MARKS) else outcome}
    if ref_stage != "ok":
        return {**res, "outcome": "ran"}
    cmp = compare(out, ref_out)
    return {**res, "compare": cmp, "outcome": "right" if cmp["same"] else "wrong"}
