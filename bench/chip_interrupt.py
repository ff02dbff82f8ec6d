"""Ctrl-C and SIGTERM to ``offload --run`` while its chip worker holds the TPU, on the machine with the chip.

    python bench/chip_interrupt.py MODULE OUT.json [--after 0.0 2.0 8.0]

For each delay and signal: start ``xladoctor offload MODULE --run --json`` in a session of its
own (as a shell starts a foreground command), wait until its chip worker
(``xladoctor.oracle.run_main``) exists, wait the delay (0: the worker is still importing jax; a
few seconds: it holds the chip, compiling or running), send SIGINT to the process group (a
terminal's Ctrl-C) or SIGTERM to xladoctor, and record the exit code, the seconds to exit,
whether any descendant is alive 2 s later, and whether the next ``offload --run`` gets the chip
(a worker left holding it would refuse the next).  ``tests/test_signals.py`` and
``tests/test_confirm_run.py`` check the same with a stand-in worker; this is the chip's word.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

import psutil


def _workers(pid: int) -> list[psutil.Process]:
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [k for k in kids if "xladoctor.oracle.run_main" in " ".join(k.cmdline())]


def one(module: str, sig: str, after: float) -> dict:
    argv = [sys.executable, "-m", "xladoctor", "offload", module, "--run", "--json"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while not _workers(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    kids = psutil.Process(proc.pid).children(recursive=True) if proc.poll() is None else []
    time.sleep(after)
    kids += [k for k in _workers(proc.pid) if k not in kids]
    if proc.poll() is not None:
        return {"signal": sig, "after": after, "ended_first": proc.returncode}
    sent = time.monotonic()
    if sig == "SIGINT":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        return {"signal": sig, "after": after, "hung": True, "stderr": err.decode(errors="replace")[-800:]}
    seconds = time.monotonic() - sent
    _, alive = psutil.wait_procs(kids, timeout=2)
    alive = [k.pid for k in alive if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
    nxt = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    try:
        judge = json.loads(nxt.stdout).get("confirm", {}).get("judge", {})
    except ValueError:
        judge = {"unreadable": nxt.stdout[-300:] + nxt.stderr[-300:]}
    return {"signal": sig, "after": after, "exit": proc.returncode, "seconds": round(seconds, 3),
            "stderr_last": err.decode(errors="replace").strip().splitlines()[-1:], "alive_after_2s": alive,
            "next_run_judge": judge}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("out")
    ap.add_argument("--after", type=float, nargs="*", default=[0.0, 2.0, 8.0])
    args = ap.parse_args()
    rows = [one(args.module, sig, after) for after in args.after for sig in ("SIGINT", "SIGTERM")]
    with open(args.out, "w") as f:
        json.dump(rows, f, indent=1)
    print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
