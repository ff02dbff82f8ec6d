"""Run one function over many inputs in worker processes, in input order, surviving crashed workers.

A Python exception inside the function is the function's business (``check_path``
turns it into an error entry).  A worker that dies (a CHECK failure in a native
library, the kernel's OOM killer) breaks the whole pool; then every input not yet
done is retried alone in a fresh one-worker pool, so exactly the input that kills
its worker is reported (by ``on_crash``) and all others still get their results.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any


def pool(workers: int) -> ProcessPoolExecutor:
    """A process pool that starts fast: ``fork`` from a single-threaded process (the CLI), ``forkserver``
    when threads are running (a notebook with jax loaded), where forking could deadlock the child."""
    method = None
    if sys.platform.startswith("linux"):
        # jax and jaxlib run native threads that threading does not count
        threaded = threading.active_count() > 1 or "jax" in sys.modules or "jaxlib" in sys.modules
        method = "forkserver" if threaded else "fork"
    ctx = multiprocessing.get_context(method) if method else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx)


def can_start_workers() -> bool:
    """False inside a daemonic process (a ``multiprocessing.Pool`` worker, a ``daemon=True``
    Process): Python forbids it children, so work there runs in-process instead."""
    return not multiprocessing.current_process().daemon


def _call(fn: Callable[..., Any], args: tuple) -> Any:
    return fn(*args)


def map_isolated(fn: Callable[..., Any], arg_tuples: Sequence[tuple], jobs: int,
                 on_done: Callable[[], None], on_crash: Callable[[tuple, str], Any],
                 keep: Callable[[int, Any], Any] | None = None) -> list[Any]:
    """``fn`` over ``arg_tuples``; ``keep(i, result)``, called as each result arrives (in any
    order), returns what is kept of it (``check`` keeps a small part of each file's document)."""
    def kept(i: int, result: Any) -> Any:
        return result if keep is None else keep(i, result)

    if not can_start_workers():  # in-process: no isolation from crashes, but no internal error either
        results = []
        for i, a in enumerate(arg_tuples):
            results.append(kept(i, fn(*a)))
            on_done()
        return results
    results = [None] * len(arg_tuples)
    done = [False] * len(arg_tuples)
    with pool(jobs) as workers:
        futures: dict[Future, int] = {workers.submit(_call, fn, a): i for i, a in enumerate(arg_tuples)}
        try:
            for fut in as_completed(futures):
                i = futures.pop(fut)  # as_completed lets go of it too: its result is freed once kept
                results[i], done[i] = kept(i, fut.result()), True
                del fut
                on_done()
        except BrokenProcessPool:
            pass
    for i, a in enumerate(arg_tuples):
        if done[i]:
            continue
        with pool(1) as alone:
            try:
                results[i] = kept(i, alone.submit(_call, fn, a).result())
            except BrokenProcessPool as e:
                results[i] = kept(i, on_crash(a, str(e) or "the process died"))
        on_done()
    return results
