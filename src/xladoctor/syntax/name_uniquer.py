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
        """``NameUniquer::GetUniqueName``."""
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
