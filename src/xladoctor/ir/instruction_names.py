"""The module's instruction uniquer (:class:`InstructionNames`): XLA's ``NameUniquer`` kept as a
plain map while it cannot rename anything, the full :class:`~.name_uniquer.NameUniquer` layered
over that map from the first name it must rename.  Apart from :mod:`.name_uniquer` (the port of
XLA's class) because this is our economy, not XLA's behaviour: what it answers is what the port
would (tests/test_name_uniquer.py compares them on random runs)."""

from __future__ import annotations

from collections.abc import Mapping

from ..base.sized_sets import CHUNK, add_sized
from .name_uniquer import _TYPE_NAMES, NameUniquer, _LayeredUniquer, _split

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .instruction import HloInstruction
    from .names import NameTable

_COMPILED: Final = not __file__.endswith(".py")
"""Whether this module runs compiled (as ``instruction.COMPILED``, read here without importing the instruction)."""


class _PlainNames:
    """An :class:`InstructionNames`' plain map as the full uniquer takes it over: its own map,
    and each name live at that moment that is its own key (the live table is the map for those,
    issue 36 item 3).  The live names are copied as a set of the table's keys (a C-level copy;
    the walk that gave each to :meth:`NameUniquer.unique` was a third of CallInliner's time on
    a train step), so a name a pass puts in the table later without asking the uniquer is not
    taken (what :meth:`~.module.HloModule.lint` finds)."""

    __slots__ = ("seen", "live", "base", "unbased")

    def __init__(self, seen: dict[str, str], live: Mapping[str, object], base: Mapping[str, object],
                 unbased: set[str]) -> None:
        self.seen = seen
        self.live = set(live)
        self.base = base  # the copied module's names, taken but those released (InstructionNames.claim_all_of)
        self.unbased = unbased

    def get(self, key: str, /) -> str | None:
        name = self.seen.get(key)
        if name is None and (key in self.live or (key in self.base and key not in self.unbased)) and _own_key(key):
            return key
        return name


class InstructionNames:
    """The module's instruction uniquer, kept as a plain map while it cannot rename anything.

    A name maps to the (root, suffix) pair GetUniqueName files it under; while each name so far had
    a pair of its own and prints as its pair does (no ``__`` prefix, no type name, no suffix with a
    sign or a leading zero), :class:`NameUniquer` would have returned every one unchanged with every
    ``next_`` still 0.  So a map from each pair's key (the name itself; ``x`` for ``x.0``, which
    shares ``x``'s pair, unless ``x`` has a numeric suffix of its own: ``a.1.0`` is (a.1, 0), keyed
    as itself, and ``a.1`` is (a, 1)) is enough until the first other name; then the full uniquer
    is built from the names seen (in any order: all registrations were fresh) and takes over.  This keeps XLA's
    renaming to a few C-level checks an instruction on the usual module.

    A module's uniquer (``live``: its :class:`~.names.NameTable`) keeps no entry for a live name
    that is its own key: being live is being given out, so the name table is the map for those
    (issue 36 item 3: the two tables held the same 100k names, ~38 bytes each per instruction).
    Its own map then holds only the keys no live name stands for: names given out before their
    instruction joins, the names of removed instructions (not released: :meth:`kept`), keys that
    are not their name.  A name a pass puts in the table without asking is taken from then on.
    """

    __slots__ = ("_seen", "_full", "_live", "_base", "_unbased")

    def __init__(self, live: NameTable | None = None) -> None:
        self._seen: dict[str, str] = {}
        self._full: NameUniquer | None = None
        self._live: dict[str, HloInstruction] = {} if live is None else live.table()
        if live is not None:
            live.uniquer = self
        self._base: dict[str, HloInstruction] = _NO_BASE
        """Another module's live table whose names are all taken here but ``_unbased`` (:meth:`claim_all_of`)."""
        self._unbased: set[str] = set()

    def _has(self, key: str) -> bool:
        """Whether the plain map's ``key`` is taken: in its own map, or a live name that is its own
        key (here or in the base table, not released since)."""
        return key in self._seen or ((key in self._live or self._in_base(key)) and _own_key(key))

    def _in_base(self, name: str) -> bool:
        """Whether ``name`` is taken through the base table (:meth:`claim_all_of`): live there and
        not released here since."""
        return name in self._base and name not in self._unbased

    def claim_all_of(self, other: InstructionNames) -> bool:
        """Take every name live in ``other`` now (the module this uniquer's is a copy of) without a
        claim per name: its live table is read as taken names from here on, less those released
        here later.  Only where ``other`` gave out nothing but names that are their own keys (no
        entry of its own, no full uniquer) and this one is fresh; False otherwise (then claim them
        one by one).  Why: the offload analysis' copy leaves out ~95k of ``jax_entry``'s 100k
        instructions at 100k, whose names stay taken; entering each in a new map was most of the
        copy's time.  ``other``'s table must not change while this uniquer is in use."""
        if other._full is not None or other._seen or self._full is not None or self._seen or self._base:
            return False
        self._base = other._live
        return True

    def _take_plain(self, name: str) -> bool:
        """Give ``name`` out unchanged if the plain map can (its key free, no full uniquer yet):
        what :meth:`NameUniquer.unique` and ``unique_keeping_suffix`` then return."""
        if self._full is None:
            key = _plain_key(name)
            if key is not None and not self._has(key):
                self._seen[key] = name
                return True
        return False

    def unique(self, name: str) -> str:
        """:meth:`NameUniquer.unique`."""
        return name if self._take_plain(name) else self._uniquer().unique(name)

    def unique_each(self, names: list[str]) -> list[str]:
        """:meth:`unique` of each of ``names`` in order: the plain case, a name that is its own
        fresh key, without a call per name."""
        seen, live = self._seen, self._live
        out = []
        for name in names:
            if self._full is None and name[:2] != "__" and ".0" not in name and ".-" not in name \
                    and name not in _TYPE_NAMES and name not in seen and name not in live \
                    and not (self._base and self._in_base(name)):
                seen[name] = name  # _plain_key(name) is name itself
                out.append(name)
            else:
                out.append(self.unique(name))
        return out

    def unique_each_live(self, instrs: list[HloInstruction]) -> None:
        """:meth:`unique` of each instruction's name in order (a parsed computation joining the
        module), the instruction renamed where that gives another name and entered in the live
        table at once: a plain name is then given out by being live, with no entry of its own."""
        seen, live = self._seen, self._live
        for instr in instrs:
            name = instr.name
            if self._full is None and name[:2] != "__" and ".0" not in name and ".-" not in name \
                    and name not in _TYPE_NAMES and name not in seen and name not in live \
                    and not (self._base and self._in_base(name)):
                live[name] = instr  # _plain_key(name) is name itself, and now live
                continue
            given = self.unique(name)
            if given is not name:
                instr.name = given
            live[given] = instr

    def can_take_live(self) -> bool:
        """Whether :meth:`take_live` may give a name out (no full uniquer, no base table)."""
        return self._full is None and not self._base

    def take_live(self, instr: HloInstruction) -> bool:
        """:meth:`unique_each_live`'s step for ``instr`` alone, taken now (the parser, as it reads a
        computation whose names join the module line by line): True where that gives the name
        unchanged without the full uniquer, the instruction then live under it; False, and
        nothing changed, otherwise (a name another instruction holds, one that would be renamed,
        a full uniquer or a base table).  A run of these in a computation's order, with nothing
        else given out meanwhile, leaves what :meth:`unique_each_live` of them leaves; undone by
        :meth:`untake_live`.  Why: the parser's scope of the computation it reads is then the
        module's table itself, not a second dict as large (issue 36 item 3)."""
        name = instr.name
        live = self._live
        if self._full is not None or self._base or name in live:
            return False
        # not ("__" <= name < "_`"): the names that start with "__" (no slice made: a line each, h48p);
        # compiled, str.startswith is a primitive where the two comparisons were generic (PyObject_RichCompare)
        if not (name.startswith("__") if _COMPILED else "__" <= name < "_`") and ".0" not in name and ".-" not in name and name not in _TYPE_NAMES:
            if name in self._seen:
                return False
            live[name] = instr  # _plain_key(name) is name itself, and now live
            return True
        if self._take_plain(name):  # what unique() gives unchanged, its key entered as unique() enters it
            live[name] = instr
            return True
        return False

    def untake_live(self, instrs: list[HloInstruction]) -> None:
        """Undo :meth:`take_live` of each of ``instrs`` (all taken by it, in a run nothing else
        has given names out during): the table and the plain map as they were before the run."""
        live, seen = self._live, self._seen
        for instr in instrs:
            name = instr.name
            del live[name]
            if not _own_key(name):  # given by _take_plain, under its key
                key = _plain_key(name)
                if key is not None:
                    del seen[key]

    def unique_keeping_suffix(self, base: str) -> str:
        """:meth:`NameUniquer.unique_keeping_suffix` (the same as :meth:`unique` while ``base`` is free)."""
        full = self._full  # the full uniquer's, once built (the passes' new names): two calls fewer
        if full is not None:
            return full.unique_keeping_suffix(base)
        return base if self._take_plain(base) else self._uniquer().unique_keeping_suffix(base)

    def numbered(self, base: str) -> str:
        """:meth:`NameUniquer.numbered`."""
        return self._uniquer().numbered(base)

    def claim(self, name: str) -> None:
        """:meth:`NameUniquer.claim`."""
        if self._full is None:
            key = _plain_key(name)
            if key is not None:
                if not self._has(key):  # a key is a (root, suffix) pair: taken once
                    self._seen[key] = name
                return
        self._uniquer().claim(name)

    def claim_each(self, names: list[str]) -> None:
        """:meth:`claim` of each of ``names`` (a copied computation's instructions), the plain
        case (a name that is its own key) without a call per name."""
        seen, live = self._seen, self._live
        for name in names:
            if self._full is None and name[:2] != "__" and ".0" not in name and ".-" not in name \
                    and name not in _TYPE_NAMES:
                if name not in live:
                    seen.setdefault(name, name)  # _plain_key(name) is name itself
            else:
                self.claim(name)

    def claim_each_live(self, instrs: list[HloInstruction]) -> None:
        """:meth:`claim` of each instruction's name, each entered in the live table at once (a
        copied computation joining the module): a plain name needs no entry of its own."""
        live = self._live
        if not _COMPILED and self._full is None:  # compiled, the loop below is the native one
            names = [instr.name for instr in instrs]
            if _all_own_keys(names):  # every name its own key: no claim, the live table is the map
                live.update(zip(names, instrs))
                return
        for instr in instrs:
            name = instr.name
            if not (self._full is None and name[:2] != "__" and ".0" not in name and ".-" not in name
                    and name not in _TYPE_NAMES):
                self.claim(name)
            live[name] = instr

    def kept(self, name: str) -> None:
        """A live instruction named ``name`` left the table, its name not released (the name
        table's :meth:`~.names.NameTable.remove`): it stays given out, now in the plain map."""
        if self._full is None and _own_key(name) and name not in self._seen:
            self._seen[name] = name

    def taken(self, name: str) -> bool:
        """:meth:`NameUniquer.taken`."""
        if self._full is None:
            key = _plain_key(name)
            if key is not None:
                return self._has(key)
        return self._uniquer().taken(name)

    def release(self, name: str) -> None:
        """:meth:`NameUniquer.release` (of a name no live instruction holds)."""
        if self._full is None:
            key = _plain_key(name)
            if key is not None:
                self._seen.pop(key, None)
                if self._base:
                    self._unbased.add(key)
                return
        self._uniquer().release(name)

    def release_each(self, names: list[str]) -> None:
        """:meth:`release` of each of ``names`` (a dropped computation's), the plain case (a name
        that is its own key) without a call per name: the offload analysis gives back ~26k left-out
        names on ``jax_entry`` at 100k instructions."""
        for start in range(0, len(names), CHUNK):  # (a list of all of them beside the set was the
            self._release_plain(names[start:start + CHUNK])  # inliner's peak: 210k names at jax_entry 1M)

    def _release_plain(self, names: list[str]) -> None:
        """:meth:`release_each` of a few thousand names (``CHUNK``)."""
        based = self._base
        unbased: list[str] = []  # entered at once, the set sized (base/sized_sets.py): added one at a
        # time, jax_entry's 26k at 100k instructions took 2 MiB, held through the analysis' passes
        for name in names:
            if self._full is None and name[:2] != "__" and ".0" not in name and ".-" not in name \
                    and name not in _TYPE_NAMES:
                self._seen.pop(name, None)  # _plain_key(name) is name itself
                if based:
                    unbased.append(name)
            else:
                if unbased:  # before release() may hand the set to the full uniquer
                    add_sized(self._unbased, unbased)
                    unbased = []
                self.release(name)
        if unbased:
            add_sized(self._unbased, unbased)

    def _uniquer(self) -> NameUniquer:
        """The full uniquer, built from the names seen so far at the first call that needs it:
        the plain map's, and each live name that is its own key."""
        full = self._full
        if full is None:
            self._full = full = _LayeredUniquer(_PlainNames(self._seen, self._live, self._base, self._unbased))
            self._seen, self._base, self._unbased = {}, _NO_BASE, set()  # (the old ones are the full form's now)
        return full


_NO_BASE: Final[dict[str, HloInstruction]] = {}
"""No base table (:meth:`InstructionNames.claim_all_of`): never written."""


def _all_own_keys(names: list[str]) -> bool:
    """Whether every one of ``names`` is :func:`_own_key`, tested by C over all of them at once: a
    ``.0`` or ``.-`` inside a name, or a ``__`` after the separator (a name that starts with it),
    is in the joined text only if a name holds it (the separator is neither ``.``, ``0``, ``-``
    nor ``_``).  Why: a copy of a module claims each name it keeps (:meth:`InstructionNames.claim_each_live`),
    and the test of each, a slice and three searches in Python, was ~0.6% of the instructions of an
    offload call on a train step (issue 36)."""
    joined = "\n" + "\n".join(names)
    return ".0" not in joined and ".-" not in joined and "\n__" not in joined and _TYPE_NAMES.isdisjoint(names)


def _own_key(name: str) -> bool:
    """Whether ``name`` is the plain map's key of itself (what the fast paths above test inline)."""
    return name[:2] != "__" and ".0" not in name and ".-" not in name and name not in _TYPE_NAMES


def _plain_key(name: str) -> str | None:
    """The key :class:`InstructionNames` files ``name`` under; None for a name only the full
    uniquer can take (``__x``, a type name, a suffix that prints otherwise than written)."""
    if name[:2] == "__" or name in _TYPE_NAMES:
        return None
    if ".0" in name or ".-" in name:
        root, _, digits = name.rpartition(".")
        if digits == "0":  # (root, 0), which 'root' shares unless it splits itself ('a.1' is (a, 1))
            return name if _split(root)[2] else root
        if digits[1:].isdigit() and digits[:1] in ("0", "-"):
            return None  # 'r.012', 'a.-1'
    return name
