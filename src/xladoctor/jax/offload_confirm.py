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
    target = platform_of(topology)
    same = program.platform == target or (target == "cuda" and is_gpu_platform(program.platform))
    lowered = program.lowered if same else lower(fn, args, jit_kwargs, target, kwargs)
    verdict = worker.compile_stablehlo(lowered.as_text(), want_text=False)
    return compare(prediction_of(result, program.module), verdict), None


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
