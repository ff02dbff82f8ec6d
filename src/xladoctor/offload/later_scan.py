"""One look at every instruction for the later-failure checks (:mod:`.later_failures`): the
instructions of the few opcodes they start from, in module order.

Why: each check walked every instruction of the module for its own opcode -- six walks, two of
them for while loops; on ``jax_entry`` at 100k instructions, none of which is of those opcodes,
that was most of the checks' time.  One loop reading each opcode once and testing it against a
frozenset (a ``str`` enum: its hash is cached) is the cheapest form measured, interpreted (3.5 ms
at 100k instructions; ``map`` of an attribute getter per computation with an ``isdisjoint``
test, before, 6.2 ms) and compiled (setup.py's core), where the opcode read is a field read."""

from __future__ import annotations

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import HloOpcode

Located = list[tuple[HloComputation, HloInstruction]]
"""(computation, instruction) of each instruction found, in module order."""
Found = dict[HloOpcode, Located]
"""Opcode -> :data:`Located` of each instruction of it."""


def instructions_of(module: HloModule, opcodes: frozenset[HloOpcode]) -> Found:
    """Every instruction of ``module`` whose opcode is one of ``opcodes``, by opcode, each with
    the computation it was found in, in the order of ``module.computations`` and their instructions."""
    found: Found = {op: [] for op in opcodes}
    for comp in module.computations:
        for instr in comp.instructions:
            op = instr.opcode
            if op in opcodes:
                found[op].append((comp, instr))
    return found
