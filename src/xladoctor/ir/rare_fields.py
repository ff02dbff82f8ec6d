"""The fields few instructions have, kept apart from :class:`~.instruction.HloInstruction`'s slots.

Why: a parsed 100k-instruction module has a few constants, aliasing lists, control edges and
frontend attributes, and six slots for them on every instruction cost more than the rest of the
instruction.  An instruction holds one ``_extra`` slot, ``None`` until one of these is set; the
fields are read through :class:`RareFieldAccess`'s properties under their old names, so callers
are unchanged.  Also here: the straight-line slot copy both classes are copied with.

Since issue 36 item 3 (stop 50) two more fields live here: the number (a parameter's, a
get-tuple-element's index, a custom call's target), kept in rare fields shared by every
instruction with the same value (:func:`shared_number`), and the called computations (an
instruction with no other rare field holds its :class:`~.calls.Calls` in the slot itself): two
slots fewer on every instruction, a 112-byte object where 128 were, for one more load where
these are read (the hot walks read the slot, ``extra.called``, not the property).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType

from . import calls as _calls

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, Final

    from .computation import HloComputation
    from .instruction import HloInstruction, OpMetadata


NO_STRINGS: Final[Mapping[str, str]] = _calls.NO_STRINGS
"""The empty frontend attributes every instruction without them shares (read-only: a field is
filled by assigning a new container, never in place)."""

UNDECODED: Final = _calls.UNDECODED
"""``RareFields.metadata`` when none was set in code: the metadata is read from the attribute text."""

NO_CALLS: Final[Mapping[str, list[HloComputation]]] = MappingProxyType({})
"""The called computations of an instruction that calls none, shared (read-only: replaced, never
edited in place)."""
CALLS: Final = _calls.Calls  # the interpreted class as a C static (compiled core), as packed_fields.USERS


RARE_SLOTS: Final = ("literal", "frontend_attributes", "output_to_operand_aliasing", "operand_shapes_text",
                     "control_predecessors", "metadata", "number", "called")
""":class:`RareFields`' fields, named outside the class (a compiled core reads no ``__slots__``
through the class object)."""


class RareFields:
    """The rare fields of one instruction.  ``metadata`` is the decoded value only where code set
    it (:meth:`HloInstruction.copy_metadata_from`); a parsed instruction decodes its text per read."""

    __slots__ = RARE_SLOTS

    def __init__(self) -> None:
        self.literal: str | None = None
        self.frontend_attributes: Mapping[str, str] = NO_STRINGS
        self.output_to_operand_aliasing: Sequence[tuple[tuple[int, ...], int, tuple[int, ...]]] = ()
        self.operand_shapes_text: tuple[str, ...] | None = None
        self.control_predecessors: Sequence[HloInstruction] = ()
        self.metadata: OpMetadata | object | None = UNDECODED
        self.number: int | str | None = None
        """A parameter's number, a get-tuple-element's index or a custom call's target (one field
        for the three, as no instruction has two: XLA's parser takes each on its own opcode only)."""
        self.called: Mapping[str, list[HloComputation]] = NO_CALLS
        """The called computations of an instruction that also has another rare field (one that
        has only calls keeps its :class:`~.calls.Calls` in ``_extra``: :class:`RareFieldAccess`)."""

    def detached(self) -> RareFields:
        """A copy for a detached instruction: every field but the control edges and the calls
        (graph links), containers one level deep (compiled from ``__slots__`` as the
        instruction's copy is)."""
        new = RareFields.__new__(RareFields)
        _copy_rare(self, new)
        new.control_predecessors = ()
        new.called = NO_CALLS
        return new


class SharedRareFields(RareFields):
    """Rare fields several instructions hold at once: the parser gives every instruction with the
    same scalar literal, or the same frontend attributes read from the same attribute text, one of
    these (jax_entry: a third of its instructions had a :class:`RareFields` of their own, 80 bytes
    each).  Never written: the first write through an instruction copies it into the instruction's
    own :class:`RareFields` (:meth:`RareFieldAccess._extras`); a detached copy shares it too."""

    __slots__ = ()

    def detached(self) -> RareFields:
        return self  # never written, and holds no control edge nor call

    @classmethod
    def holding(cls, literal: str | None = None, frontend_attributes: Mapping[str, str] = NO_STRINGS,
                number: int | str | None = None) -> SharedRareFields:
        """One for a literal, frontend attributes and/or a number (a target), every other field empty."""
        shared = cls()
        shared.literal = literal
        shared.frontend_attributes = frontend_attributes
        shared.number = number
        return shared


def only_literal_or_frontend(extra: RareFields | _calls.Calls) -> bool:
    """Whether ``extra`` holds nothing but a literal, frontend attributes and a number (what may be
    shared)."""
    return type(extra) is not CALLS and (extra.metadata is UNDECODED and not extra.output_to_operand_aliasing
                                         and extra.operand_shapes_text is None and not extra.control_predecessors
                                         and not extra.called)


def calls_in(extra: RareFields | _calls.Calls | None) -> Mapping[str, list[HloComputation]]:
    """The called computations held in an instruction's rare-fields slot ``extra`` (its
    ``_extra``), the shared empty map where none: the ``called`` property's read, for the walks
    that read the slot once for several fields.  The one place that knows the store's two forms
    (a :class:`~.calls.Calls` alone, or :class:`RareFields`' ``called``); compiled, ``type(extra)
    is CALLS`` (a ``Final``) narrows ``extra`` to the native class, so its field is a native read.
    The walks that ask it of every instruction (the caller index, the copy's link, the verifier,
    ``called_computations``) spell it inline and name it: interpreted, a Python call there was
    +1.8% of the analysis (``jax_entry`` 10k and the unrolled step, cachegrind; branch h52c)."""
    if extra is None:
        return NO_CALLS
    return extra if type(extra) is CALLS else extra.called


def calls_anything(extra: RareFields | _calls.Calls | None) -> bool:
    """Whether the rare-fields slot ``extra`` holds a call (most instructions' is None, or holds
    a literal or a number only): the walks that visit callees ask it of every instruction, so that
    most make no list (``called_computations``) and read no property.  The walks over every
    instruction (the inliner's, legalize's, the offloader's, conditional code motion's, a
    removal's) spell it inline and name it, as :func:`calls_in`'s do, for the same reason."""
    return extra is not None and (type(extra) is CALLS or bool(extra.called))


SHARED_NUMBERS: Final[dict[int | str, SharedRareFields]] = {}
"""The shared rare fields holding only a number (a parameter's, a get-tuple-element's index) or a
custom call's target, by value, made at first use and kept for the process: a program spells a
few targets and small numbers on thousands of lines, and each instruction held them in a slot of
its own before (issue 36 item 3).  Bounded (:data:`_MAX_SHARED_NUMBERS`): past it, an
instruction's own :class:`RareFields` holds the value."""
_MAX_SHARED_NUMBERS: Final = 4096


def shared_number(number: int | str) -> SharedRareFields | None:
    """The shared rare fields holding only ``number``; None once the table is full and lacks it."""
    shared = SHARED_NUMBERS.get(number)
    if shared is None and len(SHARED_NUMBERS) < _MAX_SHARED_NUMBERS:
        shared = SHARED_NUMBERS[number] = SharedRareFields.holding(number=number)
    return shared


class RareFieldAccess:
    """The rare fields as :class:`~.instruction.HloInstruction` attributes: the shared empty value
    while there is no :class:`RareFields`, which the first write makes.

    ``_extra`` is ``None``, a :class:`RareFields` (its own or shared), or, for an instruction that
    calls computations and has no other rare field, its :class:`~.calls.Calls` (jax_entry: one
    instruction in ten is a ``call`` or a ``reduce``, none with another rare field), which reads as
    empty rare fields.  The calls and the numbers left the instruction's own slots for this store:
    two slots fewer on every instruction, a 112-byte object where 12 slots were 128 (issue 36 item 3)."""

    __slots__ = ()
    _extra: RareFields | _calls.Calls | None

    def _extras(self) -> RareFields:
        extra = self._extra
        if extra is None:
            own = self._extra = RareFields()  # type: ignore[misc]  # the slot is the instruction's
            return own
        if type(extra) is RareFields:
            return extra
        if type(extra) is CALLS:  # the calls alone: now beside other fields
            own = RareFields()
            own.called = extra
        else:  # shared (SharedRareFields): this instruction's own copy first
            own = RareFields.__new__(RareFields)
            _copy_rare(extra, own)
            own.control_predecessors = extra.control_predecessors
            own.called = NO_CALLS
        self._extra = own  # type: ignore[misc]
        return own

    @property
    def called(self) -> Mapping[str, list[HloComputation]]:
        """Called computations by role (``to_apply``, ``calls``, ``body``, ``condition``, ...);
        replaced, never edited in place (the empty one is shared)."""
        return calls_in(self._extra)

    @called.setter
    def called(self, value: Mapping[str, list[HloComputation]]) -> None:
        extra = self._extra
        if extra is None or type(extra) is CALLS:
            self._extra = CALLS(value) if value else None  # type: ignore[misc]
        elif value or type(extra) is RareFields:  # a shared one calls nothing already
            self._extras().called = value if value else NO_CALLS

    def _number(self) -> int | str | None:
        """A parameter's number, a get-tuple-element's index or a custom call's target: one field of
        the rare fields for the three, as no instruction has two (XLA's parser takes each on its
        own opcode only); read and written by :mod:`.packed_fields`' properties."""
        extra = self._extra
        return None if extra is None or type(extra) is CALLS else extra.number  # CALLS: a class attribute, None

    def _set_number(self, value: int | str | None) -> None:
        """The number field's one write: an instruction without other rare fields takes the shared
        fields holding the value (:func:`shared_number`)."""
        extra = self._extra
        if extra is None or (type(extra) is SharedRareFields and extra.literal is None
                             and not extra.frontend_attributes):  # the number alone
            if value is None:
                self._extra = None  # type: ignore[misc]
                return
            shared = shared_number(value)
            if shared is not None:
                self._extra = shared  # type: ignore[misc]
                return
        elif value is None and extra.number is None:
            return
        self._extras().number = value

    @property
    def literal(self) -> str | None:
        """For ``constant(...)``: the literal text between the parentheses."""
        extra = self._extra
        return None if extra is None else extra.literal

    @literal.setter
    def literal(self, value: str | None) -> None:
        self._extras().literal = value

    @property
    def frontend_attributes(self) -> Mapping[str, str]:
        """Decoded ``frontend_attributes``; replaced, never edited in place (the empty one is shared)."""
        extra = self._extra
        return NO_STRINGS if extra is None else extra.frontend_attributes

    @frontend_attributes.setter
    def frontend_attributes(self, value: Mapping[str, str]) -> None:
        self._extras().frontend_attributes = value

    @property
    def output_to_operand_aliasing(self) -> Sequence[tuple[tuple[int, ...], int, tuple[int, ...]]]:
        """``(output shape index, operand number, operand shape index)`` triples."""
        extra = self._extra
        return () if extra is None else extra.output_to_operand_aliasing

    @output_to_operand_aliasing.setter
    def output_to_operand_aliasing(self, value: Sequence[tuple[tuple[int, ...], int, tuple[int, ...]]]) -> None:
        self._extras().output_to_operand_aliasing = value

    @property
    def operand_shapes_text(self) -> tuple[str, ...] | None:
        """Operand shapes as written by older printers (``f32[2]{0} %x``), else ``None``."""
        extra = self._extra
        return None if extra is None else extra.operand_shapes_text

    @operand_shapes_text.setter
    def operand_shapes_text(self, value: tuple[str, ...] | None) -> None:
        self._extras().operand_shapes_text = value

    @property
    def control_predecessors(self) -> Sequence[HloInstruction]:
        """Replaced, never edited in place (most instructions have none: one shared empty tuple)."""
        extra = self._extra
        return () if extra is None else extra.control_predecessors

    @control_predecessors.setter
    def control_predecessors(self, value: Sequence[HloInstruction]) -> None:
        extra = self._extra
        if value or type(extra) is RareFields:  # none, the calls alone and a shared one hold () already
            self._extras().control_predecessors = value


def compile_field_copy(slots: list[str], atomic: Collection[str] = ()) -> Callable[[Any, Any], None]:
    """``copy(src, dst)`` assigning each of ``slots`` from ``src`` to ``dst`` (a dict or list copied
    one level deep, ``atomic`` slots as they are, an instruction's ``_extra`` by
    :meth:`RareFields.detached`), as straight-line code: the way ``dataclasses`` builds
    ``__init__`` (a ``getattr``/``setattr`` loop made copying a module four times slower)."""
    lines = ["def copy(src, dst):"]
    for slot in slots:
        if not slot.isidentifier():
            raise ValueError(f"not a field name: {slot!r}")
        if slot in atomic:
            lines.append(f"    dst.{slot} = src.{slot}")
            continue
        if slot == "_extra":
            lines.append("    v = src._extra")
            lines.append("    dst._extra = None if v is None else v.detached()")
            continue
        lines.append(f"    v = src.{slot}")
        lines.append(f"    dst.{slot} = v.copy() if v.__class__ is dict or v.__class__ is list else v")
    namespace: dict[str, Callable[[Any, Any], None]] = {}
    exec("\n".join(lines), {}, namespace)  # the source is built from __slots__ only
    return namespace["copy"]


EXTRA_COPIED = [s for s in RARE_SLOTS if s not in ("control_predecessors", "called")]
"""The rare fields a detached copy keeps (control edges and calls are graph links)."""
_copy_rare = compile_field_copy(EXTRA_COPIED)
