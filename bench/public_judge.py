"""Judge bench/public_programs.py: libtpu compile-only against xladoctor by every route (issue 34).

For each program: lower it for TPU; compile its StableHLO with the real compiler (libtpu
compile-only, v5e:2x2); ask xladoctor by the Python API (``check_offload``), by the CLI
``offload FILE.hlo --stablehlo FILE.mlir --json`` and by ``check DIR --json`` over a folder of
all the pairs.  A program is *rejected* when the compiler gives E1200, another error or aborts;
ours *rejects* when the outcome is ``E1200`` or ``failure``.  Agree / false alarm (we reject, it
compiles) / silent miss (it is rejected, we say ``ok``, with or without a warning).

    python bench/public_judge.py --out /tmp/public.json [--only NAME ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

REJECTS = {"e1200", "xla_error", "crash"}


def _cli(argv: list[str]) -> tuple[int, Any]:
    from xladoctor.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(argv)
    try:
        return rc, json.loads(out.getvalue())
    except ValueError:
        return rc, out.getvalue()[-500:]


def _api(prog: Any) -> dict[str, Any]:
    from xladoctor.jax import check_offload

    try:
        rep = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
    except Exception as e:
        return {"outcome": "error", "error": f"{type(e).__name__}: {e}"[:400]}
    return {"outcome": rep.outcome, "warnings": len(rep.result.warnings) if rep.result else 0,
            "failures": [f[:200] for f in rep.failures]}


def _cli_outcome(doc: Any) -> str:
    if not isinstance(doc, dict):
        return "error"
    details = doc.get("details") or {}  # an offload document's analysis (schema version 2)
    if details.get("failures"):
        return "failure"
    return str(details.get("outcome") or doc.get("result", {}).get("outcome") or "?")


def judge(names: list[str] | None, folder: str) -> list[dict[str, Any]]:
    import public_programs as pp

    from xladoctor.oracle import OracleWorker

    rows = []
    with OracleWorker("v5e:2x2", timeout=180, want_text=False) as worker:
        for name in names or list(pp.NAMES):
            prog = pp.build(name)
            row: dict[str, Any] = {"name": name, "source": prog.source}
            try:
                lowered = prog.lower()
            except Exception as e:
                row.update(compiler="trace_error", error=f"{type(e).__name__}: {e}"[:400])
                rows.append(row)
                continue
            v = worker.compile_stablehlo(lowered.as_text())
            row["compiler"] = v.kind
            row["compiler_message"] = (v.check_line or v.message or "")[:400]
            row["api"] = _api(prog)
            hlo, mlir = os.path.join(folder, name + ".hlo"), os.path.join(folder, name + ".mlir")
            with open(hlo, "w") as f:
                f.write(lowered.as_text("hlo"))
            with open(mlir, "w") as f:
                f.write(lowered.as_text())
            rc, doc = _cli(["offload", hlo, "--stablehlo", mlir, "--json"])
            row["cli"] = {"rc": rc, "outcome": _cli_outcome(doc)}
            rows.append(row)
            print(json.dumps({k: row[k] for k in ("name", "compiler")} | {"api": row["api"]["outcome"]}),
                  file=sys.stderr, flush=True)
    rc, doc = _cli(["check", folder, "--json"])
    by_file = {}
    if isinstance(doc, dict):  # one entry per .hlo file, its offload verdict under "offload"
        for entry in doc.get("files", []):
            if entry.get("kind") == "hlo" and isinstance(entry.get("offload"), dict):
                by_file[os.path.basename(entry["path"]).rsplit(".", 1)[0]] = entry["offload"]
    for row in rows:
        if "api" in row:
            entry = by_file.get(row["name"])
            row["check_dir"] = None if entry is None else _cli_outcome(entry)
    return rows


def classify(row: dict[str, Any]) -> str:
    if row["compiler"] not in REJECTS | {"compiles"}:
        return "not_judged"
    rejected = row["compiler"] in REJECTS
    ours = row["api"]["outcome"] in ("E1200", "failure")
    routes = {row["api"]["outcome"], row["cli"]["outcome"], row.get("check_dir")}
    if len(routes) > 1:
        return "routes_disagree"
    if rejected == ours:
        return "agree"
    return "false_alarm" if ours else "silent_miss"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="public-judge-") as folder:
        rows = judge(a.only, folder)
    for row in rows:
        row["verdict"] = classify(row)
    with open(a.out, "w") as f:
        json.dump(rows, f, indent=1)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
