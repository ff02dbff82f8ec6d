"""Every fix xladoctor suggests for an E1200 program, applied and compiled by the real TPU compiler.

For each program the real compiler (libtpu 0.0.42.1, compile-only, v5e:2x2) rejects with E1200,
each fix the tool suggests is applied in the two forms a user gets it, and the fixed program is
compiled again:

* ``hlo``: ``xladoctor offload X.hlo --stablehlo X.mlir --fix host|device -o FIXED.hlo`` run as a
  user runs it (the CLI, in process), on the program's ``as_text("hlo")`` / ``as_text()``; the
  written file goes to the compiler as it is.
* ``python``: ``check_offload``'s code, applied to the program.  Fix (a), ``host_fix``: the
  ``out_shardings=`` expression of its ``jax.jit(f, out_shardings=...)`` line, evaluated with the
  names its text defines (``host``, ``device``), the program's other jit options kept.  Fix (b),
  ``device_fix``: the statement it gives (``name = jax.device_put(name, jax.memory.Space.Device)``
  or another frontend's ``name = place_to_device(name)``) applied to the value returned at that
  leaf, which is what the statement does pasted before the ``return`` it names.  A fix whose
  text holds no statement to apply is counted ``no_code``.

Every fix of a report is applied at once (XLA stops at the first E1200; the report lists all).
A fix counts as accepted when the compiler compiles the fixed program; otherwise its first
message line is kept, as ``e1200`` (the fix does not work: a bug) or ``other_error`` (E1200 is
gone and a later pass rejects the program for another reason, e.g. compute on host memory).  Whether ``check_offload`` then says the program is clean (so the same fix
is not suggested again) is counted too.

Each ``other_error`` (a "later failure") is also split by what our own check of the fixed program
said (``later`` in the JSON): ``predicted`` (our outcome is ``failure``), ``warned`` (a warning of
:mod:`xladoctor.offload.later_failures` or HostOffloadLegalize) or ``silent`` (an ``ok``: a bug to
report); a fix that compiles but that our check predicts to fail is listed under
``compiles_predicted_to_fail``.  The text ends with ``later failures: N, predicted M, ...``.

Programs: the user-shaped ones (``bench/user_programs.py``: ``(family, seed)`` names a program)
and the generated ones (``bench/offload_gen.py``: JAX level, and HLO level where only the ``hlo``
form applies).

    nice python bench/fix_campaign.py --seed 0 --count 130 --gen 60 --json
    nice python bench/fix_campaign.py --families device_put_host,scan_offload --count 40

Exit status: 0 when no suggested fix leaves E1200 (or is refused by jax), 1 when one does, 2 when
no real compiler can run here.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

FORMS = (("hlo", "host"), ("hlo", "device"), ("python", "host"), ("python", "device"))


@dataclass
class FixOutcome:
    status: str
    """``compiles``; ``e1200`` (the compiler still says E1200: the fix does not work); ``other_error``
    (E1200 is gone, a later pass rejects the program for another reason); ``refused`` (jax will not
    lower the fixed program); ``no_code`` (nothing to apply); ``cli_error`` (``--fix`` wrote nothing)."""
    message: str = ""
    clean_after: bool | None = None
    """``check_offload`` (python) / ``offload`` (hlo) finds nothing on the fixed program."""
    later: str | None = None
    """For ``other_error`` only: what our own check of the fixed program said about the later
    failure: ``predicted`` (outcome ``failure``), ``warned`` (no failure, a later-failure warning:
    ``later_warnings`` or HostOffloadLegalize's), ``silent`` (a silent ``ok``: a bug to report) or
    ``e1200`` (we still predict E1200 there).  For ``compiles``: ``wrongly_predicted`` when our check
    predicts a failure for the program the compiler accepts (a bug), else None."""


def told_first(result: Any) -> bool:
    """An E1200 report that already tells of a later failure: a warning, or a failure after the pass."""
    return bool(result.later_warnings) or any(not f.first for f in result.failures)


def later_of(result: Any) -> str:
    """What our check of a fixed program that a later pass rejects said (``FixOutcome.later``)."""
    if result.outcome == "failure":
        return "predicted"
    legalize = result.legalize.warnings if result.legalize is not None else []
    if result.later_warnings or legalize:
        return "warned"
    return "silent" if result.outcome == "ok" else "e1200"


@dataclass
class ProgramFixes:
    name: str
    family: str
    verdict: str
    findings: int = 0
    fixes: dict[str, FixOutcome] = field(default_factory=dict)
    told_first: bool = False
    """The E1200 report itself already told of a later failure: a warning (``later_warnings``) or a
    failure after HostOffloader's (shown below the E1200 as "XLA would fail: ...")."""


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0][:240] if lines else ""


def _verdict_message(v: Any) -> str:
    return _first_line(v.check_line or v.message or v.reason or v.kind)


# -- form (i): the HLO-level edit, through the CLI ------------------------------------------

def hlo_fix(hlo: str, mlir: str | None, which: str, worker: Any, folder: str) -> FixOutcome:
    from xladoctor.cli.main import main

    src, out = os.path.join(folder, "x.hlo"), os.path.join(folder, f"fixed_{which}.hlo")
    with open(src, "w") as f:
        f.write(hlo)
    argv = ["offload", src, "--fix", which, "-o", out]
    if mlir is not None:
        with open(os.path.join(folder, "x.mlir"), "w") as f:
            f.write(mlir)
        argv += ["--stablehlo", os.path.join(folder, "x.mlir")]
    if os.path.exists(out):
        os.remove(out)
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        rc = main(argv)
    if not os.path.exists(out):
        return FixOutcome("cli_error", f"rc {rc}: {_first_line(said.getvalue())}")
    with open(out) as f:
        fixed = f.read()
    return _outcome(worker.compile_hlo(fixed), rc == 0, lambda: _hlo_check(fixed, out, mlir))


def _hlo_check(fixed: str, path: str, mlir: str | None) -> Any:
    """The analysis ``offload`` ran on the file it wrote (with the same ``--stablehlo``), in process."""
    from xladoctor.route.module_analysis import analyse_module, parse_hlo
    from xladoctor.route.options import Options

    options = Options(stablehlo_path="x.mlir" if mlir is not None else None)
    return analyse_module(parse_hlo(fixed, path), fixed, path, options, mlir).result


def _outcome(v: Any, clean_after: bool, check: Any) -> FixOutcome:
    """``check()``: our own analysis result for the fixed program (read only for ``other_error``)."""
    status = {"compiles": "compiles", "e1200": "e1200"}.get(v.kind, "other_error")
    later = None
    if status == "other_error":
        later = later_of(check())
    elif status == "compiles" and not clean_after and check().outcome == "failure":
        later = "wrongly_predicted"
    return FixOutcome(status, "" if status == "compiles" else f"{v.kind}: {_verdict_message(v)}", clean_after,
                      later)


# -- form (ii): check_offload's code, applied to the program --------------------------------

_DEVICE_PUT = re.compile(r"^\s*(\w+)\s*=\s*jax\.device_put\(\1,\s*jax\.memory\.Space\.Device\)")
_COUNTERPART = re.compile(r"^\s*(\w+)\s*=\s*(\w+)\(\1\)\s*$")
_WRAP = re.compile(r"^\s*(?:jax\.device_put|(\w+))\(.*\)\s*(?:#.*)?$")


def device_statement(device_fix: str) -> str | None:
    """What fix (b) does to the returned value: ``device_put`` (JAX's own move to
    ``Space.Device``), a frontend counterpart's name, or None when its text holds no statement."""
    for line in device_fix.splitlines():
        code = line.split("  #", 1)[0].rstrip()
        if not code.strip() or code.lstrip().startswith("#"):
            continue
        if _DEVICE_PUT.match(code) or code.lstrip().startswith("jax.device_put("):
            return "device_put"
        m = _COUNTERPART.match(code)
        if m:
            return m.group(2)
        m = _WRAP.match(code)
        if m and m.group(1):
            return m.group(1)
    return None


_OUT_SHARDINGS = re.compile(r"out_shardings=(.*)\)\s*#")


def host_shardings(host_fix: str, sharding: Any, report: Any) -> Any:
    """Fix (a) as its text spells it: the ``out_shardings=`` expression of its ``jax.jit`` line,
    evaluated with the names the text defines (``host``, ``device``, ``sharding``); where the
    text gives no expression (a tree too long to print), ``report.suggested_out_shardings``,
    which the text names."""
    m = _OUT_SHARDINGS.search(host_fix)
    if m is None or m.group(1).startswith("<"):
        return report.suggested_out_shardings(sharding)
    names = {"host": sharding.with_memory_kind("pinned_host"), "device": sharding.with_memory_kind("device"),
             "sharding": sharding}
    return eval(m.group(1), {"__builtins__": {}}, names)  # our own report's text


def _with_device_fix(fn: Any, leaves: dict[int, str], counterparts: dict[str, Any]) -> Any:
    import jax

    def fixed(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        flat, tree = jax.tree_util.tree_flatten(out)
        for leaf, how in leaves.items():
            move = (lambda v: jax.device_put(v, jax.memory.Space.Device)) if how == "device_put" else counterparts[how]
            flat[leaf] = move(flat[leaf])
        return jax.tree_util.tree_unflatten(tree, flat)

    return fixed


def _compile_jax(fn: Any, args: tuple[Any, ...], jit_kwargs: dict[str, Any], worker: Any) -> tuple[Any, Any]:
    import jax

    from xladoctor.jax.lowering import lower_program
    from xladoctor.jax.offload_check import check_lowered

    lowered = jax.jit(fn, **jit_kwargs).trace(*args).lower(lowering_platforms=("tpu",))
    return worker.compile_stablehlo(lowered.as_text()), check_lowered(lower_program(lowered))


def python_fixes(fn: Any, args: tuple[Any, ...], jit_kwargs: dict[str, Any], report: Any, worker: Any,
                 counterparts: dict[str, Any]) -> dict[str, FixOutcome]:
    import jax
    from jax.sharding import SingleDeviceSharding

    out: dict[str, FixOutcome] = {}
    shardings = host_shardings(report.findings_of("E1200")[0].host_fix, SingleDeviceSharding(jax.devices()[0]), report)
    out["python host"] = _judge_jax(fn, args, {**jit_kwargs, "out_shardings": shardings}, worker)
    how = {f.leaf: device_statement(f.device_fix) for f in report.findings_of("E1200")}
    missing = [f.device_fix for f in report.findings_of("E1200") if how[f.leaf] is None or
               (how[f.leaf] != "device_put" and how[f.leaf] not in counterparts)]
    if missing:
        out["python device"] = FixOutcome("no_code", _first_line(missing[0]))
    else:
        out["python device"] = _judge_jax(_with_device_fix(fn, how, counterparts), args, jit_kwargs, worker)  # type: ignore[arg-type]
    return out


def _judge_jax(fn: Any, args: tuple[Any, ...], jit_kwargs: dict[str, Any], worker: Any) -> FixOutcome:
    try:
        v, after = _compile_jax(fn, args, jit_kwargs, worker)
    except Exception as e:  # jax refuses the fixed program: the fix is wrong as written
        return FixOutcome("refused", f"jax: {type(e).__name__}: {_first_line(str(e))}")
    return _outcome(v, after.ok, lambda: after.result)


# -- one program -------------------------------------------------------------------------

def run_jax_program(name: str, family: str, fn: Any, args: tuple[Any, ...], jit_kwargs: dict[str, Any],
                    worker: Any, folder: str, counterparts: dict[str, Any]) -> ProgramFixes | None:
    import jax

    from xladoctor.jax.lowering import lower_program
    from xladoctor.jax.offload_check import check_lowered

    try:
        lowered = jax.jit(fn, **jit_kwargs).trace(*args).lower(lowering_platforms=("tpu",))
        hlo, mlir = lowered.as_text("hlo"), lowered.as_text()
    except Exception:  # jax refuses the combination: not a host-offload question
        return None
    v = worker.compile_stablehlo(mlir)
    rec = ProgramFixes(name, family, v.kind)
    if v.kind != "e1200":
        return rec
    report = check_lowered(lower_program(lowered))
    rec.findings = len(report.findings_of("E1200"))
    rec.told_first = told_first(report.result)
    if not report.findings_of("E1200"):
        return rec
    for which in ("host", "device"):
        rec.fixes[f"hlo {which}"] = hlo_fix(hlo, mlir, which, worker, folder)
    rec.fixes.update(python_fixes(fn, args, jit_kwargs, report, worker, counterparts))
    return rec


def run_hlo_program(name: str, text: str, worker: Any, folder: str) -> ProgramFixes:
    from xladoctor.route.module_analysis import analyse_module, parse_hlo

    v = worker.compile_hlo(text)
    rec = ProgramFixes(name, "gen_hlo", v.kind)
    if v.kind != "e1200":
        return rec
    first = analyse_module(parse_hlo(text, name), text, name).result
    rec.findings, rec.told_first = len(first.errors), told_first(first)
    if rec.findings:
        for which in ("host", "device"):
            rec.fixes[f"hlo {which}"] = hlo_fix(text, None, which, worker, folder)
    return rec


# -- driver ------------------------------------------------------------------------------

def programs(args: argparse.Namespace) -> Any:
    """``(name, family, kind, payload)``: user-shaped programs, then generated JAX and HLO ones."""
    import offload_gen
    import user_programs

    families = args.families.split(",") if args.families else None
    if args.count:
        for prog in user_programs.programs(args.seed, args.count, families):
            yield prog.name, prog.family, "jax", (prog.fn, prog.args, prog.jit_kwargs)
    rng = random.Random(args.seed)
    for i in range(args.gen):
        level = "jax" if i % 2 == 0 else "hlo"
        sp = offload_gen.spec(rng, level)
        name = f"gen{args.seed}-{i}"
        if level == "hlo":
            yield name, "gen_hlo", "hlo", offload_gen.build_hlo(sp)
        else:
            jitted, gargs = offload_gen.build_jax(sp)
            yield name, "gen_jax", "jax", (jitted.__wrapped__, gargs, _jit_kwargs_of(sp))


def _jit_kwargs_of(sp: dict[str, Any]) -> dict[str, Any]:
    """The ``jax.jit`` options ``offload_gen.build_jax`` gave the program (its out_shardings)."""
    import jax
    from jax.sharding import SingleDeviceSharding

    if not any(k is not None for k in sp["out_kinds"]):
        return {}
    dev = jax.devices()[0]
    shard = tuple(SingleDeviceSharding(dev, memory_kind=k or "device") for k in sp["out_kinds"])
    return {"out_shardings": shard if len(shard) > 1 else shard[0]}


def summarise(records: list[ProgramFixes]) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"programs": 0, "e1200": 0, "e1200_without_finding": 0,
                                                          "fixes": {}})
    failures: list[dict[str, str]] = []
    later = {"later_failures": 0, "predicted": 0, "warned": 0, "silent": 0, "e1200": 0,
             "compiles_predicted_to_fail": 0, "programs": 0, "programs_told_first": 0}
    wrongly: list[dict[str, str]] = []
    for r in records:
        fam = per[r.family]
        fam["programs"] += 1
        if r.verdict != "e1200":
            continue
        fam["e1200"] += 1
        fam["e1200_without_finding"] += r.findings == 0
        if any(o.status == "other_error" for o in r.fixes.values()):
            later["programs"] += 1
            later["programs_told_first"] += r.told_first
        for key, o in r.fixes.items():
            c = fam["fixes"].setdefault(key, {"suggested": 0, "compiles": 0, "e1200": 0, "other_error": 0,
                                              "refused": 0, "no_code": 0, "cli_error": 0, "clean_after": 0})
            c["suggested"] += 1
            c[o.status] += 1
            c["clean_after"] += bool(o.clean_after)
            if o.status == "other_error":
                later["later_failures"] += 1
                later[o.later or "silent"] += 1
            elif o.later == "wrongly_predicted":
                later["compiles_predicted_to_fail"] += 1
                wrongly.append({"program": r.name, "fix": key})
            if o.status != "compiles":
                failures.append({"program": r.name, "fix": key, "status": o.status, "message": o.message,
                                 **({"later": o.later} if o.later is not None else {})})
    total: dict[str, dict[str, int]] = {}
    for fam in per.values():
        for key, c in fam["fixes"].items():
            t = total.setdefault(key, dict.fromkeys(c, 0))
            for k, n in c.items():
                t[k] += n
    return {"families": dict(sorted(per.items())), "total": total,
            "e1200_programs": sum(f["e1200"] for f in per.values()),
            "programs": len(records), "later": later, "failures": failures,
            "compiles_predicted_to_fail": wrongly}


def print_text(doc: dict[str, Any]) -> None:
    print(f"{doc['programs']} programs, {doc['e1200_programs']} rejected with E1200, {doc['seconds']} s")
    print("accepted/suggested; BAD: the compiler still says E1200 (or jax refuses the fix); later: E1200 gone,"
          " a later pass rejects the program for another reason")
    keys = [f"{a} {b}" for a, b in FORMS]
    print(f"{'family':22s} {'E1200':>5s}  " + "  ".join(f"{k:>16s}" for k in keys))
    for name, fam in [*doc["families"].items(), ("total", {"e1200": doc["e1200_programs"], "fixes": doc["total"]})]:
        cells = []
        for k in keys:
            c = fam["fixes"].get(k)
            wrong = c["suggested"] - c["compiles"] - c["other_error"] if c else 0
            cells.append(f"{c['compiles']:>5d}/{c['suggested']:<4d}" + (f" {wrong} BAD" if wrong else "")
                         + (f" {c['other_error']} later" if c["other_error"] else "") if c else "-")
        print(f"{name:22s} {fam['e1200']:>5d}  " + "  ".join(f"{x:>16s}" for x in cells))
    la = doc.get("later")
    if la is not None:
        print(f"later failures: {la['later_failures']}, predicted {la['predicted']}, warned {la['warned']},"
              f" silent {la['silent']}" + (f", still E1200 for us {la['e1200']}" if la["e1200"] else "")
              + f"; fixes that compile predicted to fail: {la.get('compiles_predicted_to_fail', 0)}")
        if "programs" in la:
            print(f"programs with a later failure: {la['programs']}, told of it in the E1200 report already:"
                  f" {la['programs_told_first']}")
    for f in doc["failures"][:40]:
        said = f" (ours: {f['later']})" if f.get("later") else ""
        print(f"  {f['program']}: {f['fix']}: {f['status']}{said}: {f['message']}")
    for f in doc.get("compiles_predicted_to_fail", [])[:40]:
        print(f"  {f['program']}: {f['fix']}: compiles, but we predict a failure")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=130, help="user-shaped programs (round-robin over families)")
    ap.add_argument("--families", help="comma-separated user_programs families (default all)")
    ap.add_argument("--gen", type=int, default=0, help="generated programs (offload_gen, jax and hlo alternately)")
    ap.add_argument("--seconds", type=float, default=330.0, help="stop starting programs after this many seconds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    import offload_gen

    from xladoctor.oracle import OracleWorker

    place_to_device = offload_gen._frontend()[1]
    counterparts = {"place_to_device": place_to_device}
    started, records = time.monotonic(), []
    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as worker, tempfile.TemporaryDirectory() as folder:
        if worker.unavailable is not None:
            print(f"fix_campaign: no real compiler here: {worker.unavailable}", file=sys.stderr)
            return 2
        for name, family, kind, payload in programs(args):
            if time.monotonic() - started > args.seconds:
                break
            if kind == "hlo":
                records.append(run_hlo_program(name, payload, worker, folder))
                continue
            fn, pargs, kw = payload
            rec = run_jax_program(name, family, fn, pargs, kw, worker, folder, counterparts)
            if rec is not None:
                records.append(rec)
    doc = summarise(records)
    doc["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(doc)
    return 1 if any(f["status"] != "other_error" for f in doc["failures"]) else 0


if __name__ == "__main__":
    sys.exit(main())
