"""What a process group is doing when a signal test finds it still running: for the failure's message.

Why: ``test_confirm_run.py``'s Ctrl-C test failed three times in full CI runs at stop 52 (the
driver printed nothing and was still running 30 s after SIGINT) and never again in isolation, so
the only evidence a rare failure can leave is what it says when it happens.  Every process of the
driver's session is listed with its state, its command line and its signal dispositions from
``/proc`` (``SigIgn``: ignored, ``SigBlk``: blocked; bit ``n - 1`` is signal ``n``, SIGINT is
``0x2``), then the driver's Python stacks are dumped through :mod:`faulthandler` (the driver
registers it on SIGUSR1: :data:`STACKS_ON_SIGUSR1`) and the group is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

STACKS_ON_SIGUSR1 = "import faulthandler, signal\nfaulthandler.register(signal.SIGUSR1, all_threads=True)\n"
"""A driver's first lines: SIGUSR1 dumps its threads' Python stacks to its stderr."""

AS_A_TERMINAL_STARTS_IT = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
"""A driver's first lines: Ctrl-C raises KeyboardInterrupt, as in any process a shell starts in the
foreground, whatever the test runner's own SIGINT disposition (Python leaves SIGINT ignored in a
child started with it ignored: a CI runner's background job)."""


def _signals(pid: int) -> str:
    try:
        fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":\t" in line)
    except OSError as gone:
        return f"({gone.strerror})"
    return " ".join(f"{k}={fields.get(k, '?').strip()}" for k in ("State", "SigIgn", "SigBlk", "SigCgt"))


def still_running(proc: subprocess.Popen[bytes]) -> str:
    """Kill ``proc``'s session after describing it: its processes, then the driver's stacks and output."""
    import psutil

    lines = []
    for p in psutil.process_iter(["pid", "ppid", "cmdline"]):
        try:
            if os.getsid(p.pid) != proc.pid:
                continue
        except OSError:
            continue
        command = " ".join(p.info["cmdline"] or [])[:160].replace("\n", "\\n")
        lines.append(f"  pid {p.pid} (parent {p.info['ppid']}): {_signals(p.pid)}: {command}")
    try:
        os.kill(proc.pid, signal.SIGUSR1)
        time.sleep(1.0)
    except OSError:
        pass
    os.killpg(proc.pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=10)
    return ("processes of the driver's session:\n" + "\n".join(lines) + "\ndriver's stdout:\n"
            + out.decode(errors="replace")[-2000:] + "\ndriver's stderr (its stacks last):\n"
            + err.decode(errors="replace")[-6000:])
