"""A colour never spans a line end: each style is reset before the newline (issue 38's stop note:
the tally's reset came after it), checked on the raw bytes the CLI writes to a terminal.

A reset after the newline leaves the style on at the start of the next line for whatever reads
the output a line at a time (``less -R``, CI log viewers, a pane captured by lines)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.report.colour import Painter, paint_line

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def spans_over_line_ends(raw: bytes) -> list[tuple[int, str]]:
    """Lines (1-based) that end with a style still on, or start with the reset of the line before."""
    bad, on = [], False
    for n, line in enumerate(raw.decode("utf-8", "replace").split("\n"), 1):
        line = line.rstrip("\r")
        if on and line.startswith("\x1b[0m"):
            bad.append((n, "reset after the newline"))
        for m in SGR.finditer(line):
            on = m.group(1) not in ("", "0")
        if on:
            bad.append((n, f"style open at the end: {line[-40:]!r}"))
    return bad


def test_a_painted_text_of_several_lines_is_reset_before_each_newline():
    paint = Painter(True)
    assert paint("3 files checked\n", "bold") == "\x1b[1m3 files checked\x1b[0m\n"
    assert paint("a\nb", "red") == "\x1b[1;31ma\x1b[0m\n\x1b[1;31mb\x1b[0m"
    assert paint("a\r\n", "green") == "\x1b[32ma\x1b[0m\r\n"
    assert paint("\n", "bold") == "\n" and paint("", "bold") == ""
    assert Painter(False)("a\nb", "red") == "a\nb"
    assert not spans_over_line_ends(paint("x\ny\n", "bold").encode())
    assert spans_over_line_ends(b"\x1b[1mx\n\x1b[0m")  # the form the stop note saw: caught
    assert paint_line("1 file checked, 1 finding", paint) == "\x1b[1m1 file checked, 1 finding\x1b[0m"


def _on_a_terminal(argv: list[str], columns: int = 100) -> bytes:
    """The raw bytes ``xladoctor ARGV --color=always`` writes to a pseudo-terminal of ``columns``."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TERM": "xterm-256color", "JAX_PLATFORMS": "cpu"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "xladoctor", *argv, "--color=always"], stdin=slave, stdout=slave,
                            stderr=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    try:
        while chunk := os.read(master, 65536):
            out += chunk
    except OSError:  # the terminal closed with the program
        pass
    finally:
        os.close(master)
    assert proc.wait(timeout=120) in (0, 1)
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal as Linux gives it")
@pytest.mark.parametrize("argv, columns", [
    (["check", str(EXAMPLES)], 100),
    (["check", str(EXAMPLES), "--format", "concise", "--lang", "fa"], 40),
    (["check", str(EXAMPLES), "--statistics", "--lang", "fa"], 30),
    (["offload", str(EXAMPLES / "e1200_offloaded_activation.hlo")], 80),
    (["check", str(EXAMPLES / "tpu_job.log")], 60),
])
def test_no_style_spans_a_line_end_on_a_terminal(argv, columns):
    raw = _on_a_terminal(argv, columns)
    assert b"\x1b[" in raw, argv  # coloured at all
    assert spans_over_line_ends(raw) == [], argv
