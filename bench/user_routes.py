"""Every route a user can take to a verdict, on each user-shaped program, against the real compiler.

For one program of :mod:`user_programs` the real TPU compiler (libtpu, compile-only) compiles
its StableHLO, and four routes predict:

* ``check_offload`` -- :func:`xladoctor.jax.check_offload`'s path (lower, memory kinds, analyse);
* ``offload_pair`` -- ``xladoctor offload X.hlo --stablehlo X.mlir`` (the pipeline's
  ``analyse_module`` on the saved ``as_text("hlo")`` and ``as_text()``);
* ``check_pair`` -- ``xladoctor check DIR`` on a folder holding ``X.hlo`` + ``X.mlir``;
* ``check_bare`` -- ``xladoctor check X.hlo`` alone: right, or ``undecidable``; never confidently wrong.

A route agrees when its outcome kind is the compiler's (compiles / E1200 / other error / crash)
and, for E1200, the start is the same under the oracle's renaming rule.  A disagreement is
classified ``predicted->actual`` with the compiler's message class, and named when
:mod:`xladoctor.oracle.divergences` knows it.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from xladoctor.oracle import compare, prediction_of
from xladoctor.oracle.comparison import Prediction
from xladoctor.oracle.divergences import match_divergence

ROUTES = ("check_offload", "offload_pair", "check_pair", "check_bare")


@dataclass
class RouteResult:
    status: str
    """``agree``, ``undecidable`` (check_bare only: said so), ``divergence`` (named), ``disagree``."""
    predicted: str = ""
    divergence_class: str = ""


@dataclass
class ProgramRecord:
    name: str
    family: str
    actual: str
    routes: dict[str, RouteResult] = field(default_factory=dict)
    choices: dict[str, Any] = field(default_factory=dict)
    refused: str = ""
    module: Any = None
    """The lowered module with memory kinds (``check_offload``'s), for ``--compare-prepass``."""
    extra: dict[str, Any] = field(default_factory=dict)


def _message_class(text: str | None) -> str:
    """The compiler's message, without names and numbers: one class per kind of failure."""
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    first = re.sub(r"%?[\w.-]+\.\d+|\d+", "#", first)
    return first[:70]


def _judge(predicted: Prediction, verdict: Any, module: Any = None, result: Any = None) -> RouteResult:
    comparison = compare(predicted, verdict)
    if comparison.agree is None:
        return RouteResult("undecided", predicted.summary())
    if comparison.agree:
        return RouteResult("agree", predicted.summary())
    cls = f"{predicted.kind}->{verdict.kind}"
    if verdict.kind in ("xla_error", "crash"):
        cls += f" [{_message_class(verdict.check_line or verdict.message)}]"
    elif verdict.kind == "e1200" and predicted.kind == "e1200":
        cls = "e1200 different start"
    if module is not None and result is not None:
        known = match_divergence(module, result, verdict)
        if known is not None:
            return RouteResult("divergence", predicted.summary(), f"{known.name}: {cls}")
    return RouteResult("disagree", predicted.summary(), cls)


def _entry_prediction(entry: dict[str, Any], module: Any) -> Prediction | None:
    """A ``check --json`` file entry as a prediction; None when it says ``undecidable``."""
    if entry.get("verdict") == "undecidable":
        return None
    off = (entry.get("offload") or {}).get("details")  # the analysis' own record (offload schema version 2)
    if entry.get("kind") == "error":
        return Prediction("xla_error", message=entry.get("error"))
    if off is None or off["outcome"] == "ok":
        return Prediction("compiles")
    if off["outcome"] == "E1200":
        start = off["error"]["start"]
        instr = module.get_instruction(start)
        return Prediction("e1200", start, instr.opcode.value if instr else None,
                          instr.parameter_number if instr else None, off["error"].get("message"))
    first = next((f for f in off["failures"] if f["first"]), off["failures"][0] if off["failures"] else None)
    if first and first["status"] == "ValueError":  # refused at the call: the compile succeeds
        return Prediction("compiles")
    return Prediction("crash" if first and first["status"] == "CHECK" else "xla_error",
                      message=first["message"] if first else "")


def run_program(prog: Any, worker: Any, folder: str) -> ProgramRecord:
    from xladoctor.jax.lowering import lower_program
    from xladoctor.jax.offload_check import check_lowered
    from xladoctor.report.check_json import file_entry
    from xladoctor.route.dispatch import check_path
    from xladoctor.route.folder import expand
    from xladoctor.route.hlo_text import check_hlo
    from xladoctor.route.module_analysis import analyse_module
    from xladoctor.route.options import Options
    from xladoctor.syntax.hlo_parser import parse_module

    try:
        lowered = prog.lower()
        hlo, mlir = lowered.as_text("hlo"), lowered.as_text()
    except Exception as e:  # jax refuses the combination: not a host-offload question
        return ProgramRecord(prog.name, prog.family, "refused", choices=prog.choices,
                             refused=f"{type(e).__name__}: {str(e).strip().splitlines()[0][:120] if str(e) else ''}")
    verdict = worker.compile_stablehlo(mlir)
    rec = ProgramRecord(prog.name, prog.family, verdict.summary()[:120], choices=prog.choices)
    program = lower_program(lowered)
    rec.module = program.module
    report = check_lowered(program)
    rec.routes["check_offload"] = _judge(prediction_of(report.result, program.module), verdict, program.module,
                                         report.result)
    module = parse_module(hlo, prog.name)
    mc = analyse_module(module, hlo, "x.hlo", stablehlo=mlir)
    rec.routes["offload_pair"] = _judge(prediction_of(mc.result, module), verdict, module, mc.result)
    stem = re.sub(r"\W", "_", prog.name)
    sub = tempfile.mkdtemp(dir=folder)
    with open(os.path.join(sub, stem + ".hlo"), "w") as f:
        f.write(hlo)
    with open(os.path.join(sub, stem + ".mlir"), "w") as f:
        f.write(mlir)
    opts = Options()
    entries = [file_entry(check_path(it.path, it.explicit, opts, it.stablehlo)) for it in expand([sub])
               if it.status == "file"]
    pred = _entry_prediction(entries[0], module) if len(entries) == 1 else Prediction("xla_error", message="files")
    rec.routes["check_pair"] = _judge(pred or Prediction("undecidable"), verdict)
    if rec.routes["check_pair"].predicted == rec.routes["offload_pair"].predicted:  # same prediction: same name
        rec.routes["check_pair"] = rec.routes["offload_pair"]
    bare = file_entry(check_hlo(hlo, stem + ".hlo"))
    pred = _entry_prediction(bare, module)
    rec.routes["check_bare"] = RouteResult("undecidable", "undecidable") if pred is None else _judge(pred, verdict)
    return rec


def summarise(records: list[ProgramRecord]) -> dict[str, Any]:
    """Counts per family and per route, and every divergence class with an example."""
    decided = [r for r in records if r.actual != "refused"]
    per_route = {rt: dict(Counter(r.routes[rt].status for r in decided)) for rt in ROUTES}
    per_family: dict[str, dict[str, Any]] = defaultdict(lambda: {"programs": 0, "refused": 0,
                                                                 **{rt: 0 for rt in ROUTES}, "undecidable": 0})
    classes: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        fam = per_family[r.family]
        fam["programs"] += 1
        if r.actual == "refused":
            fam["refused"] += 1
            continue
        for rt in ROUTES:
            res = r.routes[rt]
            fam[rt] += res.status in ("agree", "undecidable") if rt == "check_bare" else res.status == "agree"
            if rt == "check_bare" and res.status == "undecidable":
                fam["undecidable"] += 1
            if res.status in ("disagree", "divergence"):
                c = classes.setdefault((rt, res.divergence_class), {"route": rt, "class": res.divergence_class,
                                                                     "count": 0, "example": r.name,
                                                                     "choices": r.choices, "actual": r.actual,
                                                                     "predicted": res.predicted})
                c["count"] += 1
    return {"programs": len(records), "decided": len(decided),
            "refused": dict(Counter(r.refused[:80] for r in records if r.actual == "refused")),
            "per_route": per_route, "per_family": dict(per_family),
            "classes": sorted(classes.values(), key=lambda c: (-c["count"], c["route"]))}
