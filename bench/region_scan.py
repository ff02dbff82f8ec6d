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

``compiled``: the same scan and region closure in Rust (``bench/region_scan_rs``, standard library
only, a measurement and no part of the tool), when built with ``cargo build --release`` there:
its best of 3 in its own process, wall seconds of an idle loop (no I/O), scan + closure.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE)]


def _cpu(fn, text: str) -> float:
    gc.collect()
    c0 = time.process_time()
    fn(text)
    return time.process_time() - c0


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

    print("| module | instr | jaxlib parse | our parse | scan | scan/jaxlib | compiled | region | reach | forward | live "
          "| bound |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, text in texts.items():
        jax = ours = scan_s = float("inf")
        for _ in range(repeat):  # interleaved: a neighbour's load hits all three alike
            jax = min(jax, _cpu(_hlo.hlo_module_from_text, text))
            ours = min(ours, _cpu(parse_module, text))
            scan_s = min(scan_s, _cpu(scan_module, text))
        scan = scan_module(text)
        if scan is None:
            print(f"| {label} | - | {jax:.3f} | {ours:.3f} | declined | - | - | - | - | - | - | - |")
            continue
        n = scan.instruction_count
        reg, fwd = region(scan).instructions, forward(scan)
        reach = backward(scan, scan.seeds) | fwd
        bound = (scan_s + ours * len(reg) / n) / jax

        def pc(s: set[int], n: int = n) -> str:
            return f"{100 * len(s) / n:.1f}%"
        print(f"| {label} | {n:,} | {jax:.3f} | {ours:.3f} ({ours / jax:.2f}x) | {scan_s:.3f} | {scan_s / jax:.2f}x "
              f"| {_compiled(text, len(reg))} | {pc(reg)} | {pc(reach)} | {pc(fwd)} | {pc(live(scan))} | {bound:.2f}x |")


RUST = HERE / "region_scan_rs" / "target" / "release" / "region_scan_rs"


def _compiled(text: str, region_size: int) -> str:
    """The Rust scan's seconds (scan + closure), checked to find the same region size."""
    if not RUST.exists():
        return "-"
    with tempfile.NamedTemporaryFile("w", suffix=".hlo") as f:
        f.write(text)
        f.flush()
        out = subprocess.run([str(RUST), f.name], capture_output=True, text=True, check=True).stdout.split()
    if out == ["declined"]:
        return "declined"
    _n, _seeds, region_n, scan_s, closure_s = out
    same = "" if int(region_n) == region_size else f" (region {region_n}!)"
    return f"{float(scan_s) + float(closure_s):.3f}{same}"


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
