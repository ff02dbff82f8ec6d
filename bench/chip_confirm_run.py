"""``--confirm --run`` over the bundled examples, the E1200 scenarios' HLO-text fixes and clean modules.

Issue 34 items 3 and 5: the fixes ``offload --fix`` writes (fix (a) ``host``, fix (b) ``device``)
had been compiled compile-only, never run on a chip.  Two steps:

    python bench/chip_confirm_run.py make CASES_DIR          # here: the cases, as offload --fix writes them
    python bench/chip_confirm_run.py run CASES_DIR OUT.jsonl --budget 400   # on the machine with the chip

``make`` writes, for every ``tests/data/offload/*.hlo`` with an E1200 predicted, the module and
both fixes in their HLO-text form (``route.fix.fixed_text``, what ``offload --fix`` writes),
the bundled examples, and the first clean scenarios.  ``run`` judges each case as
``xladoctor offload CASE --confirm --run`` does (:func:`xladoctor.oracle.confirm.confirm` with
``run=True``: one worker holding the chip, replaced after a crash, halt or timeout), one JSON line
per case, the first line the versions.  ``--target cpu`` runs the same on the CPU (a dry run on a
machine without a chip).  Committed as ``tests/data/chip/round6-confirm-run.jsonl``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLEAN_CASES = 8


def _analyse(text: str, source: str) -> Any:
    from xladoctor.base.errors import located
    from xladoctor.route.module_analysis import analyse_module, parse_hlo
    from xladoctor.route.options import Options

    module = parse_hlo(text, source)
    with located(text, source):
        return analyse_module(module, text, source, Options(), None)


def make(cases: str) -> int:
    """The cases as files: ``NAME.hlo`` (as written), ``NAME.fix-host.hlo``, ``NAME.fix-device.hlo``."""
    from xladoctor.route.fix import fixed_text
    from xladoctor.offload import fix_device, fix_host

    os.makedirs(cases, exist_ok=True)
    clean = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/offload/*.hlo"))):
        name = os.path.basename(path)[:-4]
        text = _read(path)
        try:
            mc = _analyse(text, path)
        except Exception as e:  # an unreadable scenario is said, not skipped silently
            print(f"{name}: not analysed: {e}", file=sys.stderr)
            continue
        if mc.result.errors:
            _write(cases, f"e1200-{name}.hlo", text)
            for which, fix in (("host", fix_host), ("device", fix_device)):
                out = fixed_text(text, mc.module, fix(mc.module, mc.result), path)
                _write(cases, f"e1200-{name}.fix-{which}.hlo", out.text)
        elif not mc.result.failures and clean < CLEAN_CASES:
            clean += 1
            _write(cases, f"clean-{name}.hlo", text)
    for path in sorted(glob.glob(os.path.join(ROOT, "src/xladoctor/examples/*.hlo"))):
        _write(cases, f"example-{os.path.basename(path)}", _read(path))
    print(len(os.listdir(cases)), "cases in", cases)
    return 0


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(cases: str, name: str, text: str) -> None:
    with open(os.path.join(cases, name), "w") as f:
        f.write(text)


def _versions(target: str) -> dict[str, Any]:
    import importlib.metadata as md

    v: dict[str, Any] = {"target": target}
    for pkg in ("jax", "jaxlib", "libtpu"):
        try:
            v[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            v[pkg] = None
    return v


def judge_case(path: str, seed: int = 0) -> dict[str, Any]:
    """One case as ``offload CASE --confirm --run`` judges it: the prediction, the chip's verdict, the run."""
    from xladoctor.oracle.confirm import confirm

    text = _read(path)
    mc = _analyse(text, path)
    doc = confirm(text, mc.module, mc.result, "v5e:2x2", None, "tpu", run=True, seed=seed).to_json()
    rec: dict[str, Any] = {"case": os.path.basename(path), "predicted_e1200": len(mc.result.errors),
                           "predicted_failures": len(mc.result.failures)}
    verdict = doc.get("verdict") or {}
    rec.update(judge=doc.get("judge"), verdict=verdict.get("kind"), agree=doc.get("agree"),
               message=(verdict.get("message") or "")[:600], check_line=verdict.get("check_line"),
               reason=verdict.get("reason"), run=doc.get("run"))
    return rec


def run(cases: str, out_path: str, budget: float, target: str) -> int:
    from xladoctor.oracle import run_chip

    if target != "tpu":  # a dry run: the CPU plays the chip
        runner = run_chip.ChipRunner(target)
        run_chip.shared_runner = lambda t="tpu": runner  # type: ignore[assignment]
        run_chip.chip_present = lambda: True  # type: ignore[assignment]
    paths = sorted(glob.glob(os.path.join(cases, "*.hlo")))
    started = time.monotonic()
    with open(out_path, "w") as out:
        out.write(json.dumps({"versions": _versions(target), "chip_present": run_chip.chip_present(),
                              "cases": len(paths)}) + "\n")
        for i, path in enumerate(paths):
            if time.monotonic() - started > budget:
                out.write(json.dumps({"not_reached": [os.path.basename(p) for p in paths[i:]]}) + "\n")
                break
            t0 = time.monotonic()
            try:
                rec = judge_case(path)
            except Exception as e:
                rec = {"case": os.path.basename(path), "harness_error": f"{type(e).__name__}: {e}"[:600]}
            rec["wall_s"] = round(time.monotonic() - t0, 2)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(rec["case"], rec.get("verdict"), (rec.get("run") or {}).get("outcome"), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="step", required=True)
    m = sub.add_parser("make")
    m.add_argument("cases")
    r = sub.add_parser("run")
    r.add_argument("cases")
    r.add_argument("out")
    r.add_argument("--budget", type=float, default=400.0)
    r.add_argument("--target", default="tpu")
    args = p.parse_args(argv)
    if args.step == "make":
        return make(args.cases)
    return run(args.cases, args.out, args.budget, args.target)


if __name__ == "__main__":
    sys.exit(main())
