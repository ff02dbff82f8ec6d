"""One jax program predicted by ``check_offload`` and compiled by the real libtpu, compared.

The later-failure and cond-branch tests each judge many programs the same way; the shared steps
live here so each test says only what its class adds."""

from __future__ import annotations

from typing import Any


def judged(fn: Any, args: tuple, expected: str, jit_kwargs: dict | None = None) -> tuple[Any, Any]:
    """``(report, verdict)`` once the prediction's outcome is ``expected`` and agrees with libtpu's."""
    from xladoctor.jax import check_offload
    from xladoctor.jax.offload_confirm import compile_jitted
    from xladoctor.oracle import compare, prediction_of

    report = check_offload(fn, *args, jit_kwargs=jit_kwargs)
    verdict = compile_jitted(fn, *args, jit_kwargs=jit_kwargs)
    assert report.outcome == expected, (report.failures, verdict.summary())
    comparison = compare(prediction_of(report.result, report.program.module), verdict)
    assert comparison.agree, comparison.reason
    return report, verdict
