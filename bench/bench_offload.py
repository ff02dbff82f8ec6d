"""Host-offload analysis speed on a generated module with many offload paths.

Usage::

    python bench/bench_offload.py                  # ~100k instructions, plus 25k/50k for linearity
    python bench/bench_offload.py --sizes 20000    # custom sizes (first one is the headline)

The module: a long chain of elementwise device work; every ``--every`` instructions
one value is moved to host (``annotate_device_placement`` pinned_host) and either
comes back through a tuple/get-tuple-element/opt-barrier and a move to device
(most paths), goes through a loop (a while whose body passes it along), turns into
host compute (a tanh on host data), or streams to the output (the last path, whose
tiled output layout makes it an E1200).  Times parse and analysis separately, best
of 3.  Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from xladoctor.offload import analyze_host_offload  # noqa: E402
from xladoctor.syntax.hlo_parser import parse_module  # noqa: E402

S = "f32[8,128]{1,0}"
MTH = 'custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, ' \
      'frontend_attributes={_xla_buffer_placement="pinned_host"}'
MTD = MTH.replace("pinned_host", "device")


def generate(n: int, every: int) -> tuple[str, int]:
    lines = []
    comps = [f"""cond {{
  cp = ({S}, s32[]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=1
  n = s32[] constant(4)
  ROOT lt = pred[] compare(ci, n), direction=LT
}}
body {{
  bp = ({S}, s32[]) parameter(0)
  bx = {S} get-tuple-element(bp), index=0
  bi = s32[] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  bi1 = s32[] add(bi, one)
  ROOT bt = ({S}, s32[]) tuple(bx, bi1)
}}"""]
    lines.append(f"  p0 = {S} parameter(0)")
    lines.append(f"  p1 = {S} parameter(1)")
    lines.append("  z = s32[] constant(0)")
    prev = "p0"
    paths = 0
    i = 0
    while len(lines) < n:
        i += 1
        cur = f"a{i}"
        lines.append(f"  {cur} = {S} add({prev}, p1)")
        if i % every == 0:
            paths += 1
            kind = paths % 4
            lines.append(f"  h{i} = {S} custom-call({cur}), {MTH}")
            if kind == 0:
                lines.append(f"  t{i} = ({S}, {S}) tuple(h{i}, p1)")
                lines.append(f"  o{i} = ({S}, {S}) opt-barrier(t{i})")
                lines.append(f"  g{i} = {S} get-tuple-element(o{i}), index=0")
                lines.append(f"  d{i} = {S} custom-call(g{i}), {MTD}")
            elif kind == 1:
                lines.append(f"  t{i} = ({S}, s32[]) tuple(h{i}, z)")
                lines.append(f"  w{i} = ({S}, s32[]) while(t{i}), condition=cond, body=body")
                lines.append(f"  g{i} = {S} get-tuple-element(w{i}), index=0")
                lines.append(f"  d{i} = {S} custom-call(g{i}), {MTD}")
            elif kind == 2:
                lines.append(f"  x{i} = {S} tanh(h{i})")
                lines.append(f"  d{i} = {S} custom-call(x{i}), {MTD}")
            else:
                lines.append(f"  b{i} = {S} bitcast(h{i})")
                lines.append(f"  d{i} = {S} custom-call(b{i}), {MTD}")
            lines.append(f"  m{i} = {S} multiply(a{i}, d{i})")
            prev = f"m{i}"
        else:
            prev = cur
    lines.append(f"  hl = {S} custom-call({prev}), {MTH}")
    lines.append(f"  tl = {S} tanh(hl)")
    lines.append(f"  ROOT out = ({S}, {S}) tuple(tl, {prev})")
    header = f"HloModule bench, entry_computation_layout={{({S}, {S})->({S[:-1]}:T(8,128)}}, {S})}}"
    text = header + "\n\n" + "\n".join(comps) + "\n\nENTRY main {\n" + "\n".join(lines) + "\n}\n"
    return text, paths + 1


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def generate_copy_chains(k: int) -> str:
    """``k`` offload chains, each with a layout-changing copy that HostOffloadLegalize moves down."""
    lines = ["HloModule b, entry_computation_layout={(f32[16,256]{1,0})->f32[16,256]{1,0}}", "ENTRY main {",
             "  p = f32[16,256]{1,0} parameter(0)"]
    prev = "p"
    for i in range(k):
        lines += [f"  a{i} = f32[16,256]{{1,0}} add({prev}, p)",
                  f'  h{i} = f32[16,256]{{1,0}} custom-call(a{i}), custom_call_target="MoveToHost"',
                  f"  cy{i} = f32[16,256]{{0,1}} copy(h{i})",
                  f"  t{i} = (f32[16,256]{{0,1}}, f32[16,256]{{1,0}}) tuple(cy{i}, p)",
                  f"  o{i} = (f32[16,256]{{0,1}}, f32[16,256]{{1,0}}) opt-barrier(t{i})",
                  f"  g{i} = f32[16,256]{{0,1}} get-tuple-element(o{i}), index=0",
                  f"  b{i} = f32[16,256]{{0,1}} bitcast(g{i})",
                  f'  d{i} = f32[16,256]{{0,1}} custom-call(b{i}), custom_call_target="MoveToDevice"',
                  f"  m{i} = f32[16,256]{{1,0}} copy(d{i})",
                  f"  r{i} = f32[16,256]{{1,0}} add(a{i}, m{i})"]
        prev = f"r{i}"
    lines += [f"  ROOT out = f32[16,256]{{1,0}} copy({prev})", "}"]
    return "\n".join(lines)


def bench_legalize(chains: list[int]) -> None:
    for k in chains:
        module = parse_module(generate_copy_chains(k), "bench")
        t_with, result = best_of(lambda: analyze_host_offload(module, inline_calls=False, legalize=True))
        t_without, _ = best_of(lambda: analyze_host_offload(module, inline_calls=False, legalize=False))
        moved = sum(1 for m in result.legalize.moves if m.action == "moved-down")
        print(f"{module.instruction_count():>8} instructions, {k:>5} copies in offload chains: analysis "
              f"{t_with:6.2f}s with HostOffloadLegalize ({moved} copies moved), {t_without:6.2f}s without")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 25_000, 50_000])
    ap.add_argument("--every", type=int, default=50, help="instructions between offload paths")
    ap.add_argument("--legalize-chains", type=int, nargs="*", default=[2500, 5000, 10000],
                    help="offload chains with a layout-changing copy each (HostOffloadLegalize); none to skip")
    args = ap.parse_args()
    rows = []
    for n in args.sizes:
        text, paths = generate(n, args.every)
        t_parse, module = best_of(lambda: parse_module(text, "bench"))
        t_an, result = best_of(lambda: analyze_host_offload(module))
        count = module.instruction_count()
        assert result.error is not None and result.error.start == "tl", result.errors
        rows.append((count, paths, t_parse, t_an, len(result.walks), len(result.host_compute)))
        print(f"{count:>8} instructions, {paths:>5} offload paths: parse {t_parse:6.2f}s, analysis "
              f"{t_an:6.2f}s ({t_an / count * 1e6:5.1f} us/instr), {len(result.walks)} walks, "
              f"{len(result.host_compute)} host-compute, outcome {result.outcome}")
    if len(rows) > 1:
        base = rows[0]
        for r in rows[1:]:
            print(f"linearity: {r[0]} vs {base[0]} instructions -> analysis time ratio "
                  f"{r[3] / base[3]:.2f} (size ratio {r[0] / base[0]:.2f})")
    bench_legalize(args.legalize_chains)
    return 0


if __name__ == "__main__":
    sys.exit(main())
