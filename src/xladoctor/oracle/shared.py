"""One long-lived worker per topology for single compiles (CLI ``--confirm``, Python API)."""

from __future__ import annotations

import atexit
import threading
from typing import Any

from .verdict import Verdict
from .worker import DEFAULT_TOPOLOGY, OracleWorker

_WORKERS: dict[str, OracleWorker] = {}
_LOCK = threading.Lock()


def shared_worker(topology: str = DEFAULT_TOPOLOGY) -> OracleWorker:
    with _LOCK:
        worker = _WORKERS.get(topology)
        if worker is None:
            worker = _WORKERS[topology] = OracleWorker(topology)
        return worker


def close_shared() -> None:
    while _WORKERS:
        _, worker = _WORKERS.popitem()
        worker.close()


atexit.register(close_shared)


def compile_hlo(text: str, topology: str = DEFAULT_TOPOLOGY) -> Verdict:
    """HLO module text (pre-optimisation dump, ``Lowered.as_text("hlo")``...) -> verdict."""
    return shared_worker(topology).compile_hlo(text)


def compile_stablehlo(text: str, topology: str = DEFAULT_TOPOLOGY) -> Verdict:
    """StableHLO/MHLO text (``Lowered.as_text()``) -> verdict."""
    return shared_worker(topology).compile_stablehlo(text)


def compile_jitted(program: Any, *args: Any, topology: str = DEFAULT_TOPOLOGY,
                   jit_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> Verdict:
    """A (jitted) function and its arguments, or a ``jax.stages.Lowered`` -> verdict.

    ``args``/``kwargs`` are the function's own arguments; options for ``jax.jit`` go in
    ``jit_kwargs``, as for :func:`xladoctor.jax.check_offload`.

    The program is lowered here for TPU (works on a CPU-only machine; the memory kinds of
    shardings are kept as ``mhlo.memory_kind``) and its StableHLO compiled in the worker.
    """
    from ..jax.lowering import lower

    lowered = lower(program, args, jit_kwargs or {}, "tpu", kwargs)
    return compile_stablehlo(lowered.as_text(), topology)
