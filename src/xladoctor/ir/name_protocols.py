"""What :mod:`.name_uniquer` asks of the maps and sets it is handed (:class:`PlainMap`, :class:`UsedIds`).

Protocols for the type checker only: :mod:`.name_uniquer` imports this module under
``TYPE_CHECKING`` (so ``typing`` stays off a command's way, issue 36), and keeps them apart because
mypyc, which compiles :mod:`.name_uniquer` (bench/compiled_core.py), compiles no class defined
under an ``if``.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["PlainMap", "UsedIds"]


class PlainMap(Protocol):
    """What :class:`_LayeredUniquer` reads of an :class:`InstructionNames`' plain map: the name
    filed under a key, or None (a dict, or :class:`_PlainNames`)."""

    def get(self, key: str, /) -> str | None: ...


class UsedIds(Protocol):
    """What :class:`_SequentialIds` asks of its ``used_``: a set of ints, or a view of one
    (:class:`_LayeredUsed`)."""

    def __contains__(self, suffix: object) -> bool: ...

    def add(self, suffix: int) -> None: ...

    def discard(self, suffix: int) -> None: ...
