"""XLA's own test modules (tests/data/xla_tests, written by bench/extract_xla_tests.py), judged by jaxlib.

:func:`modules` reads the corpus; :func:`jaxlib_views` asks jaxlib's parser about
every module in a child process (a CHECK failure in XLA kills the child: that
module is marked ``crashed`` and a fresh child goes on); :func:`judge` compares
xladoctor's parse with jaxlib's and names the outcome:

``same``            both accept, same structure (computations, instructions, opcodes,
                    operands, shapes, entry layout);
``both-refuse``     both refuse;
``we-refuse``       jaxlib accepts, xladoctor refuses;
``we-accept``       jaxlib refuses, xladoctor accepts;
``differ``          both accept with another structure;
``jaxlib-crashes``  jaxlib dies on it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "xla_tests"
MARKER = "//~~ xla-test-module "


@dataclass(frozen=True)
class XlaTestModule:
    where: str  # "xla/path/foo_test.cc:123"
    text: str


def modules() -> list[XlaTestModule]:
    out = []
    for path in sorted(CORPUS.glob("*.hlo.txt")):
        chunks = path.read_text(encoding="utf-8").split(MARKER)
        for chunk in chunks[1:]:
            where, _, text = chunk.partition("\n")
            out.append(XlaTestModule(where, text[:-1] if text.endswith("\n") else text))
    return out


_WORKER = r"""
import json, sys
sys.path.insert(0, {here!r})
import jaxlib_oracle as o
def _first_error(message):
    for line in message.splitlines():
        if "error: " in line:
            return line.split("was parsing ", 1)[-1][:300]
    return message.strip()[-300:]
for line in sys.stdin:
    text = json.loads(line)
    try:
        out = {{"status": "ok", "view": o.to_jsonable(o.oracle_module(text))}}
    except Exception as e:
        out = {{"status": "rejected", "message": _first_error(str(e))}}
    print(json.dumps(out), flush=True)
"""


def jaxlib_views(texts: list[str], timeout: float = 600) -> list[dict]:
    """jaxlib's answer per text: ``{"status": ok|rejected|crashed, "view"|"message": ...}``."""
    code = _WORKER.format(here=str(Path(__file__).resolve().parent))
    results: list[dict] = []
    pending = list(texts)
    while pending:
        proc = subprocess.run([sys.executable, "-c", code], input="".join(json.dumps(t) + "\n" for t in pending),
                              capture_output=True, text=True, timeout=timeout)
        answers = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
        results.extend(answers)
        pending = pending[len(answers):]
        if pending:
            if proc.returncode == 0:
                raise RuntimeError(f"jaxlib worker stopped early: {proc.stderr[-2000:]}")
            tail = [ln for ln in proc.stderr.splitlines() if "Check failed" in ln or ln[:1] == "F"]
            results.append({"status": "crashed", "message": (tail or [proc.stderr[-300:]])[-1]})
            pending = pending[1:]
    return results


def our_view(text: str) -> dict:
    """xladoctor's parse in the oracle's plain-dict form, or its refusal."""
    from jaxlib_oracle import OracleComputation, OracleInstruction, OracleModule, to_jsonable

    from xladoctor.errors import HloParseError
    from xladoctor.syntax.async_sugar import sugared_opcode
    from xladoctor.syntax.hlo_parser import parse_module
    try:
        m = parse_module(text, "t.hlo")
    except HloParseError as e:
        return {"status": "rejected", "message": str(e)}
    comps = tuple(OracleComputation(c.name, bool(c.is_entry), tuple(
        OracleInstruction(i.name, sugared_opcode(i), tuple(o.name for o in i.operands),
                          str(i.shape)) for i in c.instructions)) for c in m.computations)
    layout = m.entry_computation_layout
    view = to_jsonable(OracleModule(m.name, comps, "" if layout is None else str(layout)))
    return {"status": "ok", "view": json.loads(json.dumps(view))}


def judge(ours: dict, theirs: dict) -> str:
    if theirs["status"] == "crashed":
        return "jaxlib-crashes"
    if theirs["status"] == "ok":
        if ours["status"] != "ok":
            return "we-refuse"
        return "same" if ours["view"] == theirs["view"] else "differ"
    return "we-accept" if ours["status"] == "ok" else "both-refuse"
