"""What reading one computation body keeps (:class:`Body`), and its name scope: a dict of its own,
or the module's name table itself (the shared scope, issue 36 item 3).

XLA's parser keeps a scope per computation and gives the names out module-wide when the
computation joins the module.  Where each name would be given out unchanged
(:meth:`~xladoctor.ir.instruction_names.InstructionNames.take_live`), the reader gives it out and
enters it in the module's table as the line is read, in the same order, and that table is the
scope: on ``jax_entry`` the ENTRY's scope was a second dict of 63% of the module's names, and the
table grew again with the old one alive as the ENTRY joined, both at the parse's peak.  Other
computations' names there are out of scope (an operand, a control predecessor, a duplicate: what
the instruction's ``parent`` says).  Anything else leaves the table for a scope of the body's own
(:func:`leave`), with the same outcome as if it had had one from its first line: a name that is
taken or would be renamed, a line for the full reader (nested instructions, inline computations,
errors), a computation joining the module meanwhile (:mod:`.computation_reader` decides when).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from ..ir.computation import HloComputation
    from ..ir.instruction import HloInstruction
    from ..ir.module import HloModule


class Body:
    """What reading one computation body keeps: its names so far, its ROOT and parameters."""

    __slots__ = ("by_name", "params", "root", "shared")

    def __init__(self) -> None:
        self.by_name: dict[str, HloInstruction] = {}
        """The instructions defined so far by name: the operands' scope and the duplicate check
        (a set of the names beside it was 2 MB at the end of a 63k-instruction ENTRY).  While
        :attr:`shared`, the module's name table itself."""
        self.params: dict[int, tuple[HloInstruction, int]] = {}
        self.root: HloInstruction | None = None
        self.shared = False
        """Whether the body's names join the module's name table as they are read (:func:`share`)."""


def share(module: HloModule, body: Body) -> bool:
    """Make the module's name table ``body``'s scope where its uniquer can give names out as they
    are read (no full uniquer yet, no base table); whether it did."""
    if not module.instruction_names.can_take_live():
        return False
    body.by_name = module.names.table()
    body.shared = True
    return True


def leave(module: HloModule, comp: HloComputation, body: Body, pending: HloInstruction | None
          ) -> dict[str, HloInstruction]:
    """Leave the shared scope: ``comp``'s names so far out of the module's table and plain map
    again, into a scope of the body's own (returned), with ``pending`` (the last instruction
    added, not taken) in it."""
    instrs = comp.instructions[:-1] if pending is not None else comp.instructions
    module.instruction_names.untake_live(instrs)
    by_name = body.by_name = {instr.name: instr for instr in instrs}
    if pending is not None:
        by_name[pending.name] = pending
    body.shared = False
    return by_name
