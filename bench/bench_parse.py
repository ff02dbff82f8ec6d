"""Parse speed: xladoctor's HLO reader next to jaxlib's, on the same synthetic text.

Usage::

    python bench/bench_parse.py                 # 100k instructions + linearity 10k/50k/100k
    python bench/bench_parse.py --sizes 20000   # custom sizes (first one is the headline)
    python bench/bench_parse.py --no-jaxlib     # ours only
    python bench/bench_parse.py --write out.hlo # also save the 100k text

The module imitates a compiled TPU dump: many parameters, loop fusions with
called computations (tiled bf16/f32 layouts, broadcasted constants, converts),
elementwise ops between them, tuples and get-tuple-elements, custom calls, and
``metadata={op_name=... source_file=... source_line=...}`` on most lines.
Each size is timed best of 3, ours and jaxlib's in the same process, and the
text is checked to parse with jaxlib (and to give the same instruction count)
so the comparison is on input real XLA accepts.  Not part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

BF16 = "bf16[128,1024]{1,0:T(8,128)(2,1)}"
F32 = "f32[128,1024]{1,0:T(8,128)}"
ROW = "f32[1024]{0:T(1024)}"
PARAMS = 64


def _meta(k: int, op: str) -> str:
    return (
        f'metadata={{op_name="jit(train_step)/jvp(Model)/layer_{k}/{op}" '
        f'source_file="/home/user/project/model.py" source_line={100 + k % 900}}}'
    )


def _fused_computation(k: int) -> list[str]:
    """A loop fusion body: 9 instructions."""
    return [
        f"%fused_computation.{k} (param_0.{k}: bf16[128,1024], param_1.{k}: f32[1024]) -> bf16[128,1024] {{",
        f"  %param_0.{k} = {BF16} parameter(0)",
        f"  %param_1.{k} = {ROW} parameter(1)",
        f"  %convert.{k} = {F32} convert(%param_0.{k}), {_meta(k, 'convert_element_type')}",
        f"  %broadcast.{k} = {F32} broadcast(%param_1.{k}), dimensions={{1}}, {_meta(k, 'add')}",
        f"  %add.{k} = {F32} add(%convert.{k}, %broadcast.{k}), {_meta(k, 'add')}",
        f"  %constant.{k} = f32[] constant(0)",
        f"  %broadcast.c.{k} = {F32} broadcast(%constant.{k}), dimensions={{}}",
        f"  %maximum.{k} = {F32} maximum(%add.{k}, %broadcast.c.{k}), {_meta(k, 'relu/max')}",
        f"  ROOT %convert.r.{k} = {BF16} convert(%maximum.{k}), {_meta(k, 'convert_element_type')}",
        "}",
        "",
    ]


def synthetic_module(n_instructions: int) -> tuple[str, int]:
    """HLO text with about ``n_instructions`` instructions; returns (text, exact count)."""
    # fused body (9) + in the entry fusion, multiply and tuple+gte or a custom call (3.5 on average)
    per_group = 9 + 3.5
    groups = max(1, int((n_instructions - PARAMS - 1) / per_group))
    head = [
        "HloModule jit_train_step, is_scheduled=true, entry_computation_layout={("
        + ", ".join([BF16] + [ROW] * (PARAMS - 1))
        + f")->{BF16}}}, allow_spmd_sharding_propagation_to_output={{true}}",
        "",
    ]
    fused: list[str] = []
    entry = ["ENTRY %main.0 {"]
    entry.append(f"  %Arg_0 = {BF16} parameter(0), metadata={{op_name=\"x\"}}")
    for p in range(1, PARAMS):
        entry.append(f"  %Arg_{p} = {ROW} parameter({p}), metadata={{op_name=\"params[{p}]\"}}")
    count = PARAMS
    h = "%Arg_0"
    for k in range(groups):
        fused += _fused_computation(k)
        count += 9
        row = f"%Arg_{1 + k % (PARAMS - 1)}"
        entry.append(
            f"  %fusion.{k} = {BF16} fusion({h}, {row}), kind=kLoop, "
            f"calls=%fused_computation.{k}, {_meta(k, 'relu')}"
        )
        entry.append(f"  %multiply.{k} = {BF16} multiply(%fusion.{k}, {h}), {_meta(k, 'mul')}")
        if k % 2 == 0:
            entry.append(f"  %tuple.{k} = ({BF16}, {BF16}) tuple(%multiply.{k}, %fusion.{k})")
            entry.append(f"  %get-tuple-element.{k} = {BF16} get-tuple-element(%tuple.{k}), index=0")
            h = f"%get-tuple-element.{k}"
        else:
            entry.append(
                f"  %custom-call.{k} = {BF16} custom-call(%multiply.{k}), "
                f'custom_call_target="Sharding", sharding={{replicated}}, {_meta(k, "sharding_constraint")}'
            )
            h = f"%custom-call.{k}"
        count += 4 if k % 2 == 0 else 3
    entry.append(f"  ROOT %copy.root = {BF16} copy({h})")
    count += 1
    entry.append("}")
    return "\n".join(head + fused + entry) + "\n", count


def best_of(n: int, fn) -> float:
    best = float("inf")
    for _ in range(n):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        dt = time.perf_counter() - t0
        del result
        best = min(best, dt)
    return best


def jaxlib_parser():
    try:
        from jaxlib import _hlo

        return _hlo.hlo_module_from_text
    except ImportError:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 10_000, 50_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-jaxlib", action="store_true")
    ap.add_argument("--write", type=Path)
    args = ap.parse_args(argv)

    from xladoctor.syntax.hlo_parser import parse_module

    jaxlib_parse = None if args.no_jaxlib else jaxlib_parser()
    print(f"python {sys.version.split()[0]}; jaxlib: {'yes' if jaxlib_parse else 'not used'}")
    print(f"{'instructions':>12} {'MB':>7} {'ours s':>8} {'jaxlib s':>9} {'ours/jaxlib':>11} {'ours us/instr':>13}")
    rows = []
    for i, size in enumerate(args.sizes):
        text, count = synthetic_module(size)
        if i == 0 and args.write:
            args.write.write_text(text)
        ours_module = parse_module(text)
        assert ours_module.instruction_count() == count, (ours_module.instruction_count(), count)
        del ours_module
        ours = best_of(args.repeat, lambda: parse_module(text))
        theirs = None
        if jaxlib_parse:
            m = jaxlib_parse(text)
            assert sum(len(c.instructions()) for c in m.computations()) == count
            del m
            theirs = best_of(args.repeat, lambda: jaxlib_parse(text))
        mb = len(text.encode()) / 1e6
        ratio = f"{ours / theirs:11.2f}" if theirs else f"{'-':>11}"
        jl = f"{theirs:9.3f}" if theirs else f"{'-':>9}"
        print(f"{count:>12} {mb:7.1f} {ours:8.3f} {jl} {ratio} {ours / count * 1e6:13.2f}", flush=True)
        rows.append((count, ours))
    if len(rows) > 1:
        rows.sort()
        (n0, t0), (n1, t1) = rows[0], rows[-1]
        print(f"linearity: {n1 / n0:.1f}x instructions -> {t1 / t0:.1f}x time (ours)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
