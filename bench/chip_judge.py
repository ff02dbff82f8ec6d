"""Our verdicts against what the chip did (tests/data/chip/*.jsonl, made by bench/chip_campaign.py).

For every user-shaped program the chip ran, ``check_offload`` (lowered for TPU here, no chip) is
asked again, and its verdict set beside the chip's outcome:

* a program that misbehaves on the chip (compile error, crash, halt, wrong data, refused at call
  time) must get a non-``ok`` verdict (``findings`` or ``failures``): otherwise a ``miss``;
* a program that ran right must get no failure and no E1200: otherwise a ``false_alarm``.

Programs JAX refuses to trace (on the CPU too) are no question for us.  Wrong data is counted only
beyond numerical noise (``wrong_beyond_noise``: the CPU reference and the chip differ by more
than 5% of the leaf's scale on more than 1% of its elements).

    python bench/chip_judge.py tests/data/chip/round1.jsonl [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

MISBEHAVES = ("compile_error", "crash", "halt", "refused", "runtime_error", "timeout")


def chip_records(paths: list[str]) -> list[dict[str, Any]]:
    """Every job's latest record: a later round that ran the same job again (with more recorded)
    supersedes the earlier one."""
    latest: dict[str, dict[str, Any]] = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    if "kind" not in rec:  # round6-confirm-run: --confirm --run's cases, not campaign jobs
                        continue
                    key = json.dumps({k: rec.get(k) for k in JOB_KEYS}, sort_keys=True)
                    latest[key] = rec
    return list(latest.values())


JOB_KEYS = ("kind", "name", "family", "seed", "fix", "route", "dtype", "shape", "major_to_minor", "tiling", "memory_kind",
            "use", "pattern", "length", "cols")
"""What names a job (bench/chip_campaign.py's job objects)."""


def misbehaves(rec: dict[str, Any]) -> bool:
    """What a user would call broken: not numerical noise, not a program JAX refuses everywhere."""
    if rec["outcome"] in MISBEHAVES:
        return True
    return rec["outcome"] == "wrong" and wrong_beyond_noise(rec)


def wrong_beyond_noise(rec: dict[str, Any]) -> bool:
    if "compare" not in rec:  # a layout job compares bit for bit: any difference is wrong data
        return rec["outcome"] == "wrong"
    cmp = rec["compare"]
    for leaf in cmp.get("wrong_leaves", []):
        rel = leaf.get("max_rel_to_scale")
        if rel is None:  # round 1 recorded no scale: the fraction alone (noise stayed under 10%)
            if leaf["fraction_wrong"] > 0.1:
                return True
        elif rel > 0.05 and leaf["fraction_wrong"] > 0.01:
            return True
    return False


def program(rec: dict[str, Any]) -> tuple[Any, tuple[Any, ...], dict[str, Any]] | None:
    """``(fn, args, jit_kwargs)`` of a chip job, rebuilt here on the CPU, the arguments as arrays in
    the memory kinds the chip's got: JAX lowers a call with arrays already in host memory otherwise
    than one with ``ShapeDtypeStruct``s (it infers a host result where an SDS gets ``device``), and
    the user's call is the one the chip ran."""
    import chip_jobs
    import chip_routes
    import jax

    cpu = jax.devices("cpu")[0]
    if rec["kind"] == "user":
        prog, _ = chip_jobs._build(rec["family"], int(rec["seed"]), cpu, None)
        leaves, tree = jax.tree.flatten(prog.args)
        inputs = chip_jobs.random_inputs(leaves, f"{rec['family']}:{rec['seed']}")
        placed = [jax.device_put(x, sh) for x, sh in zip(inputs, chip_jobs._shardings_for_args(prog, leaves))]
        return prog.fn, tuple(jax.tree.unflatten(tree, placed)), prog.jit_kwargs
    if rec["kind"] == "unpinned_arg":
        fn, arr, _ = chip_routes.unpinned_program(rec, cpu)
        return fn, (arr,), {}
    if rec["kind"] == "pattern":
        fn, _, arr, _ = chip_routes.pattern_program(rec, cpu)
        return fn, (arr,), {}
    return None


def verdict(rec: dict[str, Any]) -> dict[str, Any]:
    """``check_offload`` on the program as the chip got it (arrays), lowered for TPU here."""
    from xladoctor.jax import check_offload

    try:
        made = program(rec)
        if made is None:
            return {"outcome": "not_a_program"}
        fn, args, jit_kwargs = made
        report = check_offload(fn, *args, jit_kwargs=jit_kwargs)
    except Exception as e:  # jax refuses the program here too
        return {"outcome": "refused", "why": f"{type(e).__name__}: {str(e)[:200]}"}
    return {"outcome": report.outcome, "ok": report.ok, "findings": len(report.findings_of("E1200")),
            "failures": list(report.failures), "notes": len(report.notes)}


JUDGED_KINDS = ("user", "unpinned_arg", "pattern")


def judge(records: list[dict[str, Any]], keep: Any = None) -> dict[str, Any]:
    """Every program the chip ran (``keep(rec)``: a subset), our verdict beside the chip's outcome."""
    counts: Counter[str] = Counter()
    misses, alarms = [], []
    for rec in records:
        if rec.get("kind") not in JUDGED_KINDS or rec.get("fix") or rec["outcome"] == "trace_error":
            continue
        if keep is not None and not keep(rec):
            continue
        v = verdict(rec)
        name = name_of(rec)
        if misbehaves(rec):
            counts["misbehaves"] += 1
            if v.get("ok", True) and v["outcome"] != "refused":
                misses.append({"program": name, "chip": rec["outcome"], "ours": v,
                               "error": (rec.get("error") or "")[-300:]})
            else:
                counts["flagged"] += 1
        else:
            counts["runs_right"] += 1
            if not v.get("ok", True):
                alarms.append({"program": name, "chip": rec["outcome"], "ours": v})
    return {"counts": dict(counts), "misses": misses, "false_alarms": alarms, "fixes": fix_outcomes(records)}


def fix_outcomes(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each E1200 fix run on the chip: how it ended, split by how the unfixed program ended there
    (a fix cannot cure what is not the E1200: an unpinned_host argument stays refused)."""
    before = {(r["family"], r["seed"]): r["outcome"] for r in records if r.get("kind") == "user" and not r.get("fix")}
    out: dict[str, Counter[str]] = {}
    for r in records:
        if r.get("kind") == "user" and r.get("fix"):
            out.setdefault(r["fix"], Counter())[f"{r['outcome']} (unfixed: {before.get((r['family'], r['seed']))})"] += 1
    return {k: dict(v) for k, v in out.items()}


def name_of(rec: dict[str, Any]) -> str:
    if rec["kind"] == "user":
        return f"{rec['family']}:{rec['seed']}"
    keys = ("memory_kind", "dtype", "shape", "use") if rec["kind"] == "unpinned_arg" else \
        ("pattern", "dtype", "shape", "length", "cols")
    return rec["kind"] + ":" + ",".join(str(rec[k]) for k in keys if k in rec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    doc = judge(chip_records(a.paths))
    if a.json:
        print(json.dumps(doc, indent=1))
    else:
        print(doc["counts"], f"misses {len(doc['misses'])}, false alarms {len(doc['false_alarms'])}")
        print("fixes:", doc["fixes"])
        for m in doc["misses"]:
            print("MISS", m["program"], m["chip"], m["ours"], m["error"].replace("\n", " ")[-200:])
        for m in doc["false_alarms"]:
            print("ALARM", m["program"], m["chip"], m["ours"])
    return 1 if doc["misses"] or doc["false_alarms"] else 0


if __name__ == "__main__":
    sys.exit(main())
