"""Differential campaign: xladoctor's E1200 prediction against the real TPU compiler.

Each generated program (``offload_gen.py``: JAX level and pre-optimisation HLO level)
is compiled by libtpu 0.0.42.1 (compile-only, v5e topology, through
:mod:`xladoctor.oracle`) and analysed by :func:`xladoctor.offload.analyze_host_offload`
with the default rule.  They agree when the verdict kind is the same (compiles /
E1200 / other XLA error / compiler crash) and, for E1200, the start instruction is the
same under the oracle's renaming rule (:func:`xladoctor.oracle.same_instruction`).
A disagreement is either a named known divergence (:mod:`xladoctor.oracle.divergences`)
or printed with a shrunk repro.  Programs the compiler cannot be given faithfully
(``unsupported``), compiles past the time limit and programs jax itself refuses to
lower are counted apart, never as agreement.

    python bench/offload_campaign.py --seed 0 --count 2000
    python bench/offload_campaign.py --seconds 600 --level hlo --json
    python bench/offload_campaign.py --corpus      # scenarios, examples, jax test programs
    python bench/offload_campaign.py --corpus --record tests/data/offload/REAL.tsv
    python bench/offload_campaign.py --platform gpu --count 2000   # XLA:GPU (h100), the [gpu] extra

``--platform gpu`` judges with XLA's GPU compiler instead (compile-only from XLA's target
config, ``--topology h100`` by default): JAX programs are lowered for ``cuda`` and the
prediction is ``check_offload(platform="cuda")``'s, GPU rule included; its known
divergences are :mod:`xladoctor.oracle.gpu_divergences`.

Exit status: 0 when every decided program agrees or is a named divergence, 1 otherwise,
2 when no real compiler can run here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import offload_gen  # noqa: E402

from xladoctor.offload import analyze_host_offload  # noqa: E402
from xladoctor.oracle import OracleWorker, compare, prediction_of  # noqa: E402
from xladoctor.oracle.divergences import match_divergence  # noqa: E402
from xladoctor.syntax.hlo_parser import parse_module  # noqa: E402

TARGET = {"lower": "tpu", "match": match_divergence}
"""What --platform set: the platform JAX programs are lowered for and the divergence table."""


@dataclass
class Record:
    """One program's outcome in the campaign."""

    name: str
    level: str
    status: str
    """``agree``, ``divergence`` (named), ``disagree``, ``undecided`` (no compiler verdict) or
    ``refused`` (jax would not lower the program: not a host-offload question)."""
    reason: str = ""
    divergence: str | None = None
    predicted: str = ""
    actual: str = ""
    spec: dict[str, Any] | None = None
    repro: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "level": self.level, "status": self.status, "reason": self.reason,
                "divergence": self.divergence, "predicted": self.predicted, "actual": self.actual,
                "spec": self.spec, "repro": self.repro}


# -- one program -------------------------------------------------------------------------

def _judge(name: str, level: str, result, module, verdict, spec=None, repro: str = "") -> Record:
    comparison = compare(prediction_of(result, module), verdict)
    rec = Record(name, level, "agree", comparison.reason, predicted=comparison.predicted.summary(),
                 actual=verdict.summary(), spec=spec, repro=repro)
    if comparison.agree is None:
        rec.status = "undecided"
    elif comparison.agree is False:
        known = TARGET["match"](module, result, verdict)
        if known is not None:
            rec.status, rec.divergence = "divergence", known.name
        else:
            rec.status = "disagree"
    if PREPASS_DUMP is not None:
        compare_prepass(rec, module)
    return rec


def run_hlo_text(name: str, text: str, worker: OracleWorker, spec=None) -> Record:
    module = parse_module(text, name)
    result = _analyze(module)
    return _judge(name, "hlo", result, module, worker.compile_hlo(text), spec, text)


def _analyze(module):
    """The prediction for an HLO module on the campaign's platform."""
    from xladoctor.offload.platform_checks import predict_for_platform

    return predict_for_platform(module, analyze_host_offload(module, platform=TARGET["lower"]), TARGET["lower"])


def run_jax(name: str, jitted, args, worker: OracleWorker, spec=None, repro: str = "") -> Record:
    from xladoctor.jax.lowering import lower_program
    from xladoctor.jax.offload_check import check_lowered

    try:
        lowered = jitted.trace(*args).lower(lowering_platforms=(TARGET["lower"],))
        program = lower_program(lowered)
    except Exception as e:  # jax refuses this combination: nothing for XLA to judge
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        return Record(name, "jax", "refused", f"{type(e).__name__}: {first}", spec=spec, repro=repro)
    report = check_lowered(program)
    return _judge(name, "jax", report.result, program.module, worker.compile_stablehlo(lowered.as_text()),
                  spec, repro or program.module.name)


def run_spec(name: str, sp: dict[str, Any], worker: OracleWorker) -> Record:
    if sp["level"] == "hlo":
        return run_hlo_text(name, offload_gen.build_hlo(sp), worker, sp)
    jitted, args = offload_gen.build_jax(sp)
    return run_jax(name, jitted, args, worker, sp, offload_gen.jax_source(sp))


# -- --compare-prepass: our module after the pre-passes against the compiler's dump ---------

PREPASS_DUMP: str | None = None
"""The folder the workers dump into under --compare-prepass (see start_prepass_dumps)."""
PREPASS_KEEP: str | None = None
"""--keep-prepass DIR: each compared program's input module (``NAME.input.hlo``) and the
compiler's dump (``NAME.dump.txt``) are kept there, so ``bench/prepass_offline.py`` can
compare them again after a change to the pre-passes without compiling anything."""


def start_prepass_dumps() -> None:
    """Make every worker started from now on dump the module before HostOffloadLegalize."""
    import tempfile

    from xladoctor.oracle.prepass import DUMP_FLAGS

    global PREPASS_DUMP
    PREPASS_DUMP = tempfile.mkdtemp(prefix="xladoctor-prepass-")
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={PREPASS_DUMP} {DUMP_FLAGS}".strip()


def compare_prepass(rec: Record, module) -> None:
    """The comparison for the compile just judged (then the dump folder is emptied for the next)."""
    rec.extra["prepass"] = compare_with_dump(module, rec.actual, rec.name)


def compare_with_dump(module, actual: str, name: str) -> dict[str, str]:
    """``{"class", "where"}`` of our prepared ``module`` against the dump of the compile just
    run; the dump folder is emptied for the next compile."""
    import shutil

    from xladoctor.oracle.prepass import compare_prepared, prepared_module, read_dump

    assert PREPASS_DUMP is not None
    dumped = read_dump(PREPASS_DUMP)
    shutil.rmtree(PREPASS_DUMP, ignore_errors=True)
    os.makedirs(PREPASS_DUMP, exist_ok=True)
    if dumped is None:
        return {"class": "no dump", "where": actual}
    if PREPASS_KEEP is not None:
        from xladoctor.syntax.hlo_printer import print_module

        stem = os.path.join(PREPASS_KEEP, name.replace("/", "_").replace(":", "_"))
        with open(stem + ".input.hlo", "w", encoding="utf-8") as f:
            f.write(print_module(module))
        with open(stem + ".dump.txt", "w", encoding="utf-8") as f:
            f.write(dumped)
    try:
        c = compare_prepared(prepared_module(module), parse_module(dumped, "dump"))
    except Exception as e:  # a dump our parser or passes refuse is a finding of its own
        return {"class": f"error {type(e).__name__}", "where": str(e)[:200]}
    return {"class": c.difference_class(), "where": c.describe()}


def prepass_summary(records: list[Any]) -> dict[str, Any]:
    """Identical / different / without a dump, and the differing programs by class."""
    seen = [r for r in records if "prepass" in r.extra]
    by_class: dict[str, list[str]] = {}
    for r in seen:
        by_class.setdefault(r.extra["prepass"]["class"], []).append(r.name)
    identical = len(by_class.pop("identical", []))
    no_dump = len(by_class.pop("no dump", []))
    return {"compared": len(seen) - no_dump, "identical": identical, "different": len(seen) - no_dump - identical,
            "no_dump": no_dump, "classes": dict(sorted(by_class.items(), key=lambda kv: -len(kv[1])))}


def prepass_by_family(records: list[Any]) -> dict[str, Any]:
    """--user --compare-prepass: :func:`prepass_summary` of each family, classes by count only."""
    families: dict[str, list[Any]] = {}
    for r in records:
        families.setdefault(r.family, []).append(r)
    out = {}
    for family, recs in sorted(families.items()):
        doc = prepass_summary(recs)
        doc["classes"] = {k: len(v) for k, v in doc["classes"].items()}
        out[family] = doc
    return out


def print_prepass(records: list[Record]) -> None:
    doc = prepass_summary(records)
    print(f"pre-pass module comparison: {doc['identical']}/{doc['compared']} identical, {doc['different']} "
          f"different, {doc['no_dump']} without a before_host-offload-legalize dump")
    where = {r.name: r.extra["prepass"]["where"] for r in records if "prepass" in r.extra}
    for cls, names in doc["classes"].items():
        print(f"  {len(names):4d}  {cls}: {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}")
        print(f"        first: {where[names[0]][:300]}")


# -- shrinking ---------------------------------------------------------------------------

def _signature(rec: Record) -> tuple[str, str]:
    return rec.predicted.split(" ")[0], rec.actual.split(" ")[0]


def shrink(rec: Record, worker: OracleWorker, budget: int = 40) -> Record:
    """Greedy: drop steps (a dropped step passes its first operand on), outputs, host kinds,
    while the same disagreement (same predicted and actual kinds) remains."""
    assert rec.spec is not None
    best, want = rec, _signature(rec)
    tries = 0

    def attempt(candidate: dict[str, Any]) -> bool:
        nonlocal best, tries
        tries += 1
        try:
            got = run_spec(rec.name, candidate, worker)
        except Exception:
            return False
        if got.status == "disagree" and _signature(got) == want:
            best = got
            return True
        return False

    changed = True
    while changed and tries < budget:
        changed = False
        sp = best.spec
        for k in range(len(sp["steps"]) - 1, -1, -1):
            st = sp["steps"][k]
            if st[0] == "id" or tries >= budget:
                continue
            cand = dict(sp, steps=[*sp["steps"][:k], ("id", offload_gen.operands_of(st)[0]), *sp["steps"][k + 1:]])
            if attempt(cand):
                changed = True
                sp = best.spec
        for k in range(len(sp["outs"])):
            if len(sp["outs"]) > 1 and tries < budget:
                cand = dict(sp, outs=[o for i, o in enumerate(sp["outs"]) if i != k],
                            out_kinds=[o for i, o in enumerate(sp["out_kinds"]) if i != k])
                if attempt(cand):
                    changed = True
                    break
        sp = best.spec
        for k, kind in enumerate(sp["args"]):
            if kind != "device" and tries < budget:
                if attempt(dict(sp, args=[*sp["args"][:k], "device", *sp["args"][k + 1:]])):
                    changed = True
                    sp = best.spec
    return best


# -- the fixed corpus ----------------------------------------------------------------------

def corpus(worker: OracleWorker, verdicts: dict | None = None) -> list[Record]:
    """Every scenario file, the four example programs and their fixes, the jax test programs.

    ``verdicts`` (when given) receives each scenario's real verdict, by file stem."""
    from pathlib import Path

    records: list[Record] = []
    for path in sorted(Path(ROOT, "tests", "data", "offload").glob("*.hlo")):
        text = path.read_text()
        if "OPTIONS:" in text:  # written for a non-default rule or debug option
            continue
        body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
        verdict = worker.compile_hlo(body)
        if verdicts is not None:
            verdicts[path.stem] = verdict
        module = parse_module(body, path.stem)
        records.append(_judge(path.stem, "hlo", _analyze(module), module, verdict, repro=body))
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import jax
    from offload_programs import PROGRAMS

    for name, make in PROGRAMS.items():
        p = make()
        records.append(run_jax(f"example:{name}", jax.jit(p.fn, **p.jit_kwargs), p.args, worker))
        if p.fixed_fn is not None:
            records.append(run_jax(f"example:{name}:fixed", jax.jit(p.fixed_fn, **p.jit_kwargs), p.args, worker))
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from jax_programs import PROGRAMS as TEST_PROGRAMS

    for name, prog in sorted(TEST_PROGRAMS.items()):
        if prog.devices > 1 or prog.x64:
            continue
        try:
            fn, args = prog.build()
        except Exception as e:
            records.append(Record(f"jax_programs:{name}", "jax", "refused", str(e)[:200]))
            continue
        jitted = fn if hasattr(fn, "trace") else jax.jit(fn)
        records.append(run_jax(f"jax_programs:{name}", jitted, args, worker))
    return records


RECORD_HEADER = ("# The real TPU compiler's verdict (libtpu 0.0.42.1, v5e:2x2) on each scenario file run\n"
                 "# with the default options; written by bench/offload_campaign.py --corpus --record, checked\n"
                 "# by tests/test_offload_real.py. Columns: scenario, kind, start, status, message (first line).\n")


def write_record(path: str, verdicts: dict) -> None:
    rows = []
    for name, v in sorted(verdicts.items()):
        text = (v.check_line or v.message or v.reason or "").strip().splitlines()
        first = text[0][:160].replace("\t", " ") if text else ""
        rows.append(f"{name}\t{v.kind}\t{v.start or '-'}\t{v.status or '-'}\t{first}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(RECORD_HEADER)
        f.writelines(rows)


# -- driver ------------------------------------------------------------------------------

def summary(records: list[Record], seconds: float) -> dict[str, Any]:
    counts = Counter(r.status for r in records)
    decided = counts["agree"] + counts["divergence"] + counts["disagree"]
    return {"programs": len(records), "decided": decided, "agree": counts["agree"],
            "named_divergences": dict(Counter(r.divergence for r in records if r.divergence)),
            "disagree": counts["disagree"], "undecided": counts["undecided"], "refused": counts["refused"],
            "verdicts": dict(Counter(r.actual.split(" ")[0] for r in records if r.status != "refused")),
            "seconds": round(seconds, 1)}


def run_user_campaign(args: argparse.Namespace, worker: OracleWorker) -> int:
    """``--user``: the user-shaped programs (:mod:`user_programs`) through every route
    (:mod:`user_routes`); exit 1 when a route is confidently wrong outside a named divergence."""
    import tempfile

    import user_programs
    import user_routes

    started, records = time.monotonic(), []
    families = args.families.split(",") if args.families else None
    with tempfile.TemporaryDirectory() as folder:
        for i, prog in enumerate(user_programs.programs(args.seed, args.count, families)):
            if args.seconds is not None and time.monotonic() - started > args.seconds:
                break
            rec = user_routes.run_program(prog, worker, folder)
            if PREPASS_DUMP is not None:
                rec.extra["prepass"] = (compare_with_dump(rec.module, rec.actual, rec.name) if rec.module is not None
                                        else {"class": "no dump", "where": rec.actual})
            records.append(rec)
            if not args.quiet and (i + 1) % 25 == 0:
                print(f"  {i + 1} user programs, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    doc = user_routes.summarise(records)
    if PREPASS_DUMP is not None:
        doc["prepass"] = prepass_summary(records)
        doc["prepass_by_family"] = prepass_by_family(records)
        where = {r.name: r.extra["prepass"]["where"] for r in records if "prepass" in r.extra}
        doc["prepass_first"] = {c: where[names[0]][:400] for c, names in doc["prepass"]["classes"].items()}
    doc["seconds"] = round(time.monotonic() - started, 1)
    json.dump(doc, sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")
    return 1 if any(c for c in doc["classes"] if ":" not in c["class"].split(" ")[0]) else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=200, help="programs to generate (default 200)")
    ap.add_argument("--seconds", type=float, default=None, help="stop generating after this many seconds")
    ap.add_argument("--level", choices=("jax", "hlo", "both"), default="both")
    ap.add_argument("--corpus", action="store_true", help="run the fixed corpus instead of generated programs")
    ap.add_argument("--record", metavar="TSV", help="with --corpus: write each scenario file's real verdict "
                    "(name, kind, start, message) to TSV, the table tests/test_offload_real.py checks")
    ap.add_argument("--platform", choices=("tpu", "gpu"), default="tpu",
                    help="which real compiler judges: libtpu (default) or XLA:GPU (the [gpu] extra)")
    ap.add_argument("--topology", default=None, help="default v5e:2x2, or h100 with --platform gpu")
    ap.add_argument("--shrink-budget", type=int, default=40, help="compiles spent shrinking each disagreement")
    ap.add_argument("--json", action="store_true", help="one JSON document: summary and every disagreement")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    ap.add_argument("--user", action="store_true", help="the user-shaped programs (bench/user_programs.py) "
                    "through every route (check_offload, offload --stablehlo, check on pairs, check alone); JSON")
    ap.add_argument("--families", help="with --user: comma-separated family names (default all)")
    ap.add_argument("--compare-prepass", action="store_true", help="also compare each program's module after "
                    "our pre-passes with the compiler's before_host-offload-legalize dump (xladoctor.oracle.prepass)")
    ap.add_argument("--keep-prepass", metavar="DIR", help="with --compare-prepass: keep each program's input "
                    "module and the compiler's dump in DIR (bench/prepass_offline.py compares them again)")
    args = ap.parse_args(argv)
    if args.compare_prepass:
        start_prepass_dumps()
        if args.keep_prepass:
            global PREPASS_KEEP
            PREPASS_KEEP = args.keep_prepass
            os.makedirs(PREPASS_KEEP, exist_ok=True)
    if args.platform == "gpu":
        from xladoctor.oracle.gpu_divergences import match_gpu_divergence

        TARGET.update(lower="cuda", match=match_gpu_divergence)
    args.topology = args.topology or ("h100" if args.platform == "gpu" else "v5e:2x2")

    started = time.monotonic()
    records: list[Record] = []
    with OracleWorker(args.topology, timeout=120, want_text=False) as worker:
        why = worker.unavailable
        if why is not None:
            print(f"offload_campaign: no real compiler here: {why}", file=sys.stderr)
            return 2
        if args.user:
            return run_user_campaign(args, worker)
        if args.corpus:
            verdicts: dict = {}
            records = corpus(worker, verdicts)
            if args.record:
                write_record(args.record, verdicts)
        else:
            rng = random.Random(args.seed)
            for i in range(args.count):
                if args.seconds is not None and time.monotonic() - started > args.seconds:
                    break
                sp = offload_gen.spec(rng, args.level)
                rec = run_spec(f"seed{args.seed}-{i}", sp, worker)
                if rec.status == "disagree":
                    rec = shrink(rec, worker, args.shrink_budget)
                records.append(rec)
                if not args.quiet and not args.json and (i + 1) % 50 == 0:
                    s = summary(records, time.monotonic() - started)
                    print(f"  {i + 1} programs: {s['agree']} agree, {s['disagree']} disagree, "
                          f"{sum(s['named_divergences'].values())} named, {s['undecided']} undecided, "
                          f"{s['refused']} refused, {s['seconds']} s", file=sys.stderr, flush=True)
    doc = summary(records, time.monotonic() - started)
    bad = [r for r in records if r.status == "disagree"]
    if args.json:
        doc["disagreements"] = [r.to_json() for r in bad]
        doc["records"] = [{"name": r.name, "status": r.status, "divergence": r.divergence} for r in records]
        if args.compare_prepass:
            for entry, r in zip(doc["records"], records):
                entry["prepass"] = r.extra.get("prepass")
        if args.compare_prepass:
            doc["prepass"] = prepass_summary(records)
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(f"agree {doc['agree'] + sum(doc['named_divergences'].values())}/{doc['decided']} decided programs "
              f"({doc['agree']} identical, named divergences {doc['named_divergences'] or 'none'}); "
              f"{doc['disagree']} disagreements; {doc['undecided']} without a compiler verdict, "
              f"{doc['refused']} refused by jax; {doc['programs']} programs in {doc['seconds']} s")
        print(f"real compiler verdicts: {doc['verdicts']}")
        for r in bad:
            print(f"\n--- {r.name} ({r.level}): predicted {r.predicted}; real compiler: {r.actual}")
            print(r.repro)
        if args.compare_prepass:
            print_prepass(records)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
