"""Parent side: a persistent worker process that compiles many modules.

Interface (what the differential campaign uses)::

    from xladoctor.oracle import OracleWorker
    with OracleWorker(topology="v5e:2x2", timeout=60.0) as w:
        v = w.compile_hlo(hlo_text)            # -> Verdict
        v = w.compile_stablehlo(mlir_text)     # -> Verdict
        for v in w.compile_many([("hlo", t1), ("stablehlo", t2)]): ...

* libtpu is loaded once per worker process (~1.5 s), then each compile costs what the
  compiler costs (~0.05-0.5 s for small modules).
* A module that aborts the compiler gives ``Verdict(kind="crash", check_line=...)``; a module
  that runs past ``timeout`` seconds gives ``kind="timeout"``.  Either way the process is
  replaced before the next module, so one bad module never stops a batch.
* Where libtpu cannot run every call returns ``kind="unavailable"`` with the reason; no
  exception is raised for a missing extra.
* The worker is replaced every ``recycle_after`` compiles (default 500): its memory grows by
  about 0.35 MB a compile (measured: 330 -> 400 MB RSS over 200 small modules), and a restart
  costs one libtpu start.
* Not thread-safe: use one worker per thread; :func:`compile_parallel` runs several.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from typing import Iterable, Iterator

from .availability import unavailable_reason
from .verdict import Verdict, crash_line

DEFAULT_TOPOLOGY = "v5e:2x2"
TOPOLOGIES = ("v5e:2x2", "v4:2x2x1", "v5p:2x2x1", "v6e:2x2")
START_TIMEOUT = 120.0


class OracleWorker:
    """A child process holding a TPU compile-only client for one topology."""

    def __init__(self, topology: str = DEFAULT_TOPOLOGY, timeout: float = 120.0,
                 want_text: bool = True, recycle_after: int | None = 500):
        self.topology = topology
        self.timeout = timeout
        self.want_text = want_text
        self.recycle_after = recycle_after
        self.restarts = 0
        """Processes replaced after a crash or a timeout (not counting recycling)."""
        self._compiles_here = 0
        self._proc: subprocess.Popen | None = None
        self._stderr = None
        self._buffer = b""
        self._next_id = 0
        self._unavailable: str | None = unavailable_reason()

    # -- lifecycle ----------------------------------------------------------------
    def __enter__(self) -> "OracleWorker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.stdin.close()
                proc.wait(timeout=10)
            except Exception:
                proc.kill()
                proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    @property
    def unavailable(self) -> str | None:
        """Why no compile can run here (``None`` when it can); starts the worker to find out."""
        if self._unavailable is None and self._proc is None:
            self._start()
        return self._unavailable

    def _start(self) -> None:
        self._kill()
        # Append mode: the child always writes at the end, so the parent may truncate it.
        self._stderr = tempfile.TemporaryFile("a+b")
        self._compiles_here = 0
        env = dict(os.environ)
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "xladoctor.oracle.worker_main", self.topology],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env,
            close_fds=True)
        self._buffer = b""
        hello = self._read_line(START_TIMEOUT)
        if hello is None:
            err = self._stderr_since(0)
            self._kill()
            self._unavailable = ("the oracle worker did not start: "
                                 + (crash_line(err) or _last_line(err) or "no output"))
            return
        msg = json.loads(hello)
        if not msg.get("ready"):
            self._kill()
            self._unavailable = msg.get("reason", "the oracle worker could not start")

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # -- I/O ------------------------------------------------------------------------
    def _read_line(self, timeout: float) -> bytes | None:
        """One reply line, or ``None`` on EOF (the process died) or timeout."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _stderr_since(self, offset: int) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        self._stderr.seek(offset)
        data = self._stderr.read()
        self._stderr.seek(0, os.SEEK_END)
        return data.decode("utf-8", "replace")

    # -- compiling -----------------------------------------------------------------
    def compile(self, kind: str, text: str) -> Verdict:
        """Compile ``text`` (``kind`` ``"hlo"`` or ``"stablehlo"``) in the worker."""
        if self._unavailable is not None:
            return Verdict("unavailable", reason=self._unavailable, topology=self.topology)
        if self.recycle_after and self._compiles_here >= self.recycle_after:
            self._kill()
        if self._proc is None or self._proc.poll() is not None:
            self._start()
            if self._unavailable is not None:
                return Verdict("unavailable", reason=self._unavailable, topology=self.topology)
        assert self._proc is not None and self._proc.stdin is not None and self._stderr is not None
        self._stderr.seek(0, os.SEEK_END)
        if self._stderr.tell() > (4 << 20):  # keep only what the next crash may need
            self._stderr.truncate(0)
        offset = self._stderr.tell()
        self._compiles_here += 1
        self._next_id += 1
        request = {"id": self._next_id, "kind": kind, "text": text, "want_text": self.want_text}
        started = time.monotonic()
        try:
            self._proc.stdin.write((json.dumps(request) + "\n").encode())
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._read_line(self.timeout)
        if line is None:
            died = self._proc.poll() is not None or _wait_exit(self._proc, 2.0)
            err = self._stderr_since(offset)
            rc = self._proc.returncode
            self._kill()
            self.restarts += 1
            if not died:
                return Verdict("timeout", topology=self.topology, seconds=time.monotonic() - started,
                               reason=f"no verdict within {self.timeout:g} s; the compile was killed")
            return Verdict("crash", topology=self.topology, stage="compile",
                           check_line=crash_line(err), message=_tail(err),
                           reason=f"the compiler process died (exit status {_status(rc)})")
        reply = json.loads(line)
        return Verdict.from_json(reply["verdict"])

    def compile_hlo(self, text: str) -> Verdict:
        return self.compile("hlo", text)

    def compile_stablehlo(self, text: str) -> Verdict:
        return self.compile("stablehlo", text)

    def compile_many(self, items: Iterable[tuple[str, str]]) -> Iterator[Verdict]:
        """``(kind, text)`` pairs in, one verdict per pair out, in order."""
        for kind, text in items:
            yield self.compile(kind, text)


def compile_parallel(items: Iterable[tuple[str, str]], workers: int = 2, topology: str = DEFAULT_TOPOLOGY,
                     timeout: float = 120.0, want_text: bool = False) -> list[Verdict]:
    """Compile ``(kind, text)`` pairs on ``workers`` worker processes; verdicts in input order.

    Each thread drives its own :class:`OracleWorker`, so the compiles run in parallel
    processes; a crash or timeout costs only that worker a restart.
    """
    import queue
    import threading

    todo = list(enumerate(items))
    results: list[Verdict | None] = [None] * len(todo)
    jobs: "queue.Queue[tuple[int, tuple[str, str]]]" = queue.Queue()
    for job in todo:
        jobs.put(job)

    def drain() -> None:
        with OracleWorker(topology, timeout=timeout, want_text=want_text) as w:
            while True:
                try:
                    i, (kind, text) = jobs.get_nowait()
                except queue.Empty:
                    return
                results[i] = w.compile(kind, text)

    threads = [threading.Thread(target=drain, daemon=True) for _ in range(max(1, min(workers, len(todo))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r if r is not None else Verdict("unavailable", reason="not compiled") for r in results]


def _wait_exit(proc: subprocess.Popen, seconds: float) -> bool:
    try:
        proc.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def _status(rc: int | None) -> str:
    return "unknown" if rc is None else str(rc)


def _last_line(text: str) -> str | None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else None


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.splitlines()[-lines:])
