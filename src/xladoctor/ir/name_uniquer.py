"""XLA's ``NameUniquer`` (xla/service/name_uniquer.cc): the one uniquer of names in xladoctor.

Each :class:`~.module.HloModule` owns two, as XLA's does: ``instruction_names`` (an
:class:`~.instruction_names.InstructionNames`) and ``computation_names``; the parser's own ``name_uniquer_`` for
nested instructions is a third :class:`NameUniquer`.  XLA's parser reads each computation with
its own name scope, so the same instruction name may appear in two computations; when the parsed
computations are added to the module (``HloModule::AddComputationInternal`` with
``uniquify_identifiers``), every computation name goes through the module's computation uniquer
and every instruction name, in text order, through its instruction uniquer; the names XLA's
passes and messages use from then on are those.  :meth:`NameUniquer.unique` does the same,
character for character:

* the name is sanitised: a first character that is not a letter or ``_``
  becomes ``_``, other characters outside ``[A-Za-z0-9_.-]`` become ``_``, a
  primitive type name gets ``_`` appended, ``__`` (but not ``__xla_``) becomes ``a_``;
* a numeric suffix after the last ``.`` (``absl::SimpleAtoi`` into an int64: ``012`` is 12,
  ``-1`` is -1, 19 digits up to INT64_MAX are a suffix, one past it is none) is split off,
  and per root a ``SequentialIdGenerator`` hands out the suffix asked for if free, else the
  smallest free one from where it last stopped; suffix 0 prints as the bare root unless the name had a suffix.

The names rewrites add come from the same per-root generators, in the two forms the reports were
measured with (``bench/compare_outputs.py``): :meth:`NameUniquer.unique_keeping_suffix` for the
pre-passes (a taken ``neg.19`` becomes ``neg.19.1`` where XLA would say ``neg.N``: the clones'
digits are not predictable anyway, the compiler's StableHLO round trip renames first) and
:meth:`NameUniquer.numbered` for HostOffloadLegalize and HostOffloader (``copy.N``, never the
bare root, which the compiler's module has long given out by then).  A clone of a module claims
its names afresh (``HloModule::Clone``); :meth:`NameUniquer.release` forgets the names of dead code
the compiler's module never had.
"""

from __future__ import annotations

import re

from .primitive import PRIMITIVE_TYPES

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

    from .name_protocols import PlainMap, UsedIds

_TYPE_NAMES: Final = frozenset(PRIMITIVE_TYPES) - {"tuple", "buffer"}
_NOT_ALLOWED: Final = re.compile(r"[^A-Za-z0-9_.\-]")
_INT64_MAX: Final = 2**63 - 1


class _SequentialIds:
    """XLA's ``SequentialIdGenerator``: ``used_`` and ``next_``."""

    __slots__ = ("used", "next")

    def __init__(self, used: UsedIds | None = None) -> None:
        self.used: UsedIds = set() if used is None else used
        self.next = 0

    def register(self, wanted: int) -> int:
        used = self.used
        if wanted not in used:
            used.add(wanted)
            return wanted
        return self.register_free()

    def register_free(self) -> int:
        """:meth:`register` of an id known taken: the smallest free one from ``next_`` (a caller
        that has just tested the wanted id need not test it again: a look-up in a layered ``used_``
        is a Python call or more)."""
        used = self.used
        n = self.next
        while n in used:
            n += 1
        used.add(n)
        self.next = n + 1
        return n

    def register_numbered(self) -> int:
        """:meth:`register` of a taken id: the smallest free one from ``next_``, never 0."""
        used = self.used
        n = self.next or 1
        while n in used:
            n += 1
        used.add(n)
        self.next = n + 1
        return n


def sanitized(name: str) -> str:
    """``NameUniquer::GetSanitizedName``."""
    if not name:
        return ""
    first = name[0]
    if not (first.isascii() and (first.isalpha() or first == "_")):
        name = "_" + name[1:]
    if _NOT_ALLOWED.search(name, 1):
        name = name[0] + _NOT_ALLOWED.sub("_", name[1:])
    if name in _TYPE_NAMES:
        name += "_"
    if name.startswith("__") and not name.startswith("__xla_"):
        name = "a" + name[1:]
    return name


def _simple_atoi(text: str) -> int | None:
    """``absl::SimpleAtoi`` into an int64 on the characters a name can hold.  The usual suffix, up to 18
    ASCII digits, is what the pattern takes and fits an int64: read without the regex."""
    if len(text) <= 18 and text.isdigit() and text.isascii():
        return int(text)
    body = text[1:] if text[:1] in ("+", "-") else text  # [+-]?[0-9]+ by string tests: most suffixes that get
    if not (body.isdigit() and body.isascii()):  # here are no number ('2_c7'), and the regex was a method call
        return None
    value = int(text)
    return value if -_INT64_MAX - 1 <= value <= _INT64_MAX else None


class NameUniquer:
    """``NameUniquer`` with separator ``.``: the module's computation uniquer, the parser's
    ``name_uniquer_``, and the full form behind :class:`InstructionNames`.

    A root given out once, with ``next_`` still 0 (nearly every root: most names are their own
    root), is kept as that one id, not as a :class:`_SequentialIds` (an object and a set, ~270
    bytes): the full uniquer of a 100k-instruction module held one per name.  It becomes one at
    the first call that needs more (:meth:`_ids_of`)."""

    __slots__ = ("_ids",)
    _layered = False
    """Whether names may have been given out that ``_ids`` does not list (:class:`_LayeredUniquer`):
    then a root absent from ``_ids`` is not known to be new."""

    def __init__(self) -> None:
        self._ids: dict[str, _SequentialIds | int] = {}

    def _ids_of(self, root: str) -> _SequentialIds:
        """The ids of ``root`` as a :class:`_SequentialIds`, made (from the one id kept) if need be."""
        ids = self._ids.get(root)
        if ids is None or type(ids) is int:
            full = _SequentialIds()
            if ids is not None:
                full.used.add(ids)
            self._ids[root] = full
            return full
        return ids  # type: ignore[return-value]

    def _is_used(self, root: str, suffix: int) -> bool:
        ids = self._ids.get(root)
        if ids is None:
            return False
        if type(ids) is int:
            return ids == suffix
        return suffix in ids.used  # type: ignore[union-attr]

    def unique(self, prefix: str) -> str:
        """``NameUniquer::GetUniqueName`` for a name as XLA's lexer reads one
        (``[A-Za-z_][A-Za-z0-9_.-]*``, all the parser passes here); it runs once per instruction, so
        the usual name (its suffix free) costs a split and two look-ups and comes back as given.
        Only ``__x`` and type names need sanitising (:meth:`_unique_sanitized`, which takes any name)."""
        if prefix[:2] == "__" or prefix in _TYPE_NAMES:
            return self._unique_sanitized(prefix)
        root, _, digits = prefix.rpartition(".")
        if not (root and digits.isdigit() and digits.isascii() and len(digits) <= 18):
            if root and (digits[:1] == "-" or (len(digits) > 18 and _simple_atoi(digits) is not None)):
                # 'a.-1': SimpleAtoi takes the sign; 'a.1000000000000000000': a 19-digit (or
                # zero-padded) suffix that still fits an int64 is split off as any other
                return self._unique_sanitized(prefix)
            root, digits = prefix, ""
        wanted = int(digits) if digits else 0
        known = self._ids.get(root)
        if known is None and not self._layered:
            self._ids[root] = wanted  # the one id of this root so far
            fresh = True
        else:
            ids = self._ids_of(root)
            fresh = wanted not in ids.used
            if fresh:
                ids.used.add(wanted)
        if fresh:
            if not digits or digits[0] != "0" or digits == "0":
                return prefix  # no leading zero: the suffix prints as written
            return f"{root}.{wanted}"
        got = ids.register_free()  # ``wanted`` tested taken just above
        if got == 0:
            return f"{root}.0" if digits else root
        return f"{root}.{got}"

    def numbered(self, prefix: str) -> str:
        """A name with a suffix, ``root.N`` (N >= 1), never the bare root: ``GetUniqueName`` as the
        host-offload passes meet it, where the module's uniquer gave the bare root out long ago.

        The root is ``prefix`` less its numeric suffix, as GetUniqueName splits it
        (``copy.7`` -> ``copy.N``); the names HostOffloadLegalize and HostOffloader add.
        """
        root, _, _ = _split(sanitized(prefix or "name"))
        return f"{root}.{self._ids_of(root).register_numbered()}"

    def unique_keeping_suffix(self, base: str) -> str:
        """``base`` if no name took it, else ``base.N``: GetUniqueName except that a taken name
        keeps its own numeric suffix (``neg.19`` -> ``neg.19.1``, where XLA says ``neg.N``).

        The names the pre-passes give their clones and new instructions (the names the reports
        print were measured with it); a base without a numeric suffix gets what
        :meth:`unique` gives."""
        if "." not in base:  # no suffix to split off (``broadcast``, most new names): no split call
            return self.unique(base)
        root, suffix, has_suffix = _split(base)
        if not has_suffix or not self._is_used(root, suffix):
            return self.unique(base)
        return f"{base}.{self._ids_of(base).register_numbered()}"

    def claim(self, name: str) -> None:
        """Mark ``name`` given out without renaming it (idempotent): XLA's AddComputationInternal
        without ``uniquify_identifiers``, for a module's names that are already unique (a clone)."""
        root, suffix, _ = _split(name)
        if root not in self._ids and not self._layered:
            self._ids[root] = suffix
        elif not self._is_used(root, suffix):
            self._ids_of(root).used.add(suffix)

    def taken(self, name: str) -> bool:
        """Whether ``name`` was given out or claimed (and not released)."""
        root, suffix, _ = _split(name)
        return self._is_used(root, suffix)

    def release(self, name: str) -> None:
        """Give ``name`` back (XLA's uniquer never does): for instructions the compiler's module
        never had, dead code the pre-passes drop where the compiler rebuilds the module."""
        root, suffix, _ = _split(name)
        if root in self._ids or self._layered:
            self._ids_of(root).used.discard(suffix)

    def _unique_sanitized(self, prefix: str) -> str:
        root, suffix, has_suffix = _split(sanitized(prefix or "name"))
        suffix = self._ids_of(root).register(suffix)
        if suffix == 0:
            return f"{root}.0" if has_suffix else root
        return f"{root}.{suffix}"


def _split(name: str) -> tuple[str, int, bool]:
    """GetUniqueName's split of a sanitised name: (root, numeric suffix, whether it had one)."""
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        number = _simple_atoi(name[dot + 1:])
        if number is not None:
            return name[:dot], number, True
    return name, 0, False


class _LayeredUniquer(NameUniquer):
    """The full uniquer over the names an :class:`InstructionNames` kept as a plain map (``base``,
    key -> name, never written again): the state :class:`NameUniquer` would have after
    :meth:`~NameUniquer.unique` of each of those names, without that walk.  A root is taken into
    ``_ids`` when first touched, its ``used_`` a :class:`_LayeredUsed` (what ``base`` holds of
    it, and what was given out or back since), its ``next_`` 0 as every fresh registration left it.
    The walk was a third of CallInliner's time on a train step (issue 36): the first clone whose
    name is taken needs the full uniquer, for a handful of roots."""

    __slots__ = ("_base",)
    _layered = True  # ``base`` may hold names of a root: never the one-id shortcut

    def __init__(self, base: PlainMap) -> None:
        super().__init__()
        self._base = base

    def _ids_of(self, root: str) -> _SequentialIds:
        ids = self._ids.get(root)
        if ids is None:
            full = self._ids[root] = _SequentialIds(_LayeredUsed(root, self._base))
            return full
        return ids  # type: ignore[return-value]  # never an int here: no shortcut was taken

    def _is_used(self, root: str, suffix: int) -> bool:
        ids = self._ids.get(root)
        if ids is None:
            return _base_has(self._base, root, suffix)
        return suffix in ids.used  # type: ignore[union-attr]


class _LayeredUsed:
    """One root's ``used_`` in a :class:`_LayeredUniquer`: the suffixes ``base`` holds, plus those
    added and less those discarded since."""

    __slots__ = ("root", "base", "added", "removed")

    def __init__(self, root: str, base: PlainMap) -> None:
        self.root = root
        self.base = base
        self.added: set[int] = set()
        self.removed: set[int] = set()

    def __contains__(self, suffix: object) -> bool:
        if suffix in self.added:
            return True
        if suffix in self.removed or not isinstance(suffix, int):
            return False
        if suffix > 0:  # :func:`_base_has`'s first case, inline: each probe of ``register``'s search
            name = f"{self.root}.{suffix}"
            return self.base.get(name) == name
        if _base_has(self.base, self.root, suffix):
            # Kept as added: ``base`` never changes, so the answer stands until :meth:`discard`, which
            # takes it out of ``added``.  Suffix 0 is asked at every new name of a root without a
            # suffix (``broadcast``, ``constant``: most names the passes make), each a few calls.
            self.added.add(suffix)
            return True
        return False

    def add(self, suffix: int) -> None:
        self.added.add(suffix)
        self.removed.discard(suffix)

    def discard(self, suffix: int) -> None:
        self.added.discard(suffix)
        self.removed.add(suffix)


def _base_has(base: PlainMap, root: str, suffix: int) -> bool:
    """Whether a name of ``base`` (an :class:`InstructionNames`' plain map: each name under its
    :func:`_plain_key`) is filed under ``(root, suffix)`` by :meth:`NameUniquer.unique`.  Such a
    name has no sign or leading zero (those are never plain), so it is ``root.suffix`` (suffix >= 1,
    any int64), its own key; or, for suffix 0, ``root`` (when ``root`` has no numeric suffix of its
    own: ``a.1`` is (a, 1)) or ``root.0``, both kept under the key ``root``; or ``root.0`` under
    its own key when ``root`` has one (``a.1.0`` is (a.1, 0), apart from ``a.1``)."""
    if suffix:
        name = f"{root}.{suffix}"
        return suffix > 0 and base.get(name) == name
    if _split(root)[2]:
        name = root + ".0"
        return base.get(name) == name
    held = base.get(root)
    return held is not None and (held == root or held == root + ".0")


_NO_NAMES: Final[dict[str, object]] = {}
"""No base map (:meth:`ComputationNames.claim_all_of`): never written."""
_SHARED_FROM: Final = 4096
"""How many computations a module holds before :meth:`ComputationNames.joined` drops entries: below,
the checks cost more than the entries (~1 us a computation, +0.65% of a train step's ``offload``)."""


class ComputationNames(NameUniquer):
    """The module's computation uniquer, with the module's computations by name (``live``) as the
    map for the names that are their own root: a name with no numeric suffix, given out or claimed
    fresh, is ``_ids[name] = 0`` in :class:`NameUniquer`, and while its computation is in the
    module that entry says nothing the map does not (jax_entry names every computation so, 105k
    at 1M instructions: a second table of them was ~3.7 MiB of the parse).  :meth:`joined` drops
    such an entry once the computation is in ``live`` (in a module of many), :meth:`left` puts it
    back when it leaves (XLA's uniquer never forgets a name), and once any entry is implied every
    read of a root first puts back the entry a name there stands for, so each answer is
    :class:`NameUniquer`'s (tests/test_computation_names.py)."""

    __slots__ = ("_live", "_base", "_implied")

    def __init__(self, live: Mapping[str, object]) -> None:
        super().__init__()
        self._live = live
        self._base: Mapping[str, object] = _NO_NAMES
        """Another module's computations by name, all claimed here (:meth:`claim_all_of`)."""
        self._implied = False
        """Whether ``live`` or ``base`` stands for an entry ``_ids`` lacks (else no read looks there)."""

    def _held(self, root: str) -> None:
        """``_ids[root] = 0`` again where ``live`` or ``base`` stands for it (a dropped entry: a
        name there that is its own root; ``a.1`` is filed under ``a``)."""
        if root not in self._ids and (root in self._live or root in self._base) and not _split(root)[2]:
            self._ids[root] = 0

    def claim_all_of(self, names: Mapping[str, object]) -> None:
        """:meth:`claim` of each of ``names`` (the computations by name of the module this one's is
        a copy of), the map standing for those that are their own root and have no entry here yet:
        the offload analysis' copy leaves out 105k computations of jax_entry at 1M instructions,
        whose names stay taken (an entry each was 3.7 MiB through the analysis' passes).
        ``names`` must not change while this uniquer is in use (as InstructionNames.claim_all_of)."""
        self._base, self._implied = names, True  # first: a claim of 'a.1' puts back what the map holds of 'a'
        ids = self._ids
        for name in names:
            if name in ids or _split(name)[2]:
                self.claim(name)

    def joined(self, name: str) -> None:
        """``name`` (given out or claimed just now) is in ``live`` now: its entry goes where it is
        the name's own root and one id, 0 (the map stands for it), in a module of many."""
        if len(self._live) < _SHARED_FROM:
            return
        held = self._ids.get(name)
        if held is not None and type(held) is int and held == 0 and not _split(name)[2]:
            del self._ids[name]
            self._implied = True

    def left(self, name: str) -> None:
        """``name`` left ``live`` (its computation was removed): taken still, as XLA's uniquer keeps it."""
        if self._implied and name not in self._ids and not _split(name)[2]:
            self._ids[name] = 0

    def _ids_of(self, root: str) -> _SequentialIds:
        if self._implied:
            self._held(root)
        return super()._ids_of(root)

    def _is_used(self, root: str, suffix: int) -> bool:
        if self._implied:
            self._held(root)
        return super()._is_used(root, suffix)

    # The roots a name may be filed under: itself, or what is before its last dot (a numeric suffix).
    def unique(self, prefix: str) -> str:
        if self._implied:
            self._held(prefix)
            self._held(prefix.rpartition(".")[0])
        return super().unique(prefix)

    def claim(self, name: str) -> None:
        if self._implied:
            self._held(name)
            self._held(name.rpartition(".")[0])
        super().claim(name)

    def release(self, name: str) -> None:
        if self._implied:
            self._held(name)
            self._held(name.rpartition(".")[0])
        super().release(name)
