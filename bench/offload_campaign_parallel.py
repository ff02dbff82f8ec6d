"""The user-shaped campaign (``offload_campaign.py --user``) split by family over many cores.

The 3,080-program run takes ~30 min on two cores; the device machine has 13.  Each family runs
in its own ``offload_campaign.py --user --families F`` process (its own libtpu compile-only
worker), and the per-family JSON documents are merged into one with the same keys, so the
numbers read as one run's.  Seeds are per family: ``--count N`` gives seeds ``seed..seed+N-1``
of every family (13 x N programs).

    python bench/offload_campaign_parallel.py --count 237 --chunks 2 --jobs 13 --out DIR   # 3,081 programs
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def run_family(task: tuple[str, int, int], args: argparse.Namespace) -> dict[str, Any]:
    """One family's seeds ``[seed, seed + count)`` in a child process; its JSON document (or why
    there is none)."""
    family, seed, count = task
    cmd = [sys.executable, os.path.join(HERE, "offload_campaign.py"), "--user", "--families", family,
           "--seed", str(seed), "--count", str(count), "--json", "--quiet"]
    if args.compare_prepass:
        cmd.append("--compare-prepass")
    if args.seconds:
        cmd += ["--seconds", str(args.seconds)]
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    if args.out:
        with open(os.path.join(args.out, f"{family}-{seed}.stderr"), "w") as f:
            f.write(proc.stderr[-20000:])
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"family": f"{family}-{seed}", "error": f"rc {proc.returncode}: {proc.stderr.strip()[-600:]}"}
    doc["rc"] = proc.returncode
    doc["wall_s"] = round(time.monotonic() - started, 1)
    if args.out:
        with open(os.path.join(args.out, f"{family}-{seed}.json"), "w") as f:
            json.dump(doc, f, indent=1)
    return doc


def _add(into: dict[str, Any], doc: dict[str, Any]) -> None:
    """Sum nested counters (ints add, dicts recurse)."""
    for key, value in doc.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            into[key] = into.get(key, 0) + value
        elif isinstance(value, dict):
            _add(into.setdefault(key, {}), value)


def merge(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """One document with offload_campaign's keys: counts summed, families and classes joined."""
    ok = [d for d in docs if "error" not in d]
    out: dict[str, Any] = {"programs": 0, "decided": 0, "refused": {}, "per_route": {}, "per_family": {},
                           "classes": [], "families_failed": {d["family"]: d["error"] for d in docs if "error" in d}}
    for d in ok:
        _add(out, {k: d[k] for k in ("programs", "decided", "refused", "per_route") if k in d})
        for family, counts in d.get("per_family", {}).items():
            _add(out["per_family"].setdefault(family, {}), counts)
        out["classes"].extend(d.get("classes", []))
        if "prepass" in d:
            pre = out.setdefault("prepass", {"compared": 0, "identical": 0, "different": 0, "no_dump": 0,
                                             "classes": Counter()})
            for k in ("compared", "identical", "different", "no_dump"):
                pre[k] += d["prepass"][k]
            pre["classes"].update({c: len(v) for c, v in d["prepass"]["classes"].items()})
            for c, names in d["prepass"]["classes"].items():
                out.setdefault("prepass_examples", {}).setdefault(c, names[:8])
            out.setdefault("prepass_first", {}).update(d.get("prepass_first", {}))
    if "prepass" in out:
        out["prepass"]["classes"] = dict(out["prepass"]["classes"])
    out["classes"].sort(key=lambda c: (-c["count"], c["route"]))
    out["seconds_cpu_sum"] = round(sum(d.get("seconds", 0) for d in ok), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=20, help="programs per family")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--families", help="comma-separated (default all)")
    ap.add_argument("--compare-prepass", action="store_true")
    ap.add_argument("--chunks", type=int, default=1, help="processes per family (seed ranges)")
    ap.add_argument("--seconds", type=float, default=None, help="each process stops generating after this")
    ap.add_argument("--timeout", type=float, default=3000.0, help="seconds per process")
    ap.add_argument("--out", help="folder for each family's JSON and stderr")
    args = ap.parse_args(argv)
    import user_programs

    families = args.families.split(",") if args.families else list(user_programs.FAMILIES)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    started = time.monotonic()
    step = -(-args.count // args.chunks)
    tasks = [(f, s, min(step, args.seed + args.count - s))
             for s in range(args.seed, args.seed + args.count, step) for f in families]
    with ThreadPoolExecutor(args.jobs) as pool:
        docs = list(pool.map(lambda t: run_family(t, args), tasks))
    doc = merge(docs)
    doc["wall_s"] = round(time.monotonic() - started, 1)
    doc["command"] = " ".join(sys.argv)
    json.dump(doc, sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")
    failing = doc["families_failed"] or any(":" not in c["class"].split(" ")[0] for c in doc["classes"])
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
