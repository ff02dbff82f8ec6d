"""The fields few instructions have, kept apart from :class:`~.instruction.HloInstruction`'s slots.

Why: a parsed 100k-instruction module has a few constants, aliasing lists, control edges and
frontend attributes, and six slots for them on every instruction cost more than the rest of the
instruction.  An instruction holds one ``_extra`` slot, ``None`` until one of these is set; the
fields are read through :class:`RareFieldAccess`'s properties under their old names, so callers
are unchanged.  Also here: the straight-line slot copy both classes are copied with.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, Final

    from .instruction import HloInstruction, OpMetadata

NO_STRINGS: Final[Mapping[str, str]] = MappingProxyType({})
"""The empty frontend attributes every instruction without them shares (read-only: a field is
filled by assigning a new container, never in place)."""

UNDECODED: Final = object()
"""``RareFields.metadata`` when none was set in code: the metadata is read from the attribute text."""


RARE_SLOTS: Final = ("literal", "frontend_attributes", "output_to_operand_aliasing", "operand_shapes_text",
                     "control_predecessors", "metadata")
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

    def detached(self) -> RareFields:
        """A copy for a detached instruction: every field but the control edges (graph links),
        containers one level deep (compiled from ``__slots__`` as the instruction's copy is)."""
        new = RareFields.__new__(RareFields)
        _copy_rare(self, new)
        new.control_predecessors = ()
        return new


class SharedRareFields(RareFields):
    """Rare fields several instructions hold at once: the parser gives every instruction with the
    same scalar literal, or the same frontend attributes read from the same attribute text, one of
    these (jax_entry: a third of its instructions had a :class:`RareFields` of their own, 80 bytes
    each).  Never written: the first write through an instruction copies it into the instruction's
    own :class:`RareFields` (:meth:`RareFieldAccess._extras`); a detached copy shares it too."""

    __slots__ = ()

    def detached(self) -> RareFields:
        return self  # never written, and holds no control edge

    @classmethod
    def holding(cls, literal: str | None = None, frontend_attributes: Mapping[str, str] = NO_STRINGS) -> SharedRareFields:
        """One for a literal and/or frontend attributes, every other field empty."""
        shared = cls()
        shared.literal = literal
        shared.frontend_attributes = frontend_attributes
        return shared


def only_literal_or_frontend(extra: RareFields) -> bool:
    """Whether ``extra`` holds nothing but a literal and frontend attributes (what may be shared)."""
    return (extra.metadata is UNDECODED and not extra.output_to_operand_aliasing
            and extra.operand_shapes_text is None and not extra.control_predecessors)


class RareFieldAccess:
    """The rare fields as :class:`~.instruction.HloInstruction` attributes: the shared empty value
    while there is no :class:`RareFields`, which the first write makes."""

    __slots__ = ()
    _extra: RareFields | None

    def _extras(self) -> RareFields:
        extra = self._extra
        if extra is None:
            extra = self._extra = RareFields()  # type: ignore[misc]  # the slot is the instruction's
        elif type(extra) is not RareFields:  # shared (SharedRareFields): this instruction's own copy first
            own = RareFields.__new__(RareFields)
            _copy_rare(extra, own)
            own.control_predecessors = extra.control_predecessors
            extra = self._extra = own  # type: ignore[misc]
        return extra

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
        if value or (extra is not None and type(extra) is RareFields):  # a shared one holds () already
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


EXTRA_COPIED = [s for s in RARE_SLOTS if s != "control_predecessors"]
"""The rare fields a detached copy keeps (control edges are graph links)."""
_copy_rare = compile_field_copy(EXTRA_COPIED)
