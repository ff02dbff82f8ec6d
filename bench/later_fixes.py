"""Apply the fix xladoctor's own report gives for a later failure, as a user would, and compile.

``fix_campaign.py`` finds the programs whose E1200 fix then meets a later failure of the program
itself, and counts that our E1200 report already tells of it.  This asks the next question: does
the fix that report gives work?  For each program (the E1200 fixed as ``check_offload`` suggests)
that libtpu still rejects, it reads which fix our report gives, applies it to the program and
compiles the result with libtpu (compile-only, v5e):

* loop state, "the loop starts from ... in host memory: move it to device before the loop"
  (``input``): every host-memory argument is moved to device first, and every scan or remat that
  starts from a value moved to host starts from it moved back;
* loop state, "keep the carry in one memory space ... (move it back before the body returns)"
  (``body``): a scan body whose last move goes to host gets the move back; for nested scans under
  ``grad`` with an offloading checkpoint policy, "wrap this loop's body in jax.checkpoint";
* computing on an ``unpinned_host`` argument: "pass argument N in pinned_host memory ... and move
  it to device before computing on it" (``pinned``).

Programs: the generated ones of ``fix_campaign.py --gen`` (``offload_gen``, JAX level, seed 0),
and the user-shaped families where our check names such a failure (``host_params``, ``remat_grad``).

    python bench/later_fixes.py [--gen 600] [--seeds 237] [--json]

Prints one line per program (the fix read from our report, and libtpu's verdict after it) and the
count; exit 1 when a fix our report gives does not make libtpu accept the program.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1] / "src")]

Spec = dict[str, Any]


# -- which fix our report gives -------------------------------------------------------------

def fixes_told(report: Any) -> set[str]:
    """The fixes our report gives for later failures: ``input``, ``body``, ``checkpoint``, ``pinned``."""
    told: set[str] = set()
    for w in report.result.later_warnings:
        if "enters each iteration" not in w or " Fix: " not in w:
            continue
        fix = w.split(" Fix: ", 1)[1]
        if fix.startswith("the loop starts from"):
            told.add("input")
        if "keep the carry" in fix:
            told.add("body")
    if any("an unpinned_host argument" in f or "arrives in unpinned_host memory" in f for f in report.failures):
        told.add("pinned")
    return told


def pinned_arguments(report: Any) -> frozenset[int]:
    """The argument numbers the unpinned_host prediction's fix names ("pass argument N in pinned_host")."""
    return frozenset(int(m) for f in report.failures for m in re.findall(r"pass argument (\d+) in pinned_host", f))


# -- the fixes, applied to a generated program (offload_gen's step language) -----------------

def _remap(st: tuple, m: Callable[[int], int]) -> tuple:
    k = st[0]
    if k == "un":
        return (k, st[1], m(st[2]))
    if k == "bin":
        return (k, st[1], m(st[2]), m(st[3]))
    return (k, m(st[1]), *st[2:])


def move_to_device_first(sp: Spec) -> Spec:
    """``input``: host-memory arguments moved to device before anything uses them, and a scan or
    remat that starts from a value moved to host starts from it moved back (same frontend)."""
    n = len(sp["args"])
    steps: list[tuple] = []
    new: dict[int, int] = {i: i for i in range(n)}

    def emit(st: tuple) -> int:
        steps.append(st)
        return n + len(steps) - 1

    for a, kind in enumerate(sp["args"]):
        if kind == "pinned_host":
            new[a] = emit(("to_dev_jax", a))
    hosted: dict[int, str] = {}
    for old, st in enumerate(sp["steps"], start=n):
        if st[0] in ("scan", "remat") and st[1] in hosted:
            src = emit((f"to_dev_{hosted[st[1]]}", new[st[1]]))
            st = (st[0], src, *st[2:])
        else:
            st = _remap(st, new.__getitem__)
        new[old] = emit(st)
        if st[0].startswith("to_host"):
            hosted[old] = st[0].rsplit("_", 1)[1]
    return {**sp, "steps": steps, "outs": [new[o] if o >= n else o for o in sp["outs"]]}


def move_back_in_body(sp: Spec) -> Spec:
    """``body``: a scan body whose last move goes to host moves the carry back before it returns."""
    steps = []
    for st in sp["steps"]:
        if st[0] == "scan":
            moves = [op[0] for op in st[2] if op[0].startswith("to_")]
            if moves and moves[-1].startswith("to_host"):
                back = "to_dev_fe" if moves[-1].endswith("fe") else "to_dev_jax"
                st = (st[0], st[1], (*st[2], (back,)), *st[3:])
        steps.append(st)
    return {**sp, "steps": steps}


# -- one program ------------------------------------------------------------------------------

@dataclass
class Outcome:
    name: str
    told: list[str]
    before: str
    after: str
    after_message: str = ""
    silent_after: bool = False
    """Our check of the fixed program gives no later failure or warning."""


def e1200_fixed(fn: Any, args: tuple, kw: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """``jit_kwargs`` with the E1200 fixed as ``check_offload`` suggests (host out_shardings), and
    our report on that program."""
    import jax
    from jax.sharding import SingleDeviceSharding

    from xladoctor.jax import check_offload

    report = check_offload(fn, *args, jit_kwargs=kw)
    if report.findings_of("E1200"):
        kw = {**kw, "out_shardings": report.suggested_out_shardings(SingleDeviceSharding(jax.devices()[0]))}
        report = check_offload(fn, *args, jit_kwargs=kw)
    return kw, report


def judge(name: str, build: Callable[[set[str], Any], tuple[Any, tuple, dict[str, Any]]], worker: Any
          ) -> Outcome | None:
    """``build(fixes, report)``: the program with those fixes applied (none: as written).  None when the
    program, its E1200 fixed, compiles (no later failure to fix)."""
    import fix_campaign

    fn, args, kw = build(set(), None)
    kw, report = e1200_fixed(fn, args, kw)
    verdict, _ = fix_campaign._compile_jax(fn, args, kw, worker)
    if verdict.kind == "compiles":
        return None
    told = fixes_told(report)
    out = Outcome(name, sorted(told), verdict.kind, "no fix given")
    if not told:
        return out
    fn, args, kw = build(told, report)
    kw, report = e1200_fixed(fn, args, kw)
    verdict, _ = fix_campaign._compile_jax(fn, args, kw, worker)
    out.after = verdict.kind
    out.after_message = "" if verdict.kind == "compiles" else fix_campaign._verdict_message(verdict)
    out.silent_after = report.outcome == "ok" and not report.result.later_warnings
    return out


def generated_build(sp: Spec) -> Callable[[set[str], Any], tuple[Any, tuple, dict[str, Any]]]:
    """A generated program (``offload_gen`` spec) with the fixes ``input`` / ``body`` applied."""
    import fix_campaign
    import offload_gen

    def build(fixes: set[str], _report: Any) -> tuple[Any, tuple, dict[str, Any]]:
        fixed = sp
        if "input" in fixes:
            fixed = move_to_device_first(fixed)
        if "body" in fixes:
            fixed = move_back_in_body(fixed)
        jitted, args = offload_gen.build_jax(fixed)
        return jitted.__wrapped__, args, fix_campaign._jit_kwargs_of(fixed)

    return build


def user_build(family: str, seed: int) -> Callable[[set[str], Any], tuple[Any, tuple, dict[str, Any]]]:
    """``host_params`` with ``pinned`` (the arguments our failure names) or ``remat_grad`` with
    ``body`` (the outer scan's body in jax.checkpoint) applied."""
    import user_programs

    def build(fixes: set[str], report: Any) -> tuple[Any, tuple, dict[str, Any]]:
        rng = random.Random(f"{family}:{seed}")
        if family == "host_params":
            pinned = pinned_arguments(report) if "pinned" in fixes else frozenset()
            made = user_programs.host_params(rng, pinned_instead=pinned)
        else:
            made = user_programs.remat_grad(rng, outer_checkpointed="body" in fixes)
        return made["fn"], made["args"], made.get("jit_kwargs") or {}

    return build


def programs(gen: int, seeds: int) -> Iterator[tuple[str, Callable]]:
    """fix_campaign.py's generated JAX programs (seed 0, every other one of ``--gen``), then
    host_params and remat_grad seeds ``0..seeds-1``."""
    import offload_gen

    rng = random.Random(0)
    for i in range(gen):
        level = "jax" if i % 2 == 0 else "hlo"
        sp = offload_gen.spec(rng, level)
        if level == "jax":
            yield f"gen0-{i}", generated_build(sp)
    for seed in range(seeds):
        for family in ("host_params", "remat_grad"):
            yield f"{family}:{seed}", user_build(family, seed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", type=int, default=600, help="generated programs, as fix_campaign.py --gen (seed 0)")
    ap.add_argument("--seeds", type=int, default=237, help="seeds of host_params and remat_grad (0..N-1)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from xladoctor.oracle import OracleWorker

    outcomes: list[Outcome] = []
    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as worker:
        if worker.unavailable is not None:
            print(f"later_fixes: no real compiler here: {worker.unavailable}", file=sys.stderr)
            return 2
        for name, build in programs(args.gen, args.seeds):
            try:
                out = judge(name, build, worker)
            except Exception as e:  # jax refuses the program as generated: not a question for this
                if "carry" in str(e) or "memory_space" in str(e):
                    continue
                raise
            if out is None:
                continue
            outcomes.append(out)
            if not args.json:
                print(f"{out.name}: told {'+'.join(out.told) or '-'}; {out.before} -> {out.after}"
                      + ("" if out.silent_after else " (we still warn)") + (f": {out.after_message}" if out.after_message else ""),
                      flush=True)
    fixed = sum(o.after == "compiles" for o in outcomes)
    if args.json:
        json.dump({"programs": len(outcomes), "compile_after_fix": fixed, "outcomes": [asdict(o) for o in outcomes]},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(f"{len(outcomes)} programs rejected after the E1200 fix; {fixed} compile with the fix our report gives")
    return 0 if fixed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
