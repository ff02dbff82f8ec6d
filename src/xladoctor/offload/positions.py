"""Position: one buffer of an instruction, as XLA's ``InstructionAndShapeIndex``.

HostOffloader tracks where host memory flows at the granularity of (instruction,
shape index) pairs: a tuple-shaped value can be half on host and half on device.
Instructions compare by identity, so a Position is hashable and can key the walk's
visited sets and predecessor map.
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction
from ..ir.shape import Shape, ShapeIndex, format_shape_index
from ..ir.value import FrozenValue


class Position(FrozenValue):
    """``(instruction, shape_index)``; ``str()`` is XLA's ``ToString`` spelling.  Written out, not a
    generated class (:mod:`..ir.value`: start-up, issue 36), compared and hashed as the frozen
    dataclass it was."""

    _FIELDS = ("instruction", "shape_index")

    instruction: HloInstruction
    shape_index: ShapeIndex

    def __init__(self, instruction: HloInstruction, shape_index: ShapeIndex = ()) -> None:
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "shape_index", shape_index)

    # Written out: positions are set members and dict keys of the walks; FrozenValue's generic
    # ones are twice as slow.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.instruction, self.shape_index) == (other.instruction, other.shape_index)

    def __hash__(self) -> int:
        return hash((self.instruction, self.shape_index))

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
