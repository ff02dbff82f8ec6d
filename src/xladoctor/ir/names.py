"""Instruction names: the module's one name table, and fresh names for rewrites.

XLA requires instruction names to be unique module-wide, and names what passes add
``base.N``.  :class:`NameTable` is the one map from name to instruction; the
computations and the module keep it in step themselves when instructions are added
or removed (``HloComputation::AddInstruction`` / ``RemoveInstruction``), so no pass
registers names by hand.  Counters per base make each new name O(1) amortised, so a
rewrite that adds thousands of copies stays linear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .instruction import HloInstruction
    from .module import HloModule


class NameTable:
    """Live instructions by name, plus names still reserved after their instruction was removed.

    A removed instruction's name stays reserved for :meth:`unique` (XLA's module
    ``NameUniquer`` never gives a name back) unless the removal released it (an
    inlined ``call``, a dropped computation: what the pre-passes replace wholesale).
    """

    __slots__ = ("_live", "_reserved", "_next_suffix")

    def __init__(self) -> None:
        self._live: dict[str, HloInstruction] = {}
        self._reserved: set[str] = set()
        self._next_suffix: dict[str, int] = {}

    def fresh_copy(self) -> NameTable:
        """An empty table that continues this one's name counters (for a copy of the module)."""
        new = NameTable()
        new._next_suffix = dict(self._next_suffix)
        return new

    def add(self, instr: HloInstruction) -> None:
        self._live[instr.name] = instr

    def remove(self, instr: HloInstruction, release: bool = False) -> None:
        """Forget ``instr`` (if its name still maps to it); its name stays reserved unless ``release``."""
        if self._live.get(instr.name) is instr:
            del self._live[instr.name]
            if not release:
                self._reserved.add(instr.name)

    def reserve(self, names: Iterable[str]) -> None:
        """Names taken without a live instruction: a copy's left-out dead code, as if its
        instructions had been copied and then removed (:meth:`remove`)."""
        self._reserved.update(names)

    def get(self, name: str) -> HloInstruction | None:
        return self._live.get(name)

    def __getitem__(self, name: str) -> HloInstruction:
        return self._live[name]

    def __contains__(self, name: object) -> bool:
        return name in self._live

    def __len__(self) -> int:
        return len(self._live)

    def unique(self, base: str) -> str:
        """A new name like XLA's NameUniquer would give (``base``, ``base.1``, ...)."""
        if base not in self._live and base not in self._reserved:
            return base
        i = self._next_suffix.get(base, 1)  # remembered, so many names on one base stay O(1) each
        while f"{base}.{i}" in self._live or f"{base}.{i}" in self._reserved:
            i += 1
        self._next_suffix[base] = i + 1
        return f"{base}.{i}"


class NameUniquer:
    """One pass' fresh names: ``base.1``, ``base.2``, ... never live in ``module`` or handed out before.

    The pass' names start from the module as the compiler sees it (re-read, so
    removed instructions never existed): only live names and this uniquer's own are taken.
    """

    def __init__(self, module: HloModule):
        self.table = module.names
        self.handed_out: set[str] = set()
        self.counters: dict[str, int] = {}

    def new(self, base: str) -> str:
        n = self.counters.get(base, 0)
        while True:
            n += 1
            name = f"{base}.{n}"
            if name not in self.table and name not in self.handed_out:
                break
        self.counters[base] = n
        self.handed_out.add(name)
        return name
