"""bench_all.py's module rows for two trees in one run, alternately: CPU seconds and peak memory.

    git archive BASE src bench | tar -x -C /tmp/base
    python bench/bench_before_after.py /tmp/base . --sizes 100000 --kinds parse jax_entry calls --rounds 3

On a machine shared with other work, wall time measures the neighbours; an IR change is judged
by CPU seconds and peak RSS measured in the same minutes for both trees.  Each measurement is
``bench_all.py --child ours KIND N 1`` run with the tree's own ``bench_all.py`` (hence its own
``src``), in a fresh process, on one module text written once for both; the best CPU and wall of
``--rounds`` and the largest peak are printed per tree.  memory/text is bench_all's column (peak
RSS over the imports, MiB, per MB of text).  Not part of the tests.
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


def _child(tree: Path, kind: str, n: int, module: Path) -> dict:
    env = dict(os.environ, XLADOCTOR_BENCH_MODULE=str(module), JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, str(tree / "bench" / "bench_all.py"), "--child", "ours", kind, str(n), "1"],
                         capture_output=True, text=True, check=True, env=env)
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="a tree with src/ and bench/ (e.g. git archive of the base)")
    ap.add_argument("after", type=Path, help="another tree (e.g. this checkout)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--kinds", nargs="+", default=["parse", "jax_entry", "calls"],
                    choices=["parse", "jax_entry", "calls", "offload"])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    print("| row | size | text | tree | CPU | wall | peak extra | memory/text |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            for kind in args.kinds:
                module = Path(tmp) / f"{kind}-{n}.hlo"
                subprocess.run([sys.executable, str(HERE / "bench_all.py"), "--make-module", kind, str(n), str(module)],
                               check=True, stderr=subprocess.DEVNULL)
                best: dict[str, dict] = {}
                for _ in range(args.rounds):
                    for label, tree in trees.items():
                        r = _child(tree, kind, n, module)
                        b = best.setdefault(label, r)
                        b["seconds"], b["cpu_seconds"] = min(b["seconds"], r["seconds"]), min(b["cpu_seconds"], r["cpu_seconds"])
                        b["extra_mib"] = max(b["extra_mib"], r["extra_mib"])
                for label, r in best.items():
                    print(f"| {kind} | {n:,} | {r['text_mb']:.1f} MB | {label} | {r['cpu_seconds']:.2f} s | {r['seconds']:.2f} s | "
                          f"{r['extra_mib']:.0f} MiB | {r['extra_mib'] / r['text_mb']:.2f}x |", flush=True)
                module.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
