"""The operand list of an instruction with many operands, indexed for O(1) use replacement.

A ROOT tuple returning one value thousands of times (a pytree whose leaves share an offloaded
activation) has each use replaced by its slot, not by copying the whole tuple: see
:meth:`HloInstruction.replace_operand <xladoctor.ir.instruction.HloInstruction.replace_operand>`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .instruction import HloInstruction


class WideOperands:
    """The operands of an instruction with many, as a list plus an index operand -> slots, made
    when a use of one is first replaced or its slots are first asked for (``operand_indices``,
    which the walks ask of a wide user once per operand): each :meth:`HloInstruction.replace_all_uses_with` then
    rewrites its slots in O(1) instead of copying the whole tuple (removing 10,000 ``Sharding``
    markers in front of one ROOT tuple was 10,000 copies of it).  The instruction holds this in
    place of its operand tuple (one field, not two, on every instruction); the tuple
    ``operands`` gives is rebuilt from the list once, when next read (:meth:`as_tuple`)."""

    __slots__ = ("items", "slots", "_tuple")

    def __init__(self, operands: tuple[HloInstruction, ...]):
        self.items = list(operands)
        self.slots: dict[HloInstruction, dict[int, None]] = {}
        """Operand -> its slots, an ordered set (one slot leaves in O(1): :meth:`HloInstruction.replace_operand`)."""
        for k, op in enumerate(operands):
            self.slots.setdefault(op, {})[k] = None
        self._tuple: tuple[HloInstruction, ...] | None = operands

    def as_tuple(self) -> tuple[HloInstruction, ...]:
        """The operands as a tuple: the one last made, or a new one after a change."""
        ops = self._tuple
        if ops is None:
            ops = self._tuple = tuple(self.items)
        return ops

    def changed(self) -> None:
        """A slot was written: the next :meth:`as_tuple` rebuilds the tuple."""
        self._tuple = None


WIDE: Final = 16
"""Operand count above which replacing uses goes through :class:`WideOperands`."""


def operands_of(instr: HloInstruction) -> tuple[HloInstruction, ...]:
    """``instr.operands`` read from its store by a function, not the property: the stored tuple (two
    or more), a wide list's tuple, or the one operand kept bare, in a tuple.  For the passes' hot
    reads: a property read cost ~1,000 instructions more than a call (pure Python, branch h52p)."""
    ops = instr._operands
    if type(ops) is tuple:
        return ops
    return ops.as_tuple() if type(ops) is WideOperands else (ops,)  # type: ignore[return-value]


def first_operand(instr: HloInstruction) -> HloInstruction:
    """``instr.operands[0]`` of a one-operand instruction (a broadcast's, a reshape's, a transpose's),
    kept bare in the store, read without the property's call; any other through the property."""
    ops = instr._operands
    if type(ops) is tuple or type(ops) is WideOperands:
        return instr.operands[0]
    return ops  # type: ignore[return-value]
