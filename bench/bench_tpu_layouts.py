"""TPU default layouts: agreement with libtpu and speed of the pure-Python model.

Usage::

    python bench/bench_tpu_layouts.py                      # 20,000 cases x 6 generations
    python bench/bench_tpu_layouts.py --count 50000 --seed 11
    python bench/bench_tpu_layouts.py --no-libtpu          # model speed only

Draws the seeded grid of ``tests/tpu_layout_oracle.py`` (every element type the TPU
client accepts, ranks 0..5, edge and random sizes), asks libtpu's
``get_default_layout`` for every case on every generation in a child process, and
times ``xladoctor.ir.tpu_layouts.tpu_default_layout`` on the same cases in this one
(best of 3).  Prints agreement and the first disagreements.  Not part of the test
suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from tpu_layout_oracle import compare, grid, libtpu_available, probe  # noqa: E402
from xladoctor.ir.tpu_layouts import TPU_GENERATIONS, tpu_default_layout  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-libtpu", action="store_true")
    args = p.parse_args()
    cases = grid(args.seed, args.count)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for generation in TPU_GENERATIONS:
            for element_type, dims in cases:
                tpu_default_layout(element_type, dims, generation)
        best = min(best, time.perf_counter() - start)
    n = len(cases) * len(TPU_GENERATIONS)
    print(f"model: {n:,} layouts in {best:.2f} s ({best / n * 1e6:.1f} us each), best of 3")
    reason = None if not args.no_libtpu else "--no-libtpu"
    reason = reason or libtpu_available()
    if reason:
        print(f"libtpu: not asked ({reason})")
        return 0
    start = time.perf_counter()
    result = probe(cases)
    elapsed = time.perf_counter() - start
    agree, bad = compare(cases, result["layouts"])
    print(f"libtpu {result['libtpu']} (jax {result['jax']}): {n:,} layouts in {elapsed:.2f} s including start-up "
          f"of a child process")
    print(f"agreement: {agree:,}/{agree + len(bad):,} (seed {args.seed}, {args.count:,} cases x "
          f"{len(result['layouts'])} generations)")
    for line in bad[:20]:
        print("  " + line)
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
