"""XLA's own test modules (tests/data/xla_tests, written by bench/extract_xla_tests.py), judged by jaxlib.

:func:`modules` reads the corpus; :func:`jaxlib_views` asks jaxlib's parser about
every module in a child process (which forks for each run of modules: a CHECK
failure in XLA kills the fork, that module is marked ``crashed`` and a new fork
goes on); :func:`judge` compares
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
import json, os, sys
sys.path.insert(0, {here!r})
import jaxlib_oracle as o
def _first_error(message):
    for line in message.splitlines():
        if "error: " in line:
            return line.split("was parsing ", 1)[-1][:300]
    return message.strip()[-300:]
def answer(text):
    try:
        return {{"status": "ok", "view": o.to_jsonable(o.oracle_module(text))}}
    except Exception as e:
        return {{"status": "rejected", "message": _first_error(str(e))}}
texts = [json.loads(line) for line in sys.stdin]
done = 0
while done < len(texts):
    # jaxlib is imported once; each batch runs in a fork, so a CHECK failure costs a fork, not an import.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with os.fdopen(write, "w") as out:
            for text in texts[done:]:
                out.write(json.dumps(answer(text)) + "\n")
                out.flush()
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as got:
        answers = [line for line in got]
    _, status = os.waitpid(pid, 0)
    for line in answers:
        print(line, end="", flush=True)
    done += len(answers)
    if status != 0 and done < len(texts):
        print(json.dumps({{"status": "crashed", "message": "jaxlib died (CHECK failure)"}}), flush=True)
        done += 1
"""


def jaxlib_views(texts: list[str], timeout: float = 900) -> list[dict]:
    """jaxlib's answer per text: ``{"status": ok|rejected|crashed, "view"|"message": ...}``."""
    code = _WORKER.format(here=str(Path(__file__).resolve().parent))
    proc = subprocess.run([sys.executable, "-c", code], input="".join(json.dumps(t) + "\n" for t in texts),
                          capture_output=True, text=True, timeout=timeout)
    results = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    if len(results) != len(texts):
        raise RuntimeError(f"jaxlib worker answered {len(results)} of {len(texts)}: {proc.stderr[-2000:]}")
    return results


def our_view(text: str) -> dict:
    """xladoctor's parse in the oracle's plain-dict form, or its refusal."""
    from jaxlib_oracle import OracleComputation, OracleInstruction, OracleModule, to_jsonable
    from xladoctor.base.errors import HloParseError
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
