"""How big the host-offload region of issue 36's benchmark modules is, and what finding it costs.

    .venv/bin/python bench/region_scan.py                      # train steps, jax_entry and calls at 100k
    .venv/bin/python bench/region_scan.py --sizes 100000 1000000 --repeat 3

Region-first analysis (issue 36 item 1) parses only the instructions that can reach or be
reached from the host-memory annotations; it can beat jaxlib's parse only if finding that region
is cheap and the region is small.  Per module, in one process, interleaved, best of ``--repeat``
CPU seconds: jaxlib's ``hlo_module_from_text``, our ``parse_module``, and
:func:`xladoctor.syntax.region.scan_module`; then the sizes of the sets the scan computes:

* ``region``: the seeds closed under operands, users and calls (what a parse of the region
  must build: every instruction a region instruction reads or is read by);
* ``reach``: what can reach a seed or be reached from one (``backward(seeds) | forward``), the
  issue's own words, without the operands of the instructions reached;
* ``forward``: what the seeds' values reach (users, callees, callers from roots);
* ``live``: what the entry's root needs (dead-code removal keeps no more).

``bound`` is the least a region-first route could cost: the scan plus our parse's cost per
instruction times the region's instructions (no analysis), over jaxlib's parse.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE)]


def _cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def modules(sizes: list[int], tmp: Path) -> dict[str, str]:
    from real_modules import module
    from train_step import write

    out = {f"train step, {form}": p.read_text() for form, p in write(tmp).items()}
    for n in sizes:
        for kind in ("jax_entry", "calls"):
            out[f"{kind}, {n:,}"] = module(kind, n)
    return out


def measure(texts: dict[str, str], repeat: int) -> None:
    from jaxlib import _hlo

    from xladoctor.syntax.hlo_parser import parse_module
    from xladoctor.syntax.region import backward, forward, live, region, scan_module

    print("| module | instr | jaxlib parse | our parse | scan | scan/jaxlib | region | reach | forward | live | bound |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, text in texts.items():
        jax = ours = scan_s = float("inf")
        for _ in range(repeat):  # interleaved: a neighbour's load hits all three alike
            jax = min(jax, _cpu(lambda: _hlo.hlo_module_from_text(text), 1))
            ours = min(ours, _cpu(lambda: parse_module(text), 1))
            scan_s = min(scan_s, _cpu(lambda: scan_module(text), 1))
        scan = scan_module(text)
        if scan is None:
            print(f"| {label} | - | {jax:.3f} | {ours:.3f} | declined | - | - | - | - | - | - |")
            continue
        n = scan.instruction_count
        reg, fwd = region(scan).instructions, forward(scan)
        reach = backward(scan, scan.seeds) | fwd
        bound = (scan_s + ours * len(reg) / n) / jax

        def pc(s: set[int]) -> str:
            return f"{100 * len(s) / n:.1f}%"
        print(f"| {label} | {n:,} | {jax:.3f} | {ours:.3f} ({ours / jax:.2f}x) | {scan_s:.3f} | {scan_s / jax:.2f}x "
              f"| {pc(reg)} | {pc(reach)} | {pc(fwd)} | {pc(live(scan))} | {bound:.2f}x |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tmp", default="/tmp/xladoctor-region-scan")
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    measure(modules(args.sizes, Path(args.tmp)), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
