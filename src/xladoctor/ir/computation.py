"""HloComputation: an ordered list of instructions with a root and numbered parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .instruction import HloInstruction
from .opcodes import HloOpcode
from .shape import Shape

if TYPE_CHECKING:
    from .module import HloModule


class HloComputation:
    """A computation.  ``instructions`` keeps text order (for scheduled modules: the schedule).

    ``callers`` lists the instructions that call this computation (``call``,
    ``while``, ``fusion``, ``to_apply`` users, ...); the module fills it after all
    names are resolved.
    """

    __slots__ = ("name", "instructions", "root", "parameters", "is_entry", "module", "callers",
                 "execution_thread", "line", "signature", "_by_name", "__weakref__")

    def __init__(self, name: str, is_entry: bool = False):
        self.name = name
        self.instructions: list[HloInstruction] = []
        self.root: HloInstruction | None = None
        self.parameters: list[HloInstruction] = []
        """Indexed by parameter number."""
        self.is_entry = is_entry
        self.module: HloModule | None = None
        self.callers: list[HloInstruction] = []
        self.execution_thread: str | None = None
        """``execution_thread="host"`` printed after the closing brace, if any."""
        self.line = 0
        """1-based line of the computation header in the HLO text."""
        self.signature: tuple[list[tuple[str, Shape]], Shape] | None = None
        """``(p: shape, ...) -> shape`` as written in the header, when it was."""
        self._by_name: dict[str, HloInstruction] = {}

    def add_instruction(self, instr: HloInstruction, index_parameter: bool = True) -> HloInstruction:
        """Append ``instr``; a parameter is also put at its number in ``parameters`` unless the
        caller (the parser, which checks numbering first) fills ``parameters`` itself."""
        instr.parent = self
        self.instructions.append(instr)
        self._by_name[instr.name] = instr
        if index_parameter and instr.opcode is HloOpcode.PARAMETER and instr.parameter_number is not None:
            n = instr.parameter_number
            while len(self.parameters) <= n:
                self.parameters.append(None)  # type: ignore[arg-type]
            self.parameters[n] = instr
        return instr

    def insert_before(self, anchor: HloInstruction, instr: HloInstruction) -> HloInstruction:
        """Insert a new instruction just before ``anchor`` in text order (for rewrites)."""
        instr.parent = self
        self.instructions.insert(self.instructions.index(anchor), instr)
        self._by_name[instr.name] = instr
        return instr

    def remove_instruction(self, instr: HloInstruction) -> None:
        """Remove an instruction that nothing uses any more (raises otherwise)."""
        if instr.users:
            raise ValueError(f"cannot remove {instr.name}: still used by {[u.name for u in instr.users]}")
        if self.root is instr:
            raise ValueError(f"cannot remove {instr.name}: it is the root of {self.name}")
        instr.operands = ()
        self.instructions.remove(instr)
        self._by_name.pop(instr.name, None)
        instr.parent = None

    def instruction(self, name: str) -> HloInstruction:
        return self._by_name[name]

    def get(self, name: str) -> HloInstruction | None:
        return self._by_name.get(name)

    def parameter(self, number: int) -> HloInstruction:
        return self.parameters[number]

    @property
    def program_shape(self) -> tuple[list[Shape], Shape]:
        """Parameter shapes by number and the root shape (what the entry layout defaults to)."""
        assert self.root is not None
        return [p.shape for p in self.parameters], self.root.shape

    def post_order(self) -> list[HloInstruction]:
        """Operands before users (iterative DFS, deterministic), like XLA's MakeInstructionPostOrder.

        Control predecessors count as operands.  Instructions unreachable from the root
        are included too, each after its own operands.
        """
        order: list[HloInstruction] = []
        visited: set[int] = set()
        for start in self.instructions:
            if id(start) in visited:
                continue
            stack: list[tuple[HloInstruction, Iterator[HloInstruction]]] = [(start, iter(_deps(start)))]
            visited.add(id(start))
            while stack:
                node, it = stack[-1]
                for dep in it:
                    if id(dep) not in visited and dep.parent is self:
                        visited.add(id(dep))
                        stack.append((dep, iter(_deps(dep))))
                        break
                else:
                    stack.pop()
                    order.append(node)
        return order

    def __repr__(self) -> str:
        return f"<HloComputation {'ENTRY ' if self.is_entry else ''}{self.name} ({len(self.instructions)} instructions)>"


def _deps(instr: HloInstruction) -> list[HloInstruction]:
    return [*instr.operands, *instr.control_predecessors]
