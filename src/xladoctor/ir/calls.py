"""``Calls``: an instruction's called computations by role, kept in its rare-fields slot.

Why a type of its own: an instruction keeps the computations it calls in its ``_extra`` slot (the
rare fields', :mod:`.rare_fields`) where it has no other rare field -- a ``call`` or a ``reduce``
(jax_entry: one instruction in ten) -- so that ``called`` is not a slot on every instruction
(issue 36 item 3: 10 slots are a 112-byte instruction, 12 were 128).  Readers of that slot ask it
for rare fields (``control_predecessors``, ``frontend_attributes``, ``literal``, ...: the walks
read the slot directly, without the properties), so the calls answer those with the empty values
:class:`~.rare_fields.RareFields` starts with, as class attributes: no field of their own, the
object's size (two fields: :class:`Calls`).  A ``Mapping`` of its own, interpreted (as :mod:`.users`
is; the compiled core reads it through Python's protocol), never edited in place (replaced, as
``called`` always was).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from .computation import HloComputation
    from .instruction import HloInstruction
    from .metadata import OpMetadata

NO_STRINGS: Mapping[str, str] = MappingProxyType({})
"""The empty frontend attributes every instruction without them shares (the rare fields' module takes this one)."""
UNDECODED = object()
"""``RareFields.metadata`` when none was set in code (the rare fields' module takes this one)."""


class Calls(Mapping[str, "list[HloComputation]"]):
    """Called computations by role, a read-only mapping (``role -> list``), read as rare fields that are
    all empty (see the module doc).

    Not a ``dict``: a dict of one key is 184 bytes and its one-element list 64 more, and nearly every
    caller calls one computation under one role (jax_entry: 10.5k per 100k instructions, one per
    computation), so that case is two fields, the role and the computation itself (48 bytes; a list
    of it is made per read, as readers never keep or edit one), one role of several computations keeps
    its list, and only several roles (a ``while``, a ``conditional``) keep a dict.  Readers ask it for
    ``get``, ``items``, ``values``, ``[role]``, ``in``, iteration (the roles) and truth, as they asked
    the dict; it compares equal to a dict of the same calls."""

    __slots__ = ("_role", "_comps")
    _role: str | None
    """The one role; None where there are several (or none)."""
    _comps: HloComputation | list[HloComputation] | dict[str, list[HloComputation]]
    """The one role's one computation or its list, or the dict of every role's where ``_role`` is None."""
    literal: str | None = None
    frontend_attributes: Mapping[str, str] = NO_STRINGS
    output_to_operand_aliasing: Sequence[tuple[tuple[int, ...], int, tuple[int, ...]]] = ()
    operand_shapes_text: tuple[str, ...] | None = None
    control_predecessors: Sequence[HloInstruction] = ()
    metadata: OpMetadata | object | None = UNDECODED
    number: int | str | None = None
    __hash__ = None  # type: ignore[assignment]  # as the dict it stands for
    __bool__ = True.__bool__
    """True, without a Python call: a Calls is never empty (the constructor refuses none), and a bound
    C method as ``__bool__`` is called with no arguments (``__len__`` was a Python call per truth
    test, and the walks test every rare-fields slot: hlo_dce's ``filter(None, ...)``)."""

    def __init__(self, called: Mapping[str, list[HloComputation]]) -> None:
        if not called:
            raise ValueError("no calls: an instruction that calls nothing holds no Calls")
        if len(called) == 1:
            ((role, comps),) = called.items()
            self._role, self._comps = role, comps[0] if len(comps) == 1 else comps
        else:
            self._role, self._comps = None, dict(called)

    def computations(self) -> list[HloComputation]:
        """Every computation called, in the roles' order, as a new list: ``called_computations``,
        without a list per role (the passes ask it of every caller)."""
        comps = self._comps
        if type(comps) is list:
            return comps[:]
        if self._role is not None:
            return [comps]  # type: ignore[list-item]
        return [c for listed in comps.values() for c in listed]  # type: ignore[union-attr]

    def identity(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Each role and its computations' ids, in the roles' sorted order: what two instructions that
        call the same computations in the same roles share (HloCSE's key).  The usual one role of one
        computation without the list, the generator and the sort (~600 reduces a train step's run)."""
        comps = self._comps
        if self._role is not None:
            return ((self._role, tuple(map(id, comps)) if type(comps) is list else (id(comps),)),)
        return tuple(sorted((r, tuple(map(id, cs))) for r, cs in comps.items()))  # type: ignore[union-attr]

    def __getitem__(self, role: str) -> list[HloComputation]:
        if role == self._role:
            comps = self._comps  # the one role's: a list of the one computation made per read
            return comps if type(comps) is list else [comps]  # type: ignore[list-item]
        if self._role is None:
            return self._comps[role]  # type: ignore[call-overload,index]
        raise KeyError(role)

    def get(self, role: str, default: list[HloComputation] | None = None  # type: ignore[override]
            ) -> list[HloComputation] | None:
        """The computations under ``role``, else ``default``."""
        if role == self._role:
            comps = self._comps
            return comps if type(comps) is list else [comps]  # type: ignore[list-item]
        if self._role is None:
            return self._comps.get(role, default)  # type: ignore[union-attr,call-arg,return-value]
        return default

    def __contains__(self, role: object) -> bool:
        return role == self._role or (self._role is None and role in self._comps)  # type: ignore[operator]

    def __iter__(self) -> Iterator[str]:
        return iter((self._role,) if self._role is not None else self._comps)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return 1 if self._role is not None else len(self._comps)  # type: ignore[arg-type]

    def keys(self) -> Iterable[str]:  # type: ignore[override]
        """The roles, in order (a tuple for one: no view made)."""
        return (self._role,) if self._role is not None else self._comps.keys()  # type: ignore[union-attr]

    def values(self) -> Iterable[list[HloComputation]]:  # type: ignore[override]
        """Each role's computations, in order."""
        comps = self._comps
        if self._role is None:
            return comps.values()  # type: ignore[union-attr]
        return (comps if type(comps) is list else [comps],)  # type: ignore[list-item]

    def items(self) -> Iterable[tuple[str, list[HloComputation]]]:  # type: ignore[override]
        """``(role, computations)`` in order."""
        role, comps = self._role, self._comps
        if role is None:
            return comps.items()  # type: ignore[union-attr]
        return ((role, comps if type(comps) is list else [comps]),)  # type: ignore[list-item]

    def as_dict(self) -> dict[str, list[HloComputation]]:
        """A dict of the same calls (a new one)."""
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Calls):
            other = other.as_dict()
        elif not isinstance(other, Mapping):
            return NotImplemented
        return self.as_dict() == other

    def __repr__(self) -> str:
        return f"Calls({self.as_dict()!r})"

    @property
    def called(self) -> Calls:
        """The calls themselves (a reader of the slot asks ``extra.called`` of whatever is there:
        a call only where there are calls)."""
        return self

    def detached(self) -> None:
        """A detached copy keeps no calls (graph links): no rare fields at all."""
        return None

