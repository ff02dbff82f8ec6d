"""Position: one buffer of an instruction, as XLA's ``InstructionAndShapeIndex``.

HostOffloader tracks where host memory flows at the granularity of (instruction,
shape index) pairs: a tuple-shaped value can be half on host and half on device.
Instructions compare by identity, so a Position is hashable and can key the walk's
visited sets and predecessor map.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.instruction import HloInstruction
from ..ir.shape import Shape, ShapeIndex, format_shape_index


@dataclass(frozen=True)
class Position:
    """``(instruction, shape_index)``; ``str()`` is XLA's ``ToString`` spelling."""

    instruction: HloInstruction
    shape_index: ShapeIndex = ()

    @property
    def name(self) -> str:
        return self.instruction.name

    @property
    def subshape(self) -> Shape:
        return self.instruction.shape.subshape(self.shape_index)

    def __str__(self) -> str:
        return f"{{Instr: {self.instruction.name}, ShapeIndex: {format_shape_index(self.shape_index)}}}"

    def __repr__(self) -> str:
        return f"Position({self.instruction.name}, {format_shape_index(self.shape_index)})"
