"""``xladoctor hlo FILE``: what an HLO module holds, at a glance or as JSON."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from ..ir.module import HloModule
from ..ir.shape import HOST_MEMORY_SPACE, Shape
from ..ir.sizes import logical_bytes, physical_bytes
from ..labels import label
from ..report.escape import escape_field
from ..report.units import bytes_text
from ..syntax.hlo_parser import parse_module
from ._common import located, print_json, read_input

NAME = "hlo"
HELP = "summarise an HLO module: computations, opcodes, entry layout with sizes, custom calls, memory spaces"
ORDER = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="HLO text (dump file, as_text() output), or '-' for stdin")
    p.add_argument("--json", action="store_true", help="print JSON (see docs/json.md#hlo)")


def run(args: argparse.Namespace) -> int:
    text, source = read_input(args.file)
    module = parse_module(text, source)
    with located(text, source):
        summary = summarize(module)
    if args.json:
        print_json(summary)
    else:
        print(render_text(summary))
    return 0


def _sizes(shape: Shape) -> dict[str, Any]:
    indexed = [(i, s) for i, s in shape.leaves() if s.is_array]
    leaves = [s for _, s in indexed]
    return {
        "shape": str(shape),
        "logical_bytes": sum(logical_bytes(s) for s in leaves),
        "physical_bytes": sum(physical_bytes(s) for s in leaves),
        "memory_spaces": sorted({s.memory_space for s in leaves}),
        "host_leaves": [list(i) for i, s in indexed if s.memory_space == HOST_MEMORY_SPACE],
    }


def _host_mark(entry: dict[str, Any], is_tuple: bool) -> str:
    """``[host]`` for an array in host memory; for a tuple, which of its leaves are."""
    hosts = entry.get("host_leaves") or []
    if not hosts:
        return ""
    if not is_tuple:
        return "  " + label("hlo.host")
    return "  " + label("hlo.host_leaves", leaves=", ".join("{" + ",".join(map(str, i)) + "}" for i in hosts))


def summarize(module: HloModule) -> dict[str, Any]:
    """The JSON document for ``hlo --json`` (schema in docs/json.md)."""
    ecl = module.entry_computation_layout
    assert ecl is not None and module.entry is not None
    params = []
    for i, shape in enumerate(ecl.parameters):
        instr = module.entry.parameters[i]
        entry = {"index": i, "instruction": instr.name, **_sizes(shape)}
        md = instr.metadata
        if md is not None and md.op_name:
            entry["op_name"] = md.op_name
        params.append(entry)
    opcodes: Counter[str] = Counter()
    custom_calls: Counter[str] = Counter()
    spaces: Counter[int] = Counter()
    computations = []
    for comp in module.computations:
        instrs = []
        for instr in comp.instructions:
            opcodes[instr.opcode.value] += 1
            if instr.custom_call_target is not None:
                custom_calls[instr.custom_call_target] += 1
            for _, leaf in instr.shape.leaves():
                if leaf.is_array and leaf.memory_space:
                    spaces[leaf.memory_space] += 1
            item: dict[str, Any] = {"name": instr.name, "opcode": instr.opcode.value, "shape": str(instr.shape),
                                    "operands": [o.name for o in instr.operands], "line": instr.line}
            if instr.custom_call_target is not None:
                item["custom_call_target"] = instr.custom_call_target
            loc = instr.source_location()
            if loc is not None:
                item["source"] = {"file": loc.file, "line": loc.line}
            instrs.append(item)
        computations.append({"name": comp.name, "is_entry": comp.is_entry, "instructions": instrs,
                             "execution_thread": comp.execution_thread})
    return {
        "name": module.name,
        "entry": module.entry.name,
        "entry_computation_layout": {
            "text": str(ecl),
            "explicit": module.has_explicit_entry_layout,
            "parameters": params,
            "result": _sizes(ecl.result),
        },
        "instruction_count": module.instruction_count(),
        "opcode_counts": dict(opcodes.most_common()),
        "custom_calls": dict(custom_calls.most_common()),
        "memory_spaces": {str(k): v for k, v in sorted(spaces.items())},
        "computations": computations,
    }


def render_text(s: dict[str, Any]) -> str:
    """The ``hlo`` summary; words from ``labels/en.toml`` ``[hlo]`` (aligned in columns there)."""
    ecl = s["entry_computation_layout"]
    lines = [label("hlo.module", name=s["name"]),
             label("hlo.computations", n=len(s["computations"]), entry=s["entry"]),
             label("hlo.instructions", n=f"{s['instruction_count']:,}"),
             label("hlo.entry_layout" if ecl["explicit"] else "hlo.entry_layout_derived")]
    for p in ecl["parameters"]:
        name = f" {p['op_name']!r}" if "op_name" in p else ""
        lines.append("  " + label("hlo.param", index=f"{p['index']:<4}", shape=p["shape"], name=name))
        lines.append(_sizes_line(p))
    r = ecl["result"]
    lines.append("  " + label("hlo.result", shape=r["shape"]))
    lines.append(_sizes_line(r))
    lines.append(label("hlo.opcodes", counts=", ".join(f"{k} {v}" for k, v in list(s["opcode_counts"].items())[:20])
                       + (" ..." if len(s["opcode_counts"]) > 20 else "")))
    if s["custom_calls"]:
        lines.append(label("hlo.custom_calls",
                           counts=", ".join(f"{escape_field(k)} {v}" for k, v in s["custom_calls"].items())))
    if s["memory_spaces"]:
        lines.append(label("hlo.memory_spaces", counts=", ".join(
            label("hlo.memory_space_host" if int(k) == HOST_MEMORY_SPACE else "hlo.memory_space", space=k, n=v)
            for k, v in s["memory_spaces"].items())))
    return "\n".join(lines)


def _sizes_line(entry: dict[str, Any]) -> str:
    host = _host_mark(entry, entry["shape"].startswith("("))
    return " " * 13 + label("hlo.sizes", logical=bytes_text(entry["logical_bytes"]),
                            physical=bytes_text(entry["physical_bytes"])) + host
