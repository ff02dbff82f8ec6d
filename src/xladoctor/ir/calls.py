"""``Calls``: an instruction's called computations by role, kept in its rare-fields slot.

Why a type of its own: an instruction keeps the computations it calls in its ``_extra`` slot (the
rare fields', :mod:`.rare_fields`) where it has no other rare field -- a ``call`` or a ``reduce``
(jax_entry: one instruction in ten) -- so that ``called`` is not a slot on every instruction
(issue 36 item 3: 10 slots are a 112-byte instruction, 12 were 128).  Readers of that slot ask it
for rare fields (``control_predecessors``, ``frontend_attributes``, ``literal``, ...: the walks
read the slot directly, without the properties), so the calls answer those with the empty values
:class:`~.rare_fields.RareFields` starts with, as class attributes: no field of their own, the
dict's size.  A ``dict`` subclass, so interpreted (a compiled class cannot subclass ``dict``), as
:mod:`.users` is; never edited in place (replaced, as ``called`` always was).
"""

from __future__ import annotations

from types import MappingProxyType

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .computation import HloComputation
    from .instruction import HloInstruction
    from .metadata import OpMetadata

NO_STRINGS: Mapping[str, str] = MappingProxyType({})
"""The empty frontend attributes every instruction without them shares (the rare fields' module takes this one)."""
UNDECODED = object()
"""``RareFields.metadata`` when none was set in code (the rare fields' module takes this one)."""


class Calls(dict[str, "list[HloComputation]"]):
    """Called computations by role, read as rare fields that are all empty (see the module doc)."""

    __slots__ = ()
    literal: str | None = None
    frontend_attributes: Mapping[str, str] = NO_STRINGS
    output_to_operand_aliasing: Sequence[tuple[tuple[int, ...], int, tuple[int, ...]]] = ()
    operand_shapes_text: tuple[str, ...] | None = None
    control_predecessors: Sequence[HloInstruction] = ()
    metadata: OpMetadata | object | None = UNDECODED
    number: int | str | None = None

    @property
    def called(self) -> Calls:
        """The calls themselves (a reader of the slot asks ``extra.called`` of whatever is there:
        a call only where there are calls)."""
        return self

    def detached(self) -> None:
        """A detached copy keeps no calls (graph links): no rare fields at all."""
        return None
