"""Start-up of each command as CPU time (user + sys) beside a bare ``python -c pass`` (issue 36 item 5).

The machine this runs on is shared, so wall time measures the neighbours: each command's whole
process is timed by ``os.wait4`` (CPU seconds of the child), and the runs are interleaved round by
round with ``python -c pass`` -- a neighbour's load in one round hits every row alike.  The table
gives medians over the rounds and each median's ratio to the bare interpreter's.

Three ways of starting the CLI are measured: the console script that pip before 25.0 writes
(``script``: ``import re, sys; from xladoctor.cli.console import main``, the entry point
pyproject.toml declares; the pip that ``python3 -m venv`` bundles with Python 3.11 is 23.2), the
one pip 25.0 and later and uv write (``script-no-re``: the same without ``import re``,
pypa/pip#13166), and ``python -m xladoctor`` (``module``: which adds the interpreter's own
``runpy``, with importlib.util, functools and contextlib: ~5 ms of CPU, h44q).  ``--src`` may be given
more than once (e.g. main's ``src`` and a branch's) to compare trees in the same interleaved run;
``--commands`` measures only the commands named.  The ``offload MODULE`` and ``check MODULE`` rows
read ``--module`` (default: the bundled E1200 example; h48s measured them on bench/train_step.py's
``train_step_scanned.hlo``, whose analysis is ~45% of the run).

    nice -n 10 .venv/bin/python bench/startup.py [--repeat 40] [--src A/src --src B/src] [--form script module]
        [--commands version shape "shape --json"] [--entry xladoctor.cli.main:main] [--module FILE.hlo]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
EXAMPLE = SRC / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"

SHAPE = "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"
COMMANDS = (("--version", ["--version"]),
            ("shape", ["shape", SHAPE]),
            ("shape --json", ["shape", SHAPE, "--json"]),
            ("explain E1200", ["explain", "E1200"]),
            ("explain LOG --json (2 lines)", ["explain", "{log}", "--json"]),
            ("check LOG --json (2 lines)", ["check", "{log}", "--json"]),
            ("explain LOG (clean)", ["explain", "{clean}"]),
            ("explain LOG --json (clean)", ["explain", "{clean}", "--json"]),
            ("check LOG (clean)", ["check", "{clean}"]),
            ("check LOG --json (clean)", ["check", "{clean}", "--json"]),
            ("offload MODULE", ["offload", "{module}"]),
            ("offload MODULE --json", ["offload", "{module}", "--json"]),
            ("check MODULE", ["check", "{module}"]))
"""The clean log (50 lines without an anchor word, issue 36 item 6) is what a clean log of any size
costs beyond its scan: the commands' start-up as ``bench_all.py``'s log rows meet it."""

# pip's console-script templates (what ``xladoctor`` on PATH runs), written out so that every tree
# is started the same way whatever is installed: before pip 25.0 (distlib's), and from pip 25.0 on
# (and uv's), which strips the suffix with str methods instead of ``re``.
# The entry point is the one pyproject.toml's [project.scripts] declares (``xladoctor.cli.console:main``
# since h43x, which ends the process with ``os._exit``); until h44q the templates named
# ``xladoctor.cli.main:main`` and so timed an interpreter tear-down the installed script never runs
# (``--entry xladoctor.cli.main:main`` measures that again).
SCRIPT = """import re
import sys
from {module} import {function}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({function}())
"""
SCRIPT_NO_RE = """import sys
from {module} import {function}
if __name__ == '__main__':
    if sys.argv[0].endswith('-script.pyw'):
        sys.argv[0] = sys.argv[0][:-11]
    elif sys.argv[0].endswith('.exe'):
        sys.argv[0] = sys.argv[0][:-4]
    sys.exit({function}())
"""


def declared_entry() -> str:
    """``module:function`` of the ``xladoctor`` console script in pyproject.toml."""
    import tomllib

    with open(SRC.parent / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["scripts"]["xladoctor"]
FORMS = {"script": "`xladoctor` (pip < 25)", "script-no-re": "`xladoctor` (pip >= 25, uv)",
         "module": "`python -m xladoctor`"}


def cpu_of(argv: list[str], src: Path | None, cwd: str) -> float:
    """CPU seconds (user + sys) of one whole process; output to a real file, as a user's terminal.

    Bytecode is cached (under ``cwd``, leaving the trees alone), as after ``pip install``: with
    PYTHONDONTWRITEBYTECODE every run would compile every module it imports."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(cwd, "pycache")
    if src is not None:
        env["PYTHONPATH"] = str(src)
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(argv, stdout=out, stderr=out, env=env, cwd=cwd)
        _, status, usage = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {code}")
    return usage.ru_utime + usage.ru_stime


def measure(srcs: list[Path], forms: list[str], repeat: int, commands: list[str] | None = None,
            entry: str | None = None, hlo: Path = EXAMPLE) -> list[tuple[str, str, str, float, float]]:
    """Rows (tree, form, command, median CPU ms, ratio to ``python -c pass``), interleaved by round;
    the console scripts call ``entry`` (default: :func:`declared_entry`); ``hlo`` is the HLO the
    ``MODULE`` rows read."""
    module, function = (entry or declared_entry()).split(":")
    with tempfile.TemporaryDirectory() as tmp:  # no pyproject.toml above it: no config is found
        log = Path(tmp) / "small.log"
        log.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
        clean = Path(tmp) / "clean.log"
        clean.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
        script, script_no_re = Path(tmp) / "xladoctor", Path(tmp) / "xladoctor-no-re"
        script.write_text(SCRIPT.format(module=module, function=function))
        script_no_re.write_text(SCRIPT_NO_RE.format(module=module, function=function))
        starts = {"script": [sys.executable, str(script)], "script-no-re": [sys.executable, str(script_no_re)],
                  "module": [sys.executable, "-m", "xladoctor"]}
        runs: list[tuple[str, str, str, list[str], Path | None]] = [("-", "-", "python -c pass",
                                                                     [sys.executable, "-c", "pass"], None)]
        for src in srcs:
            for form in forms:
                for name, args in COMMANDS:
                    if commands is not None and name.lstrip("-") not in commands:
                        continue
                    argv = starts[form] + [a.replace("{log}", str(log)).replace("{clean}", str(clean))
                                           .replace("{module}", str(hlo)) for a in args]
                    runs.append((str(src), form, name, argv, src))
        for _, _, _, argv, src in runs:  # compile every tree's bytecode before timing anything
            cpu_of(argv, src, tmp)
        times: list[list[float]] = [[] for _ in runs]
        for _ in range(repeat):
            for i, (_, _, _, argv, src) in enumerate(runs):
                times[i].append(cpu_of(argv, src, tmp))
    bare = statistics.median(times[0])
    return [(tree, form, name, statistics.median(t) * 1000, statistics.median(t) / bare)
            for (tree, form, name, _, _), t in zip(runs, times)]


def table(rows: list[tuple[str, str, str, float, float]], repeat: int) -> str:
    trees = sorted({r[0] for r in rows if r[0] != "-"}, key=[r[0] for r in rows].index)
    short = {t: (Path(t).parent.name or t) for t in trees}
    lines = [f"| command | start | {' | '.join(f'{short[t]}: CPU ms (x bare)' for t in trees)} |",
             "| --- | --- |" + " ---: |" * len(trees)]
    bare = rows[0]
    lines.append("| `python -c pass` | - | " + " | ".join(f"{bare[3]:.1f} (1.00x)" for _ in trees) + " |")
    keys = [(form, name) for tree, form, name, _, _ in rows if tree == trees[0]] if trees else []
    for form, name in keys:
        cells = [next(f"{ms:.1f} ({ratio:.2f}x)" for tree, f, n, ms, ratio in rows if (tree, f, n) == (t, form, name))
                 for t in trees]
        start = FORMS[form]
        lines.append(f"| `{name}` | {start} | " + " | ".join(cells) + " |")
    lines.append(f"\nMedians of {repeat} interleaved rounds; {machine()}.")
    return "\n".join(lines)


def machine() -> str:
    import platform

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{len(os.sched_getaffinity(0))} cores, Python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=40, help="interleaved rounds (default 40)")
    ap.add_argument("--src", type=Path, action="append", help=f"a tree's src folder (default {SRC})")
    ap.add_argument("--form", nargs="+", choices=tuple(FORMS), default=list(FORMS))
    names = [name.lstrip("-") for name, _ in COMMANDS]  # "version": argparse reads "--version" as an option
    ap.add_argument("--commands", nargs="+", choices=names, metavar="COMMAND",
                    help="only these rows (default: all): " + ", ".join(repr(name) for name in names))
    ap.add_argument("--entry", metavar="MODULE:FUNCTION",
                    help="what the console scripts call (default: pyproject.toml's, " + declared_entry() + ")")
    ap.add_argument("--module", type=Path, default=EXAMPLE, help="the HLO module the MODULE rows read "
                    "(default: the bundled E1200 example; e.g. bench/train_step.py's train_step_scanned.hlo)")
    args = ap.parse_args()
    srcs = [p.resolve() for p in (args.src or [SRC])]
    print(table(measure(srcs, args.form, args.repeat, args.commands, args.entry, args.module.resolve()), args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
