"""``Users``: the instructions that use one instruction, in XLA's order (``HloInstruction::Users``).

Why a type of its own: the order of users decides which walk HostOffloader takes first,
hence which E1200 XLA reports, so it must change exactly as XLA's does -- a new user is
appended, a removed one's slot is taken by the last user (:meth:`Users.swap_remove`, O(1)
as XLA's vector-plus-map) -- and a module with one tensor read 10,000 times must not pay
O(users) per edit.  Rebuilding the program (HLO -> StableHLO -> HLO, what the real compiler
sees) keeps the survivors' order instead: :meth:`Users.remove_stable`, :meth:`Users.sort`.

Like XLA's, the container is a vector plus an index from user to slot; the index is only
built once there are more than :data:`_INDEXED_FROM` users (most instructions have one or two,
and a dict each cost more memory than the module's text), and then only when first needed: the
users linked as new instructions are made (the parser, a copy) are appended without it, and a
value read by every step of a program may never be asked which slot a user has.  An instruction with one user has no
``Users`` at all: it keeps that user bare, and ``HloInstruction.users`` reads it as a one-element
tuple (:mod:`.instruction`).  Only :class:`HloInstruction`'s methods change a ``Users``: read it
freely, never write it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from .instruction import HloInstruction

_INDEXED_FROM = 16
"""Below this many users a scan of the vector is as quick as a dict, and much smaller."""


class Users(list["HloInstruction"]):
    """An ordered set of instructions: iteration, ``len``, ``in`` and ``[i]`` as a sequence.

    The vector is the object itself (a ``list`` subclass with one slot for the index): a
    separate ``Users`` object holding a list cost 56 bytes more per instruction.  The vector is
    made with exactly its first users (no room for four).  The list's own writers (``append``,
    ``del``, ...) are not for callers: only :class:`HloInstruction`'s methods change a ``Users``.
    """

    __slots__ = ("_index",)

    def __init__(self) -> None:  # empty as list.__new__ made it: list.__init__ is not called (one per instruction)
        self._index: dict[HloInstruction, int] | None = None
        """User -> slot in the vector, once there are more than ``_INDEXED_FROM`` users and a
        reader needed it (:meth:`_indexed`); None before."""

    __hash__ = object.__hash__  # type: ignore[assignment]  # an identity, as an instruction is: never compared by value

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    # -- reading ---------------------------------------------------------------------
    def __contains__(self, user: object) -> bool:
        index = self._index
        if index is not None or (len(self) > _INDEXED_FROM and (index := self._indexed()) is not None):
            return user in index
        return _list_contains(self, user)  # instructions compare by identity: a C-speed identity scan

    def __repr__(self) -> str:
        return f"Users([{', '.join(u.name for u in self)}])"

    def slot(self, user: HloInstruction) -> int:
        """Where ``user`` sits (``UserId``); raises ``ValueError`` if it is not a user."""
        index = self._index if len(self) <= _INDEXED_FROM else self._indexed()
        if index is not None:
            if user not in index:
                raise ValueError(f"{user.name} is not a user")
            return index[user]
        if _list_contains(self, user):
            return self.index(user)
        raise ValueError(f"{user.name} is not a user")

    def consistent(self) -> bool:
        """Whether the index (when there is one) maps each user to its slot and nothing else (lint)."""
        index = self._index
        if index is None:
            return True  # (a long vector's index is made when first read)
        return len(index) == len(self) and all(index.get(u) == k for k, u in enumerate(self))

    # -- writing (HloInstruction's methods only) ---------------------------------------
    def add(self, user: HloInstruction) -> None:
        """``AddUser``: append ``user`` unless it is one already (an instruction using this one
        twice is one user)."""
        index = self._index
        if index is None:  # the common case, once per operand the parser links: kept inline
            if not self:
                _list_init(self, (user,))  # exactly one slot, not the four append would reserve
                return
            if _list_contains(self, user):
                return
            self.append(user)
            if len(self) > _INDEXED_FROM:
                self._index = {u: k for k, u in enumerate(self)}
        elif user not in index:
            index[user] = len(self)
            self.append(user)

    def swap_remove(self, user: HloInstruction) -> None:
        """``RemoveUser``: the last user moves into ``user``'s slot (O(1)); no-op for a non-user."""
        index = self._index if len(self) <= _INDEXED_FROM else self._indexed()
        if index is not None:
            k = index.pop(user, -1)
            if k < 0:
                return
        elif _list_contains(self, user):
            k = self.index(user)
        else:
            return
        last = self.pop()
        if last is not user:
            self[k] = last
            if index is not None:
                index[last] = k

    def remove_stable(self, gone: Collection[Any]) -> None:
        """Drop every user in ``gone`` keeping the others' order (the program rebuilt without
        them); one pass however many go."""
        kept = [u for u in self if u not in gone]
        if len(kept) != len(self):
            self._replace(kept)

    def sort(self, key: Callable[[HloInstruction], int]) -> None:  # type: ignore[override]
        """Order the users by ``key`` (stable): the order building the program afresh gives."""
        if len(self) > 1:
            self._replace(sorted(self, key=key))

    def _replace(self, items: list[HloInstruction]) -> None:
        self[:] = items
        self._index = None  # made again when first read

    def _indexed(self) -> dict[HloInstruction, int] | None:
        """The index of a vector of more than ``_INDEXED_FROM`` users, made now if it was not
        (None for a shorter one)."""
        index = self._index
        if index is None and len(self) > _INDEXED_FROM:
            index = self._index = {u: k for k, u in enumerate(self)}
        return index


_list_contains = list.__contains__
_list_init = list.__init__
list_contains = _list_contains
list_append = list.append
"""``list.__contains__`` and ``list.append`` of a :class:`Users` (its own ``__contains__`` reads the
index): :meth:`HloInstruction._gain_user <xladoctor.ir.packed_fields.PackedFieldAccess._gain_user>`
appends a user below :data:`INDEXED_FROM` itself, as :meth:`Users.add` would."""
INDEXED_FROM = _INDEXED_FROM
first_user = _list_init
"""The first user of an empty, unindexed :class:`Users`, exactly one slot (``Users.add``'s first case)."""

NO_USERS: Users = Users()
"""The users of every instruction that has had none yet, one shared empty :class:`Users`: a
ROOT, a dead value, an instruction just made (jax_entry: one instruction in six has no user, and
an empty ``Users`` each was 64 bytes).  Never written: :class:`HloInstruction`'s methods keep an
instruction's first user bare and give it a ``Users`` of its own (:func:`users_of`) at the
second; removing from or ordering an empty ``Users`` changes nothing."""


def users_of(first: HloInstruction, second: HloInstruction) -> Users:
    """A new :class:`Users` holding ``first`` (the one user, kept bare until now) and ``second``.  Made
    without the class call, which runs ``Users.__init__`` in an interpreter loop of its own: its one store
    is made here (a parse makes one for each instruction used twice or more, h48p)."""
    users = _new_list(Users)
    users._index = None
    _list_init(users, (first, second))  # exactly two slots, not the four append would reserve
    return users


_new_list = list.__new__
