"""Parent side of ``--confirm`` on a machine with a TPU: one isolated worker that holds the chip.

:func:`chip_present` answers without importing jax (a ``/dev/accel*`` or ``/dev/vfio/N`` device
and libtpu installed); :class:`ChipRunner` starts :mod:`.run_main` in its own process, sends one
module per request and reads one reply line per request.  The chip can halt or abort the process
that runs on it, so a worker that dies mid-request is a ``crash`` (with libtpu's CHECK line from
its stderr), one that outruns the timeout is killed (``timeout``), and after either -- or after a
halt or runtime error, which poison what runs next in that process -- the next request gets a
fresh worker.  The worker dies with this process (``PR_SET_PDEATHSIG``), and :func:`end_all`
(at exit, so after Ctrl-C and SIGTERM, docs/robustness.md) kills it.
"""

from __future__ import annotations

import atexit
import glob
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

from ..base.labels import label
from .verdict import crash_line

PARENT_ENV = "XLADOCTOR_CHIP_PARENT"
"""In the worker's environment: the pid of the process that started it.  A parent interrupted
before the worker is in ``_LIVE`` (Ctrl-C while ``Popen`` returns) or before the worker's
``PR_SET_PDEATHSIG`` holds is then seen gone at the worker's start
(:func:`~xladoctor.base.parallel.die_with_parent`), which exits rather than take the chip."""
NO_CHIP_ENV = "XLADOCTOR_NO_CHIP"
"""Set: behave as if no TPU were attached (compile-only ``--confirm``; ``--run`` refused)."""
POISONING = {"halt", "runtime_error", "crash", "timeout"}
START_TIMEOUT = 300.0
_LIVE: set[int] = set()


def chip_present() -> bool:
    """A TPU device file and libtpu: the worker then asks ``jax.devices()`` for the chip itself."""
    if os.environ.get(NO_CHIP_ENV):
        return False
    if not glob.glob("/dev/accel[0-9]*") and not glob.glob("/dev/vfio/[0-9]*"):
        return False
    import importlib.util

    try:
        return importlib.util.find_spec("libtpu") is not None
    except ModuleNotFoundError:
        return False


def end_all() -> None:
    """Kill every chip worker this process started (at exit: Ctrl-C and SIGTERM end through it)."""
    for pid in list(_LIVE):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _LIVE.clear()


atexit.register(end_all)


class ChipRunner:
    """One worker at a time on ``target`` (``tpu``; the tests use ``cpu``), started on first use."""

    def __init__(self, target: str = "tpu", timeout: float = 300.0, command: list[str] | None = None):
        self.target = target
        self.timeout = timeout
        self.command = command or [sys.executable, "-m", "xladoctor.oracle.run_main"]
        """The worker's command line (FD and TARGET are appended): :mod:`.run_main`."""
        self._proc: subprocess.Popen | None = None
        self._replies: int | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = b""
        self.chip: dict[str, Any] | None = None
        self.why_not: str | None = None
        self._silent = False
        """The last start got no answer and the worker was still running: hung, not refused."""

    def __enter__(self) -> ChipRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._proc is not None:
            _LIVE.discard(self._proc.pid)
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        if self._replies is not None:
            os.close(self._replies)
            self._replies = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        self._buffer = b""

    def start(self) -> dict[str, Any] | None:
        """Start the worker; the chip it found (``platform``, ``device_kind``, ``count``) or None.

        A chip just let go by a killed worker can refuse the next one for a few seconds (libtpu's
        lock file): a TPU start is tried three times, 5 s apart."""
        for attempt in range(3 if self.target == "tpu" else 1):
            if attempt:
                time.sleep(5.0)
            if self._start_once() is not None:
                return self.chip
            if self._silent:  # no answer at all in START_TIMEOUT (a device that hangs libtpu): no retry
                break
        return None

    def _start_once(self) -> dict[str, Any] | None:
        self.close()
        read, write = os.pipe()
        self._stderr = tempfile.TemporaryFile("a+b")  # noqa: SIM115  (closed with the worker)
        env = dict(os.environ)
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env[PARENT_ENV] = str(os.getpid())
        if self.target == "tpu":
            env["JAX_PLATFORMS"] = "tpu,cpu"
        self._proc = subprocess.Popen([*self.command, str(write), self.target],
                                      pass_fds=(write,), stdin=subprocess.PIPE, stdout=self._stderr,
                                      stderr=self._stderr, env=env)
        os.close(write)
        self._replies = read
        _LIVE.add(self._proc.pid)
        hello = self._read_line(START_TIMEOUT)
        self._silent = hello is None and self._proc.poll() is None
        if hello is None:
            self.why_not = crash_line(self._err()) or _last_line(self._err()) or label("oracle.no_output")
            self.close()
            return None
        msg = json.loads(hello)
        self.chip, self.why_not = msg.get("chip"), msg.get("why")
        if self.chip is None:
            self.close()
        return self.chip

    def judge(self, kind: str, text: str, run: bool, seed: int = 0) -> dict[str, Any]:
        """Compile ``text`` (``hlo``/``stablehlo``) on the chip and, with ``run``, run and compare.

        The reply: ``chip``, ``verdict`` (a :class:`.verdict.Verdict` as JSON) and, with ``run``,
        ``run`` (:mod:`.run_judge`'s outcome); ``{"chip": None, "why": ...}`` without a chip."""
        if self._proc is None and self.start() is None:
            return {"chip": None, "why": self.why_not}
        assert self._proc is not None and self._proc.stdin is not None
        offset = self._err_size()
        request = {"kind": kind, "text": text, "run": run, "seed": seed}
        started = time.monotonic()
        compiled = None
        try:
            self._proc.stdin.write((json.dumps(request) + "\n").encode())
            self._proc.stdin.flush()
            line = self._read_line(self.timeout)
            compiled = json.loads(line).get("compiled") if line is not None else None
            if compiled is not None:
                line = self._read_line(max(1.0, self.timeout - (time.monotonic() - started)))
        except OSError:
            line = None
        if line is None:
            return self._died(offset, time.monotonic() - started, compiled)
        reply = json.loads(line)
        if reply.get("run", {}).get("outcome") in POISONING:
            self.close()
        return {"chip": self.chip, **reply}

    def _died(self, offset: int, seconds: float, compiled: dict[str, Any] | None) -> dict[str, Any]:
        """The worker died (``crash``) or outran the timeout (``timeout``): in the compile (no
        ``compiled`` verdict yet: the verdict says so) or in the run (the run says so)."""
        assert self._proc is not None
        time.sleep(0.05)  # let the dying process finish writing its stderr
        if seconds < self.timeout:  # its replies ended early: it is dying (a Python traceback takes a while)
            try:
                self._proc.wait(2.0)
            except subprocess.TimeoutExpired:
                pass
        alive = self._proc.poll() is None
        err = self._err(offset)
        chip = self.chip
        self.close()
        outcome = "timeout" if alive else "crash"
        from .run_judge import HALT_MARKS

        if not alive and any(m in err for m in HALT_MARKS):
            outcome = "halt"
        if compiled is None:
            kind = "timeout" if alive else "crash"
            reason = (label("oracle.timeout", seconds=f"{self.timeout:g}") if alive else
                      label("oracle.died", signal=" (SIGABRT)" if "SIGABRT" in err else ""))
            from .verdict import Verdict

            verdict = Verdict(kind, message=_tail(err), stage="compile", check_line=crash_line(err), reason=reason,
                              topology=(chip or {}).get("device_kind"), seconds=round(seconds, 3))
            return {"chip": chip, "verdict": verdict.to_json()}
        run = {"outcome": outcome, "seconds": round(seconds, 3), "check_line": crash_line(err),
               "error": _tail(err)}
        return {"chip": chip, "verdict": compiled, "run": run}

    def _read_line(self, timeout: float) -> bytes | None:
        assert self._replies is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._replies], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _err_size(self) -> int:
        if self._stderr is None:
            return 0
        self._stderr.seek(0, os.SEEK_END)
        return self._stderr.tell()

    def _err(self, offset: int = 0) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        self._stderr.seek(offset)
        return self._stderr.read().decode("utf-8", "replace")


_SHARED: dict[str, ChipRunner] = {}


def shared_runner(target: str = "tpu") -> ChipRunner:
    """One runner per target for this process (``check --confirm`` over many files reuses it)."""
    if target not in _SHARED:
        _SHARED[target] = ChipRunner(target)
    return _SHARED[target]


def _last_line(text: str) -> str | None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else None


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.splitlines()[-lines:])[-4000:]
