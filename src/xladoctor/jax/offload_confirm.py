"""``check_offload(..., confirm=True)``: compile the same program with the real compiler.

The judge is the compiler of the target: libtpu for a TPU topology, XLA:GPU (compile-only,
from one of XLA's GPU target configs) for a GPU one.  With no topology named, the platform
the prediction was lowered for picks it (``cuda``/``gpu`` -> ``h100``, else ``v5e:2x2``), so
a GPU prediction is never "confirmed" by the TPU compiler.  The program is lowered for the
judge's platform (the prediction's own lowering when it is the same) and its StableHLO --
memory kinds included -- is compiled in the oracle's worker process (:mod:`xladoctor.oracle`).
The comparison is the one ``xladoctor offload --confirm`` makes.
"""

from __future__ import annotations

from typing import Any

from ..base.labels import label
from ..offload.result import HostOffloadResult
from ..oracle import Comparison, Verdict, compare, prediction_of, shared_worker
from ..oracle.availability import install_hint
from ..oracle.topologies import DEFAULT_TOPOLOGY, default_topology, is_gpu_platform, platform_of
from .lowering import LoweredProgram, lower


def confirm_program(program: LoweredProgram, result: HostOffloadResult, fn: Any, args: tuple,
                    jit_kwargs: dict, topology: str | None,
                    kwargs: dict | None = None) -> tuple[Comparison | None, str | None]:
    """``(comparison, None)``, or ``(None, note)`` when no real compiler can run here."""
    topology = topology or default_topology(program.platform)
    worker = shared_worker(topology)
    why = worker.unavailable
    if why is not None:
        hint = install_hint(topology)
        return None, label("jax_report.not_confirmed", why=why, hint="" if hint in why else f"; {hint}")
    lowered = _lowered_for(program, fn, args, jit_kwargs, platform_of(topology), kwargs)
    verdict = worker.compile_stablehlo(lowered.as_text(), want_text=False)
    return compare(prediction_of(result, program.module), verdict), None


def _lowered_for(program: LoweredProgram, fn: Any, args: tuple, jit_kwargs: dict, target: str,
                 kwargs: dict | None) -> Any:
    """The program lowered for ``target``: the prediction's own lowering when it is the same."""
    same = program.platform == target or (target == "cuda" and is_gpu_platform(program.platform))
    return program.lowered if same else lower(fn, args, jit_kwargs, target, kwargs)


def run_program(program: LoweredProgram, result: HostOffloadResult, fn: Any, args: tuple, jit_kwargs: dict,
                kwargs: dict | None, seed: int) -> tuple[Comparison | None, str | None, dict[str, Any]]:
    """``run=True``: compile the TPU lowering on the local chip, run it once on inputs drawn from
    ``seed`` and compare with the CPU, as ``offload --confirm --run`` does.

    Returns ``(comparison, note, {"judge", "run"})``.  The chip is this process's own when its jax
    holds it already (a notebook that has run anything on the TPU), else a worker process's,
    which is ended afterwards so that this process can open the chip later.  Without a chip the
    program is compiled only (libtpu compile-only), and ``run`` says it did not run and why."""
    from ..oracle.confirm import judge_of, on_chip
    from ..oracle.run_chip import chip_present, shared_runner
    from ..oracle.run_here import process_holds_chip

    lowered = _lowered_for(program, fn, args, jit_kwargs, "tpu", kwargs)
    busy = None
    if process_holds_chip() or chip_present():
        try:
            judged = on_chip("", program.module, result, lowered.as_text(), True, seed)
        finally:
            busy = shared_runner().why_not
            shared_runner().close()  # the chip goes back to this process
        if judged is not None:
            on_the_chip, chip, ran, run_doc = judged
            return on_the_chip, None, {"judge": judge_of(chip, ran), "run": run_doc}
    compiled_only, note = confirm_program(program, result, fn, args, jit_kwargs, None, kwargs)
    why = label("jax_report.no_chip_run", busy=f" ({busy})" if busy else "")
    judge = judge_of(None, False, DEFAULT_TOPOLOGY) if compiled_only is not None else None
    return compiled_only, note, {"judge": judge, "run": {"outcome": "not_run", "why": why}}


def compile_jitted(program: Any, *args: Any, topology: str = DEFAULT_TOPOLOGY,
                   jit_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> Verdict:
    """A (jitted) function and its arguments, or a ``jax.stages.Lowered`` -> verdict.

    ``args``/``kwargs`` are the function's own arguments; options for ``jax.jit`` go in
    ``jit_kwargs``, as for :func:`xladoctor.jax.check_offload`.

    The program is lowered here for the topology's platform (TPU, or ``cuda`` for a GPU
    target such as ``"h100"``; works on a CPU-only machine, the memory kinds of shardings
    are kept as ``mhlo.memory_kind``) and its StableHLO compiled in the worker.  A
    ``jax.stages.Lowered`` is compiled as it was lowered.  It lives here, not in
    :mod:`xladoctor.oracle`, because lowering a JAX program is this front door's job and
    the oracle sits below it.
    """
    lowered = lower(program, args, jit_kwargs or {}, platform_of(topology), kwargs)
    return shared_worker(topology).compile_stablehlo(lowered.as_text())
