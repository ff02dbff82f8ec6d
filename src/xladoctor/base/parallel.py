"""Run one function over many inputs in worker processes, in input order, surviving crashed workers.

A Python exception inside the function is the function's business (``check_path``
turns it into an error entry).  A worker that dies (a CHECK failure in a native
library, the kernel's OOM killer) breaks the whole pool; then every input not yet
done is retried alone in a fresh one-worker pool, so exactly the input that kills
its worker is reported (by ``on_crash``) and all others still get their results.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any


class _Pool(ProcessPoolExecutor):
    """A pool whose workers end with it when it is left by Ctrl-C, SIGTERM (cli.main raises
    ``Terminated``) or any other BaseException that is not an Exception: the workers are killed
    and nothing is waited for (``shutdown(wait=True)`` would wait for every running input to
    finish, and hung once in several tries), so no worker outlives the command holding its
    stdout open."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """As ProcessPoolExecutor's; the first one forks the workers, with Ctrl-C and SIGTERM held
        (:func:`signals_held`)."""
        with signals_held():
            return super().submit(fn, *args, **kwargs)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        if exc_type is not None and not issubclass(exc_type, Exception):
            end_workers(self)
            return False
        return bool(super().__exit__(exc_type, exc, tb))


_HELD = ("SIGINT", "SIGTERM")


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held (blocked, delivered on the way out) while the pool forks its workers.

    A signal that arrived during the fork was lost or misread (``tests/test_signals.py``, 3 of 6 runs
    under load): in the parent, its handler ran inside an at-fork hook (logging's ``_releaseLock``),
    which prints and swallows the exception, so ``check -j`` went on to the end; in a worker not yet
    past its initializer, it raised KeyboardInterrupt or the parent's ``Terminated``, the pool broke,
    and the run ended as an internal error.  Held here, the parent's handler runs after the fork, where
    the pool's ``__exit__`` ends the workers; a worker inherits the mask and lets the signals through
    only once its initializer has set what they do there (:func:`_worker_start`)."""
    import signal

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {getattr(signal, name) for name in _HELD}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def end_workers(executor: ProcessPoolExecutor) -> None:
    """Kill a pool's worker processes now and let go of it without waiting."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for p in processes:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        try:
            p.join(1.0)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass


def _worker_start(parent: int | None = None) -> None:
    """In each worker: Ctrl-C (sent to the terminal's whole process group) is the parent's to handle,
    SIGTERM kills at once (not the parent's handler, inherited by fork), and the worker dies with
    its parent on Linux (PR_SET_PDEATHSIG) even when the parent is killed outright.  ``parent`` is
    the pool's process, read before the fork: read here, a parent killed in between would already
    be init, and the worker would live on holding the command's stdout."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)
    if hasattr(signal, "pthread_sigmask"):  # held by the parent while it forked (signals_held)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {getattr(signal, name) for name in _HELD})


def die_with_parent(parent: int | None = None) -> None:
    """Linux: this process gets SIGKILL when the thread that started it ends (prctl PR_SET_PDEATHSIG);
    exits at once if that parent (``parent``, else the parent now) is already gone.  Nothing elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import os
    import signal

    parent = os.getppid() if parent is None else parent
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the prctl took hold
        os._exit(1)


def pool(workers: int) -> ProcessPoolExecutor:
    """A process pool that starts fast: ``fork`` from a single-threaded process (the CLI), ``forkserver``
    when threads are running (a notebook with jax loaded), where forking could deadlock the child.
    Its workers never outlive an interrupted command (:class:`_Pool`)."""
    method = None
    if sys.platform.startswith("linux"):
        # jax and jaxlib run native threads that threading does not count
        threaded = threading.active_count() > 1 or "jax" in sys.modules or "jaxlib" in sys.modules
        method = "forkserver" if threaded else "fork"
    ctx = multiprocessing.get_context(method) if method else None
    # forkserver's workers are the server's children, not ours: only fork knows the parent up front
    parent = os.getpid() if method == "fork" else None
    return _Pool(max_workers=workers, mp_context=ctx, initializer=_worker_start, initargs=(parent,))


def can_start_workers() -> bool:
    """False inside a daemonic process (a ``multiprocessing.Pool`` worker, a ``daemon=True``
    Process): Python forbids it children, so work there runs in-process instead."""
    return not multiprocessing.current_process().daemon


def _call(fn: Callable[..., Any], args: tuple) -> Any:
    return fn(*args)


MAX_WORKERS_PER_CORE = 4
"""``--jobs`` past this many workers per core starts no more: the checks are CPU-bound, so more only
multiply memory (each worker holds a parsed module)."""


def worker_count(jobs: int, tasks: int) -> int:
    """The workers a pool gets for ``tasks`` tasks at ``--jobs jobs``: never more than the tasks nor
    :data:`MAX_WORKERS_PER_CORE` per core.  The ``fork`` pool starts every worker at once, so
    ``check -j 100000`` on two files forked 100,000 processes (24 for ``-j 24``, measured)."""
    return max(1, min(jobs, tasks, MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)))


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
    with pool(worker_count(jobs, len(arg_tuples))) as workers:
        futures: dict[Future, int] = {}
        try:  # a worker that dies while the tasks are still being handed out breaks the pool there too
            for i, a in enumerate(arg_tuples):
                futures[workers.submit(_call, fn, a)] = i
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
