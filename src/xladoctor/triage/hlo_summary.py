"""What an HLO module holds: computations, opcodes, entry layout with byte sizes, custom calls,
memory spaces.  The ``hlo --json`` document, also each module's ``hlo`` entry in ``check --json``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import partial

from ..base.errors import UnboundedSizeError
from ..base.json_plain import Streamed
from ..ir.computation import HloComputation
from ..ir.module import HloModule
from ..ir.shape import HOST_MEMORY_SPACE, Shape
from ..ir.sizes import logical_bytes, physical_bytes

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any


def _sizes(shape: Shape) -> dict[str, Any]:
    indexed = [(i, s) for i, s in shape.leaves() if s.is_array]
    leaves = [s for _, s in indexed]
    try:
        logical: int | None = sum(logical_bytes(s) for s in leaves)
        physical: int | None = sum(physical_bytes(s) for s in leaves)
    except UnboundedSizeError:  # f32[?,784]: jaxlib reads it, it has no byte size (null, not a refusal)
        logical = physical = None
    return {
        "shape": str(shape),
        "logical_bytes": logical,
        "physical_bytes": physical,
        "memory_spaces": sorted({s.memory_space for s in leaves}),
        "host_leaves": [list(i) for i, s in indexed if s.memory_space == HOST_MEMORY_SPACE],
    }


def _entries(comp: HloComputation) -> Iterator[dict[str, Any]]:
    """Each instruction's entry in ``comp``'s ``instructions``, in order."""
    for instr in comp.instructions:
        item: dict[str, Any] = {"name": instr.name, "opcode": instr.opcode.value, "shape": str(instr.shape),
                                "operands": [o.name for o in instr.operands], "line": instr.line}
        if instr.custom_call_target is not None:
            item["custom_call_target"] = instr.custom_call_target
        loc = instr.source_location()
        if loc is not None:
            item["source"] = {"file": loc.file, "line": loc.line}
        yield item


def summarize(module: HloModule, streamed: bool = False) -> dict[str, Any]:
    """The JSON document for ``hlo --json`` (schema in docs/json.md).  ``streamed``: each
    computation's ``instructions`` is a :class:`~xladoctor.base.json_plain.Streamed` made from the
    module as it is written, not a list held beside it (``hlo``: the text shows none of them, and
    ``--json`` writes them one by one; held, they cost ~20x the module's text)."""
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
        for instr in comp.instructions:
            opcodes[instr.opcode.value] += 1
            if instr.custom_call_target is not None:
                custom_calls[instr.custom_call_target] += 1
            for _, leaf in instr.shape.leaves():
                if leaf.is_array and leaf.memory_space:
                    spaces[leaf.memory_space] += 1
        instrs: list[dict[str, Any]] | Streamed = (Streamed(partial(_entries, comp)) if streamed
                                                   else list(_entries(comp)))
        computations.append({"name": comp.name, "is_entry": comp.is_entry, "instructions": instrs,
                             "execution_thread": comp.execution_thread})
    summary: dict[str, Any] = {
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
    if module.layout_warnings:  # only when there are: every other module's summary stays as it was
        summary["layout_warnings"] = [{"rule": w.rule, "role": w.role, "line": w.line, "column": w.column,
                                       "instruction": w.instruction, "message": w.message}
                                      for w in module.layout_warnings]
    return summary
