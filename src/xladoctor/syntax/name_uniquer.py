"""XLA's ``NameUniquer`` as the parser meets it: the names a parsed module really has.

XLA's parser reads each computation with its own name scope, so the same
instruction name may appear in two computations (XLA's own tests do this
everywhere).  When the parsed computations are added to the module
(``HloModule::AddComputationInternal`` with ``uniquify_identifiers``), every
computation name goes through the module's computation uniquer and every
instruction name, in text order, through its instruction uniquer; the names
XLA's passes and messages use from then on are those.  This module does the
same, character for character (xla/service/name_uniquer.cc):

* the name is sanitised: a first character that is not a letter or ``_``
  becomes ``_``, other characters outside ``[A-Za-z0-9_.-]`` become ``_``, a
  primitive type name gets ``_`` appended, ``__`` (but not ``__xla_``) becomes ``a_``;
* a numeric suffix after the last ``.`` (``absl::SimpleAtoi``: ``012`` is 12, ``-1``
  is -1) is split off, and per root a ``SequentialIdGenerator`` hands out
  the suffix asked for if free, else the smallest free one from where it last
  stopped; suffix 0 prints as the bare root unless the name had a suffix.
"""

from __future__ import annotations

import re

from ..ir.primitive import PRIMITIVE_TYPES

_TYPE_NAMES = frozenset(PRIMITIVE_TYPES) - {"tuple", "buffer"}
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_.\-]")
_INT64 = re.compile(r"[+-]?[0-9]+")
_INT64_MAX = 2**63 - 1


class _SequentialIds:
    """XLA's ``SequentialIdGenerator``: ``used_`` and ``next_``."""

    __slots__ = ("used", "next")

    def __init__(self) -> None:
        self.used: set[int] = set()
        self.next = 0

    def register(self, wanted: int) -> int:
        used = self.used
        if wanted not in used:
            used.add(wanted)
            return wanted
        n = self.next
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
    """``absl::SimpleAtoi`` into an int64 on the characters a name can hold."""
    if not _INT64.fullmatch(text):
        return None
    value = int(text)
    return value if -_INT64_MAX - 1 <= value <= _INT64_MAX else None


class NameUniquer:
    """One of the module's two uniquers (computations, instructions), separator ``.``."""

    __slots__ = ("_ids",)

    def __init__(self) -> None:
        self._ids: dict[str, _SequentialIds] = {}

    def unique(self, prefix: str) -> str:
        """``NameUniquer::GetUniqueName`` for a name as XLA's lexer reads one
        (``[A-Za-z_][A-Za-z0-9_.-]*``, all the parser passes here); it runs once per instruction, so
        the usual name (its suffix free) costs a split and two look-ups and comes back as given.
        Only ``__x`` and type names need sanitising (:meth:`_unique_sanitized`, which takes any name)."""
        if prefix[:2] == "__" or prefix in _TYPE_NAMES:
            return self._unique_sanitized(prefix)
        root, _, digits = prefix.rpartition(".")
        if not (root and digits.isdigit() and digits.isascii() and len(digits) <= 18):
            if root and digits[:1] == "-":
                return self._unique_sanitized(prefix)  # 'a.-1': SimpleAtoi takes the sign
            root, digits = prefix, ""
        wanted = int(digits) if digits else 0
        ids = self._ids.get(root)
        if ids is None:
            ids = self._ids[root] = _SequentialIds()
        used = ids.used
        if wanted not in used:
            used.add(wanted)
            if not digits or digits[0] != "0" or digits == "0":
                return prefix  # no leading zero: the suffix prints as written
            return f"{root}.{wanted}"
        got = ids.register(wanted)
        if got == 0:
            return f"{root}.0" if digits else root
        return f"{root}.{got}"

    def _unique_sanitized(self, prefix: str) -> str:
        root = sanitized(prefix or "name")
        suffix = 0
        has_suffix = False
        dot = root.rfind(".")
        if 0 < dot < len(root) - 1:
            number = _simple_atoi(root[dot + 1:])
            if number is not None:
                has_suffix, suffix, root = True, number, root[:dot]
        ids = self._ids.get(root)
        if ids is None:
            ids = self._ids[root] = _SequentialIds()
        suffix = ids.register(suffix)
        if suffix == 0:
            return f"{root}.0" if has_suffix else root
        return f"{root}.{suffix}"


class InstructionNames:
    """The module's instruction uniquer, kept as a plain map while it cannot rename anything.

    A name maps to the (root, suffix) pair GetUniqueName files it under; while each name so far had
    a pair of its own and prints as its pair does (no ``__`` prefix, no type name, no suffix with a
    sign or a leading zero), :class:`NameUniquer` would have returned every one unchanged with every
    ``next_`` still 0.  So a map from each pair's key (the name itself; ``x`` for ``x.0``, which
    shares ``x``'s pair) is enough until the first other name; then the full uniquer is built from
    the names seen (in any order: all registrations were fresh) and takes over.  This keeps XLA's
    renaming to a few C-level checks an instruction on the usual module.
    """

    __slots__ = ("_seen", "_full")

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}
        self._full: NameUniquer | None = None

    def unique(self, name: str) -> str:
        full = self._full
        if full is not None:
            return full.unique(name)
        key: str | None = name
        if ".0" in name or ".-" in name:
            root, _, digits = name.rpartition(".")
            if digits == "0":
                key = root
            elif digits[1:].isdigit() and digits[:1] in ("0", "-"):
                key = None  # a suffix that prints otherwise than written ('r.012', 'a.-1')
        seen = self._seen
        if key is None or key in seen or name[:2] == "__" or name in _TYPE_NAMES:
            self._full = full = NameUniquer()
            for earlier in seen.values():
                full.unique(earlier)
            self._seen = {}
            return full.unique(name)
        seen[key] = name
        return name
