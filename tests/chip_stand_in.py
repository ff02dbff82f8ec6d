"""A stand-in for the chip worker (``xladoctor.oracle.run_main``) at its process boundary.

``python chip_stand_in.py MODE FD TARGET`` speaks the worker's protocol on FD and then does what
a chip can do to the process that runs on it, which the CPU cannot be made to do on purpose:
``abort-compile`` (a libtpu CHECK while compiling), ``abort-run`` (the same while running),
``halt-run`` (the runtime's E0200 core halt, reported as an error), ``hang-run`` (no answer),
``hang-start`` (no answer at all, as libtpu on a device that does not answer),
``die-run`` (the worker raises in the run: its traceback, then its exit, take a while),
``no-chip`` (a device file is there but ``jax.devices()`` gets no TPU: another process holds it).
Used by tests/test_confirm_run.py only.
"""

from __future__ import annotations

import json
import os
import sys
import time

COMPILES = {"kind": "compiles", "message": "", "code": None, "status": None, "start": None, "stage": "compile",
            "check_line": None, "reason": None, "topology": "stand-in"}


def main(argv: list[str]) -> int:
    mode, fd = argv[1], int(argv[2])
    replies = os.fdopen(fd, "w")

    def say(obj: dict) -> None:
        replies.write(json.dumps(obj) + "\n")
        replies.flush()

    if mode == "hang-start":
        time.sleep(120)
        return 0
    if mode == "no-chip":  # as jax.devices("tpu") answers while another process holds the chip
        say({"chip": None, "why": "RuntimeError: Internal error when accessing libtpu multi-process lockfile"})
        return 0
    say({"chip": {"platform": "stand-in", "device_kind": "stand-in", "count": 1}})
    for line in sys.stdin:
        request = json.loads(line)
        if mode == "abort-compile" or (mode == "abort-run" and request["run"]):
            if mode == "abort-run":
                say({"compiled": COMPILES})
            sys.stderr.write("F0000 stand_in.cc:1] Check failed: the stand-in aborts\n")
            sys.stderr.flush()
            os.abort()
        if mode == "die-run" and request["run"]:
            say({"compiled": COMPILES})
            replies.close()
            sys.stderr.write("Traceback (most recent call last):\nValueError: the stand-in raises\n")
            sys.stderr.flush()
            time.sleep(0.5)
            return 1
        if not request["run"]:
            say({"verdict": COMPILES})
            continue
        say({"compiled": COMPILES})
        if mode == "hang-run":
            time.sleep(120)
        say({"verdict": COMPILES, "run": {"outcome": "halt", "error": "E0200: RuntimeUnexpectedCoreHalt"}})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
