"""The real XLA TPU compiler as the judge (``pip install 'xladoctor[tpu]'``).

libtpu (pinned ``0.0.42.1`` with ``jax``/``jaxlib`` ``0.10.2``) compiles for a TPU topology
on any Linux x86-64 machine, no accelerator needed.  Every compile runs in a worker process
(:class:`OracleWorker`), because a CHECK failure inside the compiler aborts its process.

Single compiles (one shared worker per topology, started on first use)::

    from xladoctor.oracle import compile_hlo, compile_stablehlo, compile_jitted
    v = compile_hlo(open("module.hlo").read())          # Verdict(kind="e1200", start="tuple.1", ...)
    v = compile_jitted(jax.jit(f, out_shardings=...), x) # lowered for TPU here, compiled there

Batches: ``with OracleWorker(topology, timeout=60) as w: w.compile_hlo(t)`` -- see
:mod:`.worker`.  Verdicts: :mod:`.verdict`.  Comparing a predicted E1200 start with XLA's:
:func:`same_instruction` (:mod:`.naming`).  Nothing here imports jax until a compile runs.
"""

from __future__ import annotations

from .availability import INSTALL_HINT, available, unavailable_reason
from .compare import Comparison, Prediction, compare, prediction_of
from .naming import same_instruction, stem
from .shared import close_shared, compile_hlo, compile_jitted, compile_stablehlo, shared_worker
from .verdict import KINDS, Verdict
from .worker import DEFAULT_TOPOLOGY, TOPOLOGIES, OracleWorker, compile_parallel

__all__ = [
    "Comparison", "DEFAULT_TOPOLOGY", "INSTALL_HINT", "KINDS", "OracleWorker", "Prediction", "TOPOLOGIES",
    "Verdict", "available", "close_shared", "compare", "compile_hlo", "compile_jitted", "compile_parallel",
    "compile_stablehlo",
    "prediction_of",
    "same_instruction", "shared_worker", "stem", "unavailable_reason",
]
