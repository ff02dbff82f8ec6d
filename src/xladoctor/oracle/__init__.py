"""The real XLA TPU and GPU compilers as the judge (``pip install 'xladoctor[tpu]'`` / ``[gpu]``).

libtpu (pinned ``0.0.42.1`` with ``jax``/``jaxlib`` ``0.10.2``) compiles for a TPU topology
on any Linux x86-64 machine, no accelerator needed; so does XLA:GPU through the CUDA PJRT
plugin, for a GPU target built from one of XLA's target configs (``"h100"``, ``"a100"``:
:mod:`.gpu_backend`).  Every compile runs in a worker process (:class:`OracleWorker`),
because a CHECK failure inside the compiler aborts its process.

Single compiles (one shared worker per topology, started on first use)::

    from xladoctor.oracle import compile_hlo, compile_stablehlo
    v = compile_hlo(open("module.hlo").read())          # Verdict(kind="e1200", start="tuple.1", ...)

A JAX program: :func:`xladoctor.jax.compile_jitted` (lowering is the JAX front door's job).

Batches: ``with OracleWorker(topology, timeout=60) as w: w.compile_hlo(t)`` -- see
:mod:`.worker`.  Verdicts: :mod:`.verdict`.  Comparing a predicted E1200 start with XLA's:
:func:`same_instruction` (:mod:`.naming`).  Nothing here imports jax until a compile runs.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

# Names -> the submodule defining them; loaded on first use so that importing
# xladoctor.oracle (the CLI does, for --topology) costs nothing.
_EXPORTS = {
    "INSTALL_HINT": "availability", "available": "availability", "unavailable_reason": "availability",
    "Confirmation": "confirmation", "Judge": "confirmation",
    "Comparison": "comparison", "Prediction": "comparison", "compare": "comparison", "prediction_of": "comparison",
    "same_instruction": "naming", "stem": "naming",
    "close_shared": "shared", "compile_hlo": "shared",
    "compile_stablehlo": "shared", "shared_worker": "shared",
    "KINDS": "verdict", "Verdict": "verdict",
    "DEFAULT_TOPOLOGY": "topologies", "TOPOLOGIES": "topologies", "DEFAULT_GPU_TOPOLOGY": "topologies",
    "GPU_TOPOLOGIES": "topologies", "platform_of": "topologies",
    "OracleWorker": "worker", "compile_parallel": "worker",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
