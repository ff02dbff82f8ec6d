"""The ``xladoctor`` console script and ``python -m xladoctor``: :func:`~xladoctor.cli.main.main`, then
the process ends without tearing its heap down.

Why (issue 36, h43x): when the command has returned, an ordinary exit deallocates every object one
by one (the module, the analysis' copy, the findings: millions of objects at 1M instructions) and
runs the interpreter's last collections, only for the process to end: 0.20 of ~2.5 CPU-s of
``offload`` at 100k instructions, 0.05 of ~0.5 on the unrolled train step (bench/README.md, h43x).
Command-line tools end with ``os._exit`` once their streams are flushed (mypy's
``util.hard_exit``).  Only this entry does it, and it owns the collector (``base/collector``'s
:func:`~xladoctor.base.collector.own_heap`); ``main()`` called in-process (the tests, the pytest
plugin, a notebook) returns as before.

What an ordinary exit does that matters is done first, in its order: it waits for threads that
are not daemons (if one is still running, the exit is left to Python), runs the ``atexit``
handlers (multiprocessing's children, the oracle's compile workers, logging,
``weakref.finalize``'s temporary folders; Python then has none left to run twice) and flushes the
standard streams.  A flush that fails (stdout a closed pipe) leaves the rest to Python, so its
message and exit status are today's.  Files the commands write are closed by ``with`` blocks
before the command returns (``_atomic.py``), worker pools and Dask clients are shut down in
``finally`` blocks (``base/parallel.py``, ``route/fleet.py``).
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    """Run the command line; returns its exit code only where the process could not end at once."""
    from .main import main as run

    if sys.argv[1:] == ["--version"]:  # nothing to tear down, and its start-up is measured
        return run()
    from ..base.collector import own_heap

    own_heap()
    code = run()
    end_now(code)
    return code


def end_now(code: int) -> None:
    """End the process with ``code`` after the atexit handlers and a flush of stdout and stderr;
    return instead (Python's own exit follows) if a thread other than a daemon is alive, or a
    stream cannot be flushed."""
    if _may_end_now():
        os._exit(code)
    from ..base.collector import disown_heap

    disown_heap()  # Python's exit, as ordinary as main()'s: no frozen cycle outlives it


def _may_end_now() -> bool:
    """Whether nothing Python's exit would still do is left: the atexit handlers run and the streams
    flushed here (in the exit's order), no thread it would wait for."""
    if not _only_daemon_threads():
        return False
    import atexit

    atexit._run_exitfuncs()  # prints and skips a handler that raises, as the exit does
    if not _only_daemon_threads():  # a handler started one
        return False
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: Python's exit says what it says today
            return False
    return True


def _only_daemon_threads() -> bool:
    """No thread Python's exit would wait for (threading is only asked if something imported it)."""
    threading = sys.modules.get("threading")
    if threading is None:
        return True
    main_thread = threading.main_thread()
    return all(t is main_thread or t.daemon or not t.is_alive() for t in threading.enumerate())
