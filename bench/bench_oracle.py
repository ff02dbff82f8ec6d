"""How fast the real TPU compiler back end answers (xladoctor.oracle).

Measures, on the HLO scenario files in tests/data/offload (real XLA test modules):

* cold start: first verdict from a fresh xladoctor process (zygote import + worker + compile);
* per-module compile time in one warm worker (sequential);
* the same batch on 2 workers (compile_parallel);
* a worker restart after a real CHECK crash (XLA's parser on ``L(0)``).

Run: ``.venv/bin/python bench/bench_oracle.py [--repeat N]``.  Needs the [tpu] extra.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from xladoctor.oracle import OracleWorker, compile_parallel, unavailable_reason

CRASH = "HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:L(0)} parameter(0)\n}\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1, help="passes over the scenario files")
    args = ap.parse_args()
    why = unavailable_reason()
    if why:
        print(f"skipped: {why}")
        return 0
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "offload")
    texts = [open(p).read() for p in sorted(glob.glob(os.path.join(root, "*.hlo")))] * args.repeat
    w = OracleWorker(want_text=False)
    t0 = time.perf_counter()
    w.compile_hlo(texts[0])
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    kinds = collections.Counter(w.compile_hlo(t).kind for t in texts)
    seq = time.perf_counter() - t0
    t0 = time.perf_counter()
    w.compile_hlo(CRASH)
    w.compile_hlo(texts[0])
    crash = time.perf_counter() - t0
    w.close()
    t0 = time.perf_counter()
    compile_parallel([("hlo", t) for t in texts], workers=2)
    par = time.perf_counter() - t0
    print(f"modules                      {len(texts)} ({dict(kinds)})")
    print(f"cold start + first verdict   {cold:.2f} s")
    print(f"sequential, one worker       {seq:.2f} s  ({1000 * seq / len(texts):.0f} ms/module, "
          f"crashes included: each costs a worker restart)")
    print(f"2 workers (compile_parallel) {par:.2f} s  ({1000 * par / len(texts):.0f} ms/module)")
    print(f"crash + restart + 1 compile  {crash:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
