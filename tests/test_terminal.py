"""What a user sees on a real terminal: the CLI run inside tmux, the pane captured.

tmux is the terminal here (a pseudo-terminal, so ``isatty()`` is true and the progress bar
and colour are on); ``pipe-pane`` records the raw bytes the program wrote, ``capture-pane``
what the terminal shows after drawing them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"


def run_in_tmux(tmp_path: Path, command: str, env: dict[str, str] | None = None,
                timeout: float = 120) -> tuple[str, bytes]:
    """Run ``command`` in a fresh 100x40 tmux pane; return (what the pane shows, the raw bytes written)."""
    name = f"xd{uuid.uuid4().hex[:8]}"
    raw, done = tmp_path / "raw.bin", tmp_path / "done"
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})}
    environ.pop("TMUX", None)
    subprocess.run(["tmux", "-L", name, "new", "-d", "-s", name, "-x", "100", "-y", "40"], check=True, env=environ)
    try:
        subprocess.run(["tmux", "-L", name, "pipe-pane", "-t", name, "-o", f"cat >> {raw}"], check=True)
        subprocess.run(["tmux", "-L", name, "send-keys", "-t", name, f"{command}; touch {done}", "Enter"], check=True)
        deadline = time.monotonic() + timeout
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(0.3)
        pane = subprocess.run(["tmux", "-L", name, "capture-pane", "-t", name, "-p", "-J", "-S", "-2000"],
                              capture_output=True, text=True, check=True).stdout
    finally:
        subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)
    return pane, raw.read_bytes() if raw.exists() else b""


def test_the_progress_bar_is_drawn_and_input_text_still_escaped(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for f in EXAMPLES.iterdir():
        shutil.copy(f, folder / f.name)
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", folder / "ev\x1b[2Jil.hlo")
    pane, raw = run_in_tmux(tmp_path, f"{sys.executable} -m xladoctor check {folder} 2>&1 | cat; "
                                      f"{sys.executable} -m xladoctor check {folder}")
    # the bar was drawn with real carriage returns and erased with a real erase-line ...
    assert b"\r[" in raw and b"\r\x1b[K" in raw and b"files checked" in raw
    # ... so the terminal shows neither the bar nor its controls spelled out
    assert "\\r[" not in pane and "\\x1b[K" not in pane and "#####" not in pane
    assert "4 files checked, 4 findings" in pane
    # an escape sequence in a file name is still made visible, never obeyed
    assert "ev\\x1b[2Jil.hlo" in pane and b"ev\x1b[2J" not in raw


def test_concise_format_is_coloured_on_a_terminal_only_and_honours_no_color(tmp_path):
    hlo = EXAMPLES / "e1200_offloaded_activation.hlo"
    cmd = f"{sys.executable} -m xladoctor check {hlo} --format concise"
    _, raw = run_in_tmux(tmp_path, cmd, env={"NO_COLOR": "", "FORCE_COLOR": ""})
    assert b"\x1b[1;31mE1200\x1b[0m" in raw  # red code on the terminal
    pane, raw = run_in_tmux(tmp_path / "nc" if (tmp_path / "nc").mkdir() is None else tmp_path, cmd,
                            env={"NO_COLOR": "1"})
    assert b"\x1b[1;31m" not in raw and f"{hlo}:14:3: E1200 Host offload output mismatch, output {{0}}" in pane
    piped = subprocess.run(cmd.split(), capture_output=True, text=True, env={**os.environ, "NO_COLOR": "",
                                                                               "FORCE_COLOR": ""})
    assert "\x1b" not in piped.stdout and piped.returncode == 1
    forced = subprocess.run(cmd.split(), capture_output=True, text=True, env={**os.environ, "NO_COLOR": "",
                                                                                "FORCE_COLOR": "1"})
    assert "\x1b[1;31mE1200" in forced.stdout


def test_persian_keeps_copyable_code_whole_on_a_terminal(tmp_path):
    """What must be copied reads as written: a flag keeps its dashes (it drew as
    ``vmodule=host_offloader=1--``) and a call is not split across lines and reordered."""
    py = f"{sys.executable} -m xladoctor explain"
    pane, _ = run_in_tmux(tmp_path, f"clear; {py} E1200 --lang fa --width 90; "
                                    f"{py} {EXAMPLES / 'tpu_job.log'} --lang fa --width 90")
    assert "--vmodule=host_offloader=1" in pane and "vmodule=host_offloader=1--" not in pane
    assert "jax.device_put(x, compiled.input_formats[...])" in pane
    assert "jax.device_put(x, device_sharding)" in pane


def test_check_in_persian_is_drawn_for_the_terminal(tmp_path):
    """``check --lang fa`` had no bidi: each Persian line came out in logical order.  On a terminal
    it is now drawn right to left, with code (``(a) keep it on host ...``, ``{0}``) kept whole."""
    pane, _ = run_in_tmux(tmp_path, f"clear; {sys.executable} -m xladoctor check "
                                    f"{EXAMPLES / 'e1200_offloaded_activation.hlo'} --lang fa")
    # the fix is in Persian too (it stayed English), its code kept whole and left to right
    fix_line = next(line for line in pane.splitlines() if "(a)" in line)
    assert "{0} -> f32[16,256]{1,0:T(8,128)S(5)}" in fix_line and "keep it on host" not in fix_line
    assert "\ufeb3" in fix_line or any("\ufe70" <= ch <= "\ufeff" for ch in fix_line)  # shaped Persian letters
    verdict = next(line for line in pane.splitlines() if "E1200" in line)
    assert "{0} (f32[16,256]{1,0:T(8,128)})" in verdict and verdict.rstrip().endswith("E1200")


def test_persian_code_stays_whole_on_one_row(tmp_path):
    """A Persian line longer than the terminal was wrapped by the terminal after it was
    reordered: the end of the sentence came first and ``jax.device_put(x, ...)`` was cut
    across rows.  Lines are now wrapped to the terminal's width before they are drawn."""
    pane, _ = run_in_tmux(tmp_path, f"clear; {sys.executable} -m xladoctor check --examples --lang fa; "
                                    f"{sys.executable} -m xladoctor explain E1200 --lang fa")
    rows = pane.splitlines()
    assert any("x = jax.device_put(x, compiled.input_formats[...])" in row for row in rows)
    assert any("--vmodule=host_offloader=1" in row for row in rows)
    assert not any("vmodule=host_offloader=1--" in row for row in rows)
    # a command line to paste is one unit too (it was cut between the command and its path)
    assert any(f"xladoctor explain {EXAMPLES / 'tpu_job.log'} --lang fa" in row for row in rows)
    assert any("--fix host|device" in row for row in rows)
    from xladoctor.report.terminal_bidi import display_width

    persian = [row for row in rows if any("\ufb50" <= ch <= "\ufeff" for ch in row)]
    assert persian and all(display_width(row.rstrip()) <= 100 for row in persian)  # none wrapped by the terminal


def test_concise_and_statistics_in_persian_are_drawn_for_the_terminal(tmp_path):
    """``--format concise`` and ``--statistics`` under ``--lang fa`` came out in logical order (each
    Persian line read backwards, letters unjoined) while check's text was drawn right to left.  Now
    the same rule: the location and code stay one left-to-right run at the line's right end, the
    Persian is shaped and reordered, and the colour is painted after (the code still red)."""
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", tmp_path / "step.hlo")
    cmd = f"{sys.executable} -m xladoctor check step.hlo --lang fa"
    pane, raw = run_in_tmux(tmp_path, f"cd {tmp_path}; clear; {cmd} --format concise; {cmd} --statistics",
                            env={"NO_COLOR": "", "FORCE_COLOR": ""})
    rows = [row.rstrip() for row in pane.splitlines() if row.strip()]
    shaped = [row for row in rows if any("\ufb50" <= ch <= "\ufeff" for ch in row)]
    finding = next(row for row in shaped if "step.hlo" in row)
    assert finding.endswith("step.hlo:14:3: E1200") and "{0}" in finding
    assert "/home/user/model.py:23" in finding  # the source stays whole, left to right
    assert "\u0639\u062f\u0645" not in finding  # «عدم» in logical order: the line was not drawn
    assert b"\x1b[1;31mE1200\x1b[0m" in raw  # painted after the reordering, not reordered itself
    statistics = next(row for row in rows if "CompileTimeHostOffloadOutputLocationMismatch" in row)
    assert statistics.split() == ["1", "E1200", "CompileTimeHostOffloadOutputLocationMismatch"]
    assert len(shaped) >= 3 and all(row.endswith("1") for row in shaped[-2:])  # «1 یافته» drawn: the count at the right
