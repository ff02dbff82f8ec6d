"""Peak memory over the text as the console script has it, for two trees alternately (issue 36 item 3).

    git archive BASE src bench | tar -x -C /tmp/base
    python bench/bench_console_peak.py /tmp/base . --sizes 100000 1000000 --rounds 3

``bench_before_after.py``'s rows are a library call (``Path.read_text``, no owned heap); the
``xladoctor`` console script owns its heap (``base/collector.own_heap``: the collector frozen after
a pause, glibc's mmap threshold held once a large input is read, ``base/malloc_threshold``) and
reads through ``base/files.read_path``.  Two rows per tree, each a fresh child of that tree's
``src``:

* ``parse`` / ``offload`` (console): the child imports what ``bench_all.py``'s child imports, calls
  ``own_heap()``, takes ``ru_maxrss`` as its base, reads the module as ``offload FILE`` does
  (``read_path``, ``decode_text``, the bytes dropped) and parses it (``parse``) or parses and
  analyses it (``offload``, ``route.module_analysis``); peak RSS over the base, MiB per MB of text
  (bench_all's memory/text column), and the CPU seconds of the parse or parse + analysis.
* ``offload`` (process): ``python -m xladoctor offload FILE --json`` whole, its peak RSS and CPU
  seconds from the child's rusage (imports included, so no ratio).

Best CPU and largest peak of ``--rounds`` per tree.  Not part of the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CHILD = r"""
import json, os, resource, sys, time
import xladoctor.cli.commands.check  # noqa: F401  (bench_all.py's child imports this before its base)
from xladoctor.base.collector import own_heap
own_heap()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from xladoctor.base.files import decode_text, read_path
path, what = sys.argv[1], sys.argv[2]
data, source = read_path(path)
text = decode_text(data, source)
del data
c0 = time.process_time()
if what == "parse":
    from xladoctor.syntax.hlo_parser import parse_module
    result = parse_module(text)
else:
    from xladoctor.route.module_analysis import analyse_module, parse_hlo
    result = analyse_module(parse_hlo(text, source), text, source)
cpu = time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"cpu": cpu, "extra_mib": (peak - base) / 1024, "text_mb": len(text.encode()) / 1e6}))
os._exit(0)
"""


def _in_process(tree: Path, module: Path, what: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", _CHILD, str(module), what], capture_output=True, text=True,
                         check=True, env=env)
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _process(tree: Path, module: Path) -> dict:
    """``python -m xladoctor offload FILE --json`` in a child that starts nothing else: its rusage."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), JAX_PLATFORMS="cpu")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.execve(sys.executable, [sys.executable, "-m", "xladoctor", "offload", str(module), "--json"], env)
    _, _status, usage = os.wait4(pid, 0)
    return {"cpu": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--kind", default="jax_entry")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    print("| row | size | tree | CPU best | CPU runs | peak extra | memory/text |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            module = Path(tmp) / f"{args.kind}-{n}.hlo"
            subprocess.run([sys.executable, str(HERE / "bench_all.py"), "--make-module", args.kind, str(n), str(module)],
                           check=True, stderr=subprocess.DEVNULL)
            runs: dict[tuple[str, str], list[dict]] = {}
            for _ in range(args.rounds):
                for row in ("parse", "offload", "process"):
                    for label, tree in trees.items():
                        r = _process(tree, module) if row == "process" else _in_process(tree, module, row)
                        runs.setdefault((row, label), []).append(r)
            for (row, label), rs in runs.items():
                cpus = sorted(r["cpu"] for r in rs)
                if row == "process":
                    peak, ratio = max(r["peak_mib"] for r in rs), "-"
                else:
                    peak = max(r["extra_mib"] for r in rs)
                    ratio = f"{peak / rs[0]['text_mb']:.2f}x"
                print(f"| {row} | {n:,} | {label} | {cpus[0]:.3f} s | {', '.join(f'{c:.2f}' for c in cpus)} | "
                      f"{peak:.0f} MiB | {ratio} |", flush=True)
            module.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
