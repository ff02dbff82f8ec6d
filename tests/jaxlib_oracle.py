"""jaxlib as the oracle: how real XLA reads (and prints back) HLO text.

What jaxlib's Python API offers (jaxlib 0.10.2, module ``jaxlib._hlo``):

* ``hlo_module_from_text(text) -> HloModule``; bad text raises ``RuntimeError``
  ("INVALID_ARGUMENT: Syntax error ..."), some bad layouts abort the process with
  a CHECK failure instead (e.g. ``f32[2,3]{1,0:L(0)}``: "Check failed: value >= 1").
* ``HloModule``: ``.name`` (property), ``.computations()`` (list, text order,
  entry included), ``.to_string(HloPrintOptions)``; no accessor for the entry
  computation or the entry computation layout.
* ``HloComputation``: ``.name``, ``.instructions()`` (list, text order); no
  ``is_entry``.
* ``HloInstruction``: ``.name``, ``.opcode`` (``HloOpcode`` enum, e.g.
  ``HloOpcode.kGetTupleElement``), ``.operands()``, ``.users()``,
  ``.to_string()``; no shape accessor.

So the parts the API lacks are read from jaxlib's own printed text, which is
still jaxlib's canonicalisation: the shape and opcode spelling come from
``instruction.to_string()`` (``%name = SHAPE opcode(...)``), ``is_entry`` and
``entry_computation_layout`` from ``module.to_string()``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _hlo_api():
    try:
        from jaxlib import _hlo  # jaxlib >= 0.8 layout

        return _hlo
    except ImportError:  # older jaxlib: the same API through xla_client
        from jax._src.lib import xla_client

        return xla_client._xla.hlo


def hlo_module_from_text(text: str):
    """jaxlib's HloModule for ``text``; ``RuntimeError`` if jaxlib rejects it."""
    return _hlo_api().hlo_module_from_text(text)


@dataclass(frozen=True)
class OracleInstruction:
    name: str
    opcode: str
    operands: tuple[str, ...]
    shape: str


@dataclass(frozen=True)
class OracleComputation:
    name: str
    is_entry: bool
    instructions: tuple[OracleInstruction, ...]


@dataclass(frozen=True)
class OracleModule:
    name: str
    computations: tuple[OracleComputation, ...]
    entry_computation_layout: str


def _balanced_end(text: str, start: int, open_ch: str, close_ch: str) -> int:
    """Index just past the bracket that closes ``text[start]`` (== ``open_ch``)."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced {open_ch!r} in {text[start:start + 80]!r}")


def split_instruction_text(line: str) -> tuple[str, str, str]:
    """``(name, shape, opcode)`` from jaxlib's ``%name = SHAPE opcode(...)`` line."""
    line = line.strip()
    if line.startswith("ROOT "):
        line = line[5:]
    eq = line.index(" = ")
    name = line[:eq].lstrip("%")
    pos = eq + 3
    end = _balanced_end(line, pos, "(", ")") if line[pos] == "(" else line.index(" ", pos)
    shape = line[pos:end]
    opcode_end = line.index("(", end)
    return name, shape, line[end:opcode_end].strip()


def _entry_name(module_text: str) -> str:
    m = re.search(r"^ENTRY %?([^\s(]+)", module_text, re.M)
    if not m:
        raise ValueError("jaxlib printed no ENTRY computation")
    return m.group(1)


def entry_computation_layout_text(module_text: str) -> str:
    """The ``{...}`` body of ``entry_computation_layout=`` in a module header."""
    header = module_text.split("\n", 1)[0]
    key = "entry_computation_layout="
    at = header.index(key) + len(key)
    end = _balanced_end(header, at, "{", "}")
    return header[at + 1 : end - 1]


def oracle_module(text: str) -> OracleModule:
    """Normalised view of how jaxlib reads ``text`` (raises RuntimeError on rejection)."""
    module = hlo_module_from_text(text)
    printed = module.to_string()
    entry = _entry_name(printed)
    comps = []
    for comp in module.computations():
        instrs = []
        for instr in comp.instructions():
            name, shape, opcode = split_instruction_text(instr.to_string())
            if name != instr.name:
                raise AssertionError(f"oracle text split wrong: {name!r} vs {instr.name!r}")
            instrs.append(
                OracleInstruction(
                    name=instr.name,
                    opcode=opcode,
                    operands=tuple(o.name for o in instr.operands()),
                    shape=shape,
                )
            )
        comps.append(OracleComputation(comp.name, comp.name == entry, tuple(instrs)))
    return OracleModule(module.name, tuple(comps), entry_computation_layout_text(printed))


# ------------------------------------------------------------------ shapes

_SHAPE_MODULE = "HloModule m\n\nENTRY e {\n  ROOT p = %s parameter(0)\n}\n"


def jaxlib_canonical_shape(shape_text: str) -> str:
    """How jaxlib prints ``shape_text`` back, read as the shape of a parameter.

    In-process: only for inputs known not to trip a CHECK in XLA.  Use
    :func:`jaxlib_canonical_shapes_isolated` for anything doubtful.
    """
    module = hlo_module_from_text(_SHAPE_MODULE % shape_text)
    (comp,) = module.computations()
    (param,) = comp.instructions()
    return split_instruction_text(param.to_string())[1]


@dataclass(frozen=True)
class ShapeVerdict:
    """jaxlib's answer for one shape: ``ok`` (printed), ``rejected`` or ``crashed``.

    ``validated``: whether jaxlib also accepts the shape as the element of a
    tuple.  That path validates layouts (out-of-range ``minor_to_major``, empty
    tiles, ``#(s32)``, dense layouts with ``#(..)``/``*(..)``, overflowing sizes
    are refused there), while a plain array parameter is taken as written.
    """

    status: str
    printed: str | None = None
    message: str | None = None
    validated: bool | None = None


_WORKER = r"""
import json, sys
sys.path.insert(0, {here!r})
import jaxlib_oracle as o
for line in sys.stdin:
    s = json.loads(line)
    try:
        out = {{"status": "ok", "printed": o.jaxlib_canonical_shape(s)}}
    except Exception as e:
        out = {{"status": "rejected", "message": str(e).strip().splitlines()[-3:]}}
    print(json.dumps(out), flush=True)
"""


def jaxlib_canonical_shapes_isolated(shapes: list[str], timeout: float = 120) -> dict[str, ShapeVerdict]:
    """Ask jaxlib about each shape (alone and as a 1-tuple) in a child process.

    A CHECK failure kills the child; the shape being read is then marked
    ``crashed`` and a fresh child continues with the rest.
    """
    plain = _ask_jaxlib([*dict.fromkeys(shapes)], timeout)
    wrapped = _ask_jaxlib([f"({s})" for s in plain if plain[s].status == "ok"], timeout)
    out = {}
    for s, v in plain.items():
        if v.status == "ok":
            v = ShapeVerdict(v.status, v.printed, v.message, wrapped[f"({s})"].status == "ok")
        out[s] = v
    return out


def _ask_jaxlib(shapes: list[str], timeout: float) -> dict[str, ShapeVerdict]:
    results: dict[str, ShapeVerdict] = {}
    pending = list(shapes)
    code = _WORKER.format(here=str(Path(__file__).resolve().parent))
    while pending:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            input="".join(json.dumps(s) + "\n" for s in pending),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        answers = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
        for shape, ans in zip(pending, answers):
            msg = ans.get("message")
            results[shape] = ShapeVerdict(
                ans["status"], ans.get("printed"), " | ".join(msg) if isinstance(msg, list) else msg
            )
        pending = pending[len(answers) :]
        if pending:  # the child died on pending[0]
            if proc.returncode == 0:
                raise RuntimeError(f"oracle worker stopped early: {proc.stderr[-2000:]}")
            tail = [ln for ln in proc.stderr.splitlines() if "Check failed" in ln or "F0" in ln[:3]]
            results[pending[0]] = ShapeVerdict("crashed", message=(tail or [proc.stderr[-300:]])[-1])
            pending = pending[1:]
    return results


def to_jsonable(module: OracleModule) -> dict[str, Any]:
    """Plain-dict form, handy when printing a diff."""
    return {
        "name": module.name,
        "entry_computation_layout": module.entry_computation_layout,
        "computations": [
            {
                "name": c.name,
                "is_entry": c.is_entry,
                "instructions": [vars(i) for i in c.instructions],
            }
            for c in module.computations
        ],
    }


def jaxlib_accepts(text: str) -> bool:
    """Whether jaxlib's HLO parser takes ``text`` (its refusals come back as RuntimeError)."""
    try:
        hlo_module_from_text(text)
    except RuntimeError:
        return False
    return True
