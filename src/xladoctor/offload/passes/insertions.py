"""Instructions a pass inserts "before ``anchor``", placed in one sweep at the end of the pass.

``HloComputation.insert_before`` finds the anchor with ``list.index``: a scan of the computation
per new instruction, quadratic where a pass rewrites many instructions of a large computation
(AlgebraicSimplifier folding a train step's divisions, ReshapeMover sinking its reshapes: ~490
insertions into a 4,000-instruction entry, issue 36).  A pass that does not read the
computation's instruction list while it rewrites can record the insertions here instead:
:meth:`Insertions.insert_before` makes the instruction the computation's at once (parent, name
table, call graph: what ``insert_before`` does besides placing it), and :meth:`Insertions.place`
puts every recorded instruction where ``insert_before`` would have, in one pass over the list.
"""

from __future__ import annotations

from ...ir.computation import HloComputation, listed_without
from ...ir.instruction import HloInstruction

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_NOTHING: Final[frozenset[HloInstruction]] = frozenset()


class Insertions:
    """``insert_before`` for one computation, placed later by :meth:`place`."""

    def __init__(self, comp: HloComputation):
        self.comp = comp
        self.module = comp.module
        self._before: dict[HloInstruction, list[HloInstruction]] = {}
        """Anchor already in the list -> what goes just before it, in list order."""
        self._anchor_of: dict[HloInstruction, HloInstruction] = {}
        """Each recorded instruction -> the listed anchor its group is placed before."""

    def insert_before(self, anchor: HloInstruction, instr: HloInstruction) -> HloInstruction:
        """What ``comp.insert_before(anchor, instr)`` does, except the placing in the list.

        ``anchor`` may itself be a recorded instruction: ``instr`` then goes right before it
        in its group, as the list would have it."""
        self.comp.adopt(instr)
        listed = self._anchor_of.get(anchor)
        if listed is None:
            self._before.setdefault(anchor, []).append(instr)
            self._anchor_of[instr] = anchor
        else:
            group = self._before[listed]
            group.insert(group.index(anchor), instr)
            self._anchor_of[instr] = listed
        return instr

    def inserted(self) -> list[HloInstruction]:
        """The instructions recorded and not yet placed (grouped by anchor)."""
        return [instr for group in self._before.values() for instr in group]

    def place(self, removed: set[HloInstruction] | None = None) -> None:
        """Put the recorded instructions into the list (each group before its anchor); then
        the list is what ``insert_before`` one at a time would have made.

        ``removed``: instructions the pass unhooked, left out of the list here rather than by a
        sweep of their own (:meth:`~...ir.computation.HloComputation.drop_removed`); the caller
        then forgets them (``forget_removed``).  Only anchors are tested (ReshapeMover's removed
        are the candidates it rebuilt, each the anchor of its rebuild: one sweep a round, not two);
        where one was not an anchor, the list is swept for the rest."""
        if not self._before:
            if removed:
                self.comp.instructions = listed_without(self.comp.instructions, removed)
            return
        before = self._before
        placed: list[HloInstruction] = []
        groups = skipped = 0
        gone = removed or _NOTHING
        for instr in self.comp.instructions:
            group = before.get(instr)
            if group is not None:
                placed.extend(group)
                groups += 1
                if instr in gone:
                    skipped += 1
                    continue
            placed.append(instr)
        if removed and skipped != len(removed):  # a removed instruction that was no anchor (or not listed): the sweep
            placed = listed_without(placed, removed)
        if groups != len(before):  # insert_before's list.index would have raised at once
            missing = next(a for a in before if a not in set(self.comp.instructions))
            raise ValueError(f"{missing.name} is not in {self.comp.name}: nothing can go before it")
        # The list assigned, not spliced: every instruction listed is the computation's, and each
        # recorded one was adopted by :meth:`insert_before`, so splice's test of each (a Python
        # loop over the whole computation, per round of ReshapeMover and per AlgebraicSimplifier
        # run that rewrote: ~0.6% of a train step's analysis) would add none.
        self.comp.instructions = placed
        self._before = {}
        self._anchor_of = {}
