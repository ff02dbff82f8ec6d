"""``check_offload(..., confirm=True)``: compile the same program with the real TPU compiler.

The program is lowered for TPU (the lowering the prediction used, when it was for TPU) and
its StableHLO -- memory kinds included -- is compiled in the oracle's worker process
(:mod:`xladoctor.oracle`).  The comparison is the one ``xladoctor offload --confirm`` makes.
"""

from __future__ import annotations

from typing import Any

from ..labels import label
from ..offload.result import HostOffloadResult
from ..oracle import DEFAULT_TOPOLOGY, INSTALL_HINT, Comparison, Verdict, compare, prediction_of, shared_worker
from .lowering import LoweredProgram, lower


def confirm_program(program: LoweredProgram, result: HostOffloadResult, fn: Any, args: tuple,
                    jit_kwargs: dict, topology: str,
                    kwargs: dict | None = None) -> tuple[Comparison | None, str | None]:
    """``(comparison, None)``, or ``(None, note)`` when no real compiler can run here."""
    worker = shared_worker(topology)
    why = worker.unavailable
    if why is not None:
        return None, label("jax_report.not_confirmed", why=why, hint="" if INSTALL_HINT in why else f"; {INSTALL_HINT}")
    lowered = program.lowered if program.platform == "tpu" else lower(fn, args, jit_kwargs, "tpu", kwargs)
    verdict = worker.compile_stablehlo(lowered.as_text(), want_text=False)
    return compare(prediction_of(result, program.module), verdict), None


def compile_jitted(program: Any, *args: Any, topology: str = DEFAULT_TOPOLOGY,
                   jit_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> Verdict:
    """A (jitted) function and its arguments, or a ``jax.stages.Lowered`` -> verdict.

    ``args``/``kwargs`` are the function's own arguments; options for ``jax.jit`` go in
    ``jit_kwargs``, as for :func:`xladoctor.jax.check_offload`.

    The program is lowered here for TPU (works on a CPU-only machine; the memory kinds of
    shardings are kept as ``mhlo.memory_kind``) and its StableHLO compiled in the worker.
    It lives here, not in :mod:`xladoctor.oracle`, because lowering a JAX program is this
    front door's job and the oracle sits below it.
    """
    lowered = lower(program, args, jit_kwargs or {}, "tpu", kwargs)
    return shared_worker(topology).compile_stablehlo(lowered.as_text())
