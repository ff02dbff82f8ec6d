"""The fields an instruction keeps packed: its position in the text, the one number of a
parameter or a get-tuple-element, and its users (the one user kept bare).

Why: every slot of :class:`~.instruction.HloInstruction` is 8 bytes on each of a module's
instructions, and every int over 256 is an object of its own (32 bytes): a parsed 100k-instruction
module held one per line number.  The position is an offset of at most 255 lines (one of the ints
Python shares) from a ``(line, col)`` pair many instructions share; a parameter's number, a
get-tuple-element's index and a custom call's target share one field of the rare fields (shared
among instructions with the same number, :mod:`.rare_fields`), as no instruction has two; an instruction with one
user (four in five of a jax module) holds it bare, with no :class:`~.users.Users` (80 bytes).
Read under their old names through :class:`PackedFieldAccess`'s properties, so callers are
unchanged (findings and summaries read positions, a few passes the numbers; ``users`` is read
often, so the hot walks of :mod:`.computation` read the store itself, and a walk that needs only
the count, whether there is any, or whether all are in a set asks :meth:`~PackedFieldAccess.user_count`,
:meth:`~PackedFieldAccess.has_users` or :meth:`~PackedFieldAccess.users_within`: no tuple per read).
"""

from __future__ import annotations

from collections.abc import Sequence

from . import users as _users
from .opcodes import PARAMETER, HloOpcode
from .rare_fields import CALLS, RareFieldAccess
from .users import Users

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .instruction import HloInstruction

NOWHERE: Final[tuple[int, ...]] = (0, 0)
"""The position of an instruction built in code (line 0, column 0)."""
MAX_LINE_OFFSET: Final = 255
"""The largest line offset from a shared ``(line, col)``: every int up to 256 is one object."""

# What the users' writers below read per link, as finals of this module: in the compiled core
# (setup.py) each is a C static, where a name imported from the interpreted ``users`` module is a
# lookup in this module's globals per read (``NO_USERS`` is :mod:`.instruction`'s too).
NO_USERS: Final = _users.NO_USERS
INDEXED_FROM: Final = _users.INDEXED_FROM
first_user: Final = _users.first_user
users_of: Final = _users.users_of
list_contains: Final = _users.list_contains
list_append: Final = _users.list_append
USERS: Final = Users  # the interpreted class as a C static: ``Users`` is a dict read per test (compiled core)

PACKED_SLOTS: Final = ("_users", "_where", "_line_off")
""":class:`PackedFieldAccess`'s slots, set by :class:`~.instruction.HloInstruction`'s ``__init__``
(named outside the class: a compiled core reads no ``__slots__`` through the class object)."""


class PackedFieldAccess(RareFieldAccess):
    """The packed fields as :class:`~.instruction.HloInstruction` attributes (its slots
    ``_where``, ``_line_off`` and ``_users``, and the number kept in the rare fields), and the users' store written by
    the instruction's methods only (:mod:`.instruction`)."""

    __slots__ = PACKED_SLOTS
    opcode: HloOpcode
    _where: tuple[int, ...]
    """Typed with ``...``: compiled (mypyc), a ``tuple[int, int]`` field is two ints inside the
    instance (16 bytes on every instruction), never the one tuple many share (8)."""
    _line_off: int
    _users: Users | HloInstruction

    def set_position(self, line: int, col: int, where: tuple[int, ...] | None = None) -> None:
        """Where the definition starts in the HLO text: 1-based ``line`` and ``col`` (0 if built in
        code).  Kept as an offset of at most 255 lines from a ``(line, col)`` pair many
        instructions share (``where``, the caller's, when it fits): Python makes an int object
        for every number over 256, and one per instruction was 32 bytes of ~450 (a parser
        passes one pair per 256 lines and column)."""
        if where is None or where[1] != col or not 0 <= line - where[0] <= MAX_LINE_OFFSET:
            where = NOWHERE if line == 0 and col == 0 else (line, col)
        self._where = where
        self._line_off = line - where[0]

    @property
    def line(self) -> int:
        """1-based line of the definition in the HLO text (0 if built in code)."""
        return self._where[0] + self._line_off

    @line.setter
    def line(self, value: int) -> None:
        self.set_position(value, self._where[1], self._where)

    @property
    def col(self) -> int:
        """1-based column where the definition starts (0 if built in code)."""
        return self._where[1]

    @col.setter
    def col(self, value: int) -> None:
        self.set_position(self.line, value)

    @property
    def parameter_number(self) -> int | None:
        """For ``parameter(N)``: N (None for every other opcode)."""
        extra = self._extra  # the calls alone (CALLS, interpreted: its class attribute a generic read) hold none
        if extra is None or self.opcode is not PARAMETER or type(extra) is CALLS:
            return None
        number = extra.number
        return None if isinstance(number, str) else number

    @parameter_number.setter
    def parameter_number(self, value: int | None) -> None:
        if value is not None or not isinstance(self._number(), str):  # None leaves a custom call's target
            self._set_number(value)

    @property
    def tuple_index(self) -> int | None:
        """For ``get-tuple-element``: its ``index=N`` (None for a parameter and a custom call; the
        parser takes ``index=`` on a get-tuple-element only)."""
        extra = self._extra
        if extra is None or self.opcode is PARAMETER or type(extra) is CALLS:
            return None
        number = extra.number
        return None if isinstance(number, str) else number

    @tuple_index.setter
    def tuple_index(self, value: int | None) -> None:
        if value is not None or not isinstance(self._number(), str):  # None leaves a custom call's target
            self._set_number(value)

    @property
    def custom_call_target(self) -> str | None:
        """For ``custom-call``: its ``custom_call_target`` (an async start's, where the parser
        wraps one), else None."""
        extra = self._extra
        if extra is None or type(extra) is CALLS:  # the calls alone: no target (read natively, not as a class attribute)
            return None
        number = extra.number
        return number if isinstance(number, str) else None

    @custom_call_target.setter
    def custom_call_target(self, value: str | None) -> None:
        if value is not None or isinstance(self._number(), str):  # None leaves a number or an index
            self._set_number(value)

    @property
    def users(self) -> Sequence[HloInstruction]:
        """Instructions that use this one, in XLA's order; read only (see the module doc): a
        :class:`~.users.Users`, or a one-element tuple made per read where the one user is kept
        bare (:attr:`_users`)."""
        users = self._users
        if type(users) is USERS:
            return users
        return (users,)  # type: ignore[return-value]

    def user_count(self) -> int:
        """``len(self.users)`` without the one-element tuple :attr:`users` makes for a bare user:
        the dead-code walks ask it of every value they pass (~95k times a ``jax_entry`` 100k run)."""
        users = self._users
        return len(users) if type(users) is USERS else 1

    def has_users(self) -> bool:
        """``bool(self.users)``, read from the store (an instruction is never falsy: a bare user is
        true, :data:`~.users.NO_USERS` and an emptied :class:`~.users.Users` are not)."""
        return bool(self._users)

    def users_within(self, chosen: set[HloInstruction]) -> bool:
        """``chosen.issuperset(self.users)``, without a tuple for a bare user (the dead steps ask
        it of each of the entry's calls)."""
        users = self._users
        if type(users) is USERS:
            return chosen.issuperset(users)
        return users in chosen

    def _gain_user(self, user: HloInstruction) -> None:
        """``AddUser`` on this instruction: the first user kept bare, a :class:`~.users.Users` from
        the second on."""
        users = self._users
        if type(users) is USERS:
            if users is NO_USERS:
                self._users = user
            elif (index := users._index) is None and 0 < len(users) < INDEXED_FROM:  # Users.add's common case,
                if not list_contains(users, user):  # inline: no call into the interpreted Users (compiled core)
                    list_append(users, user)
            elif index is not None:  # Users.add's indexed case, inline too: a parameter or constant of many
                if user not in index:  # users (63k calls into Users.add a jax_entry 100k offload: 1.3% of it)
                    index[user] = len(users)
                    list_append(users, user)
            elif users:
                users.add(user)
            else:  # an empty Users of its own (its users were removed): Users.add's first case
                first_user(users, (user,))
        elif users is not user:
            self._users = users_of(users, user)  # type: ignore[arg-type]

    def _gain_new_user(self, user: HloInstruction) -> None:
        """:meth:`_gain_user` for a user just made, as its operands are first linked (the parser's
        lines, a copy's instructions): it uses this instruction already only where it reads it
        twice, and then it is the last user added.  No index is made here: :class:`~.users.Users`
        makes it when first asked for a slot or a member (never, on most: the parse of
        ``jax_entry`` at 1M instructions held three of 52k slots, 12 MiB with their ints, and the
        offload analysis' copy three more, none of them read)."""
        users = self._users
        if type(users) is USERS:
            if users is NO_USERS:
                self._users = user
            elif not users:  # an empty Users of its own (its users were removed): Users.add's first case
                first_user(users, (user,))
            elif users[-1] is not user:
                if (index := users._index) is not None:
                    index[user] = len(users)
                list_append(users, user)
        elif users is not user:
            self._users = users_of(users, user)  # type: ignore[arg-type]

    def _lose_user(self, user: HloInstruction) -> None:
        """``RemoveUser``: the last user takes ``user``'s slot; no-op for a non-user."""
        users = self._users
        if type(users) is USERS:
            users.swap_remove(user)
        elif users is user:
            self._users = NO_USERS

    def _lose_users(self, gone: set[HloInstruction]) -> None:
        """Drop every user in ``gone`` keeping the others' order (:meth:`unlink`)."""
        users = self._users
        if type(users) is USERS:
            users.remove_stable(gone)
        elif users in gone:
            self._users = NO_USERS

    def users_consistent(self) -> bool:
        """Whether the users' index matches their vector (lint; a bare user has none)."""
        users = self._users
        return users.consistent() if type(users) is USERS else True
