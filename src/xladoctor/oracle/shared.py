"""One long-lived worker per topology for single compiles (CLI ``--confirm``, Python API)."""

from __future__ import annotations

import atexit
import threading

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

