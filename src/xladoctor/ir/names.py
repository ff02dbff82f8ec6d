"""Instruction names: the module's one map from name to instruction.

XLA requires instruction names to be unique module-wide.  :class:`NameTable` maps each live
name to its instruction; the computations and the module keep it in step themselves when
instructions are added or removed (``HloComputation::AddInstruction`` / ``RemoveInstruction``),
so no pass registers names by hand.  New names come from the module's uniquer
(:mod:`.name_uniquer`, ``HloModule.unique_name``), which also remembers removed names.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from .instruction import HloInstruction
    from .instruction_names import InstructionNames


class NameTable:
    """Live instructions by name (what was given out and removed is the uniquer's business)."""

    __slots__ = ("_live", "uniquer")

    def __init__(self) -> None:
        self._live: dict[str, HloInstruction] = {}
        self.uniquer: InstructionNames | None = None
        """The module's instruction uniquer, which reads this table as the names it gave out
        (:class:`~.instruction_names.InstructionNames`): told of a name that leaves it (:meth:`remove`)."""

    def table(self) -> dict[str, HloInstruction]:
        """The map itself, for the module's uniquer (which enters a joining computation's names)."""
        return self._live

    def add(self, instr: HloInstruction) -> None:
        self._live[instr.name] = instr

    def add_all(self, instrs: list[HloInstruction]) -> None:
        """:meth:`add` of each of ``instrs`` in order (a computation joining the module)."""
        live = self._live
        for instr in instrs:
            live[instr.name] = instr

    def remove(self, instr: HloInstruction) -> bool:
        """Forget ``instr`` if its name still maps to it (whether it did)."""
        if self._live.get(instr.name) is instr:
            del self._live[instr.name]
            if self.uniquer is not None:  # still given out, unless the caller releases it
                self.uniquer.kept(instr.name)
            return True
        return False

    def remove_each(self, instrs: list[HloInstruction]) -> None:
        """:meth:`remove` of each of ``instrs`` in order, none released (a pass' batch of removals:
        HloCSE's ~1,000 a train step's run), without a call per instruction."""
        live, uniquer = self._live, self.uniquer
        for instr in instrs:
            name = instr.name
            if live.get(name) is instr:
                del live[name]
                if uniquer is not None:
                    uniquer.kept(name)

    def get(self, name: str) -> HloInstruction | None:
        return self._live.get(name)

    def __getitem__(self, name: str) -> HloInstruction:
        return self._live[name]

    def __contains__(self, name: object) -> bool:
        return name in self._live

    def __len__(self) -> int:
        return len(self._live)
