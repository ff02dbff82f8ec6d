"""``xladoctor hlo FILE``: what an HLO module holds, at a glance or as JSON."""

from __future__ import annotations

import argparse
from typing import Any

from ..escape import escape_field
from ..files import located
from ..hlo_summary import summarize
from ..ir.shape import HOST_MEMORY_SPACE
from ..syntax.hlo_parser import parse_module
from ..units import bytes_text
from ._common import print_json, read_input

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


def _host_mark(entry: dict[str, Any], is_tuple: bool) -> str:
    """``[host]`` for an array in host memory; for a tuple, which of its leaves are."""
    hosts = entry.get("host_leaves") or []
    if not hosts:
        return ""
    if not is_tuple:
        return "  [host]"
    return "  [host: " + ", ".join("{" + ",".join(map(str, i)) + "}" for i in hosts) + "]"


def render_text(s: dict[str, Any]) -> str:
    ecl = s["entry_computation_layout"]
    lines = [f"module          {s['name']}",
             f"computations    {len(s['computations'])} (entry: {s['entry']})",
             f"instructions    {s['instruction_count']:,}",
             "entry computation layout" + ("" if ecl["explicit"] else " (derived: the module does not print one)") + ":"]
    for p in ecl["parameters"]:
        name = f" {p['op_name']!r}" if "op_name" in p else ""
        host = _host_mark(p, p["shape"].startswith("("))
        lines.append(f"  param {p['index']:<4} {p['shape']}{name}")
        lines.append(f"             logical {bytes_text(p['logical_bytes'])}, physical {bytes_text(p['physical_bytes'])}{host}")
    r = ecl["result"]
    host = _host_mark(r, r["shape"].startswith("("))
    lines.append(f"  result     {r['shape']}")
    lines.append(f"             logical {bytes_text(r['logical_bytes'])}, physical {bytes_text(r['physical_bytes'])}{host}")
    lines.append("opcodes         " + ", ".join(f"{k} {v}" for k, v in list(s["opcode_counts"].items())[:20])
                 + (" ..." if len(s["opcode_counts"]) > 20 else ""))
    if s["custom_calls"]:
        lines.append("custom calls    " + ", ".join(f"{escape_field(k)} {v}" for k, v in s["custom_calls"].items()))
    if s["memory_spaces"]:
        lines.append("memory spaces   " + ", ".join(
            f"S({k}){' host' if int(k) == HOST_MEMORY_SPACE else ''}: {v} instruction leaves"
            for k, v in s["memory_spaces"].items()))
    return "\n".join(lines)
