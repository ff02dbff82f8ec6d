"""Whole-process CPU and peak RSS of ``python -m xladoctor`` for two trees, alternately (h43x).

    git archive main src bench tests | tar -x -C /tmp/base
    python bench/bench_exit.py /tmp/base . FILE... --commands offload "offload --json" check hlo --rounds 3

What a run costs as the user runs it: the console entry (``python -m xladoctor``, what the installed
script runs), in a fresh process under ``/usr/bin/time``, so the tear-down at the exit and the
collector's work are in the CPU seconds (bench_all's children time the analysis in-process and miss
both).  Each tree runs with its own ``src`` first on ``PYTHONPATH``; per file and command the best
CPU (user+sys) of ``--rounds`` and the largest peak RSS are printed, with the exit codes (they must
agree).  ``--check-dir N`` adds ``check DIR --jobs 1`` over N copies of the first file.  Not part of
the tests.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path


def _once(tree: Path, argv: list[str]) -> tuple[float, int, int]:
    """CPU seconds, peak RSS (MiB) and exit code of one run."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), JAX_PLATFORMS="cpu")
    with tempfile.NamedTemporaryFile("r") as timing:
        done = subprocess.run(["/usr/bin/time", "-o", timing.name, "-f", "%U %S %M", sys.executable, "-m",
                               "xladoctor", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        user, system, peak = timing.read().split()[-3:]
    return float(user) + float(system), int(peak) // 1024, done.returncode


def _folder(first: Path, n: int, into: Path) -> Path:
    text = first.read_text()
    d = into / f"dir{n}"
    d.mkdir()
    for i in range(n):
        (d / f"m{i:03d}.hlo").write_text(text.replace("HloModule ", f"HloModule m{i}_", 1))
    return d


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--commands", nargs="+", default=["offload", "offload --json", "check", "hlo"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--check-dir", type=int, nargs="*", default=[], metavar="N")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(f.name, shlex.split(c) + [str(f)]) for f in args.files for c in args.commands]
        runs += [(f"dir of {n}", ["check", str(_folder(args.files[0], n, Path(tmp))), "--jobs", "1"])
                 for n in args.check_dir]
        print("| file | command | CPU before | CPU after | peak before | peak after | exit |")
        print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
        for name, argv in runs:
            best: dict[str, list] = {t: [float("inf"), 0, set()] for t in trees}
            for _ in range(args.rounds):
                for label, tree in trees.items():
                    cpu, peak, rc = _once(tree, argv)
                    best[label][0] = min(best[label][0], cpu)
                    best[label][1] = max(best[label][1], peak)
                    best[label][2].add(rc)
            b, a = best["before"], best["after"]
            command = " ".join(x for x in argv if not x.startswith("/"))
            print(f"| {name} | `{command}` | {b[0]:.2f} | {a[0]:.2f} | {b[1]} MiB | {a[1]} MiB | "
                  f"{sorted(b[2])} {sorted(a[2])} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
