"""HloInstruction: one line of an HLO computation, with operands and users as references.

One class for every opcode (no subclass per opcode as in XLA's C++): the attributes are kept as XLA printed
them (``attributes``: name -> raw text, in order) so printing reproduces them, and the few that analyses need
are parsed into typed fields (``tuple_index``, ``custom_call_target``, ``frontend_attributes``, ``metadata``,
``output_to_operand_aliasing``, called computations by role).

Invariant: operands and users are written by this class's methods only -- the ``operands`` setter
(:meth:`HloInstruction._set_operands`, the one write path), :meth:`replace_operand`,
:meth:`replace_all_uses_with` and :meth:`HloInstruction.unlink` -- so each link has its reverse (checked by
:meth:`HloModule.lint <xladoctor.ir.module.HloModule.lint>`).  ``users`` reads in XLA's order
(``HloInstruction::Users``; a :class:`~.users.Users`, or the one user kept bare): a new user is appended, a
removed user's slot is taken by the last user; HostOffloader decides in that order, so rewrites must leave the
order XLA's would.  Every write is O(operands changed): a ROOT tuple of thousands of operands has each use
replaced in O(1) (:class:`~.operands.WideOperands`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from . import opcode_rules as _opcode_rules
from .metadata import OpMetadata, SourceLocation
from .opcodes import CUSTOM_CALL, HloOpcode
from .operands import WIDE, WideOperands
from .packed_fields import NO_USERS, NOWHERE, PACKED_SLOTS, PackedFieldAccess
from .rare_fields import CALLS, EXTRA_COPIED, UNDECODED
from .rare_fields import NO_CALLS as NO_CALLS  # re-exported: the parser and the passes import it from here
from .shape import Shape
from .users import Users

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .computation import HloComputation
    from .metadata import MetadataCodec

# The empty values of the fields most instructions leave empty are shared by all of them (``NO_CALLS``,
# :mod:`.rare_fields`; four empty containers per instruction were 240 of the ~1,200 bytes a parsed instruction
# took).  They are read-only, so a field is filled by assigning a new container, never in place.

# Attribute names that refer to called computations: an opcode fact, kept with the others.
CALLED_COMPUTATION_ROLES = _opcode_rules.CALLED_COMPUTATION_ROLES

COMPILED: Final = not __file__.endswith(".py")
"""Whether this module runs compiled (the opt-in mypyc build, README): an extension module's
``__file__`` is the shared library."""

_OWN_SLOTS: Final = ("name", "opcode", "shape", "_operands", "_attributes", "parent", "_extra")
INSTRUCTION_SLOTS: Final = _OWN_SLOTS + PACKED_SLOTS
""":class:`HloInstruction`'s fields (its own and :class:`~.packed_fields.PackedFieldAccess`'s), named outside the
class: a compiled core (mypyc, README) reads no ``__slots__`` through the class object."""


class HloInstruction(PackedFieldAccess):
    """An HLO instruction.  Identity semantics: two instructions are never "equal" by value.

    Attribute and metadata text is HLO syntax, read and written one layer up, in ``syntax/``:
    the parser makes instructions of its subclass
    (:class:`xladoctor.syntax.instruction_line.ParsedInstruction`), which keeps that text as read
    and supplies the reader (:meth:`_read_attribute_text`, :meth:`_metadata_codec`); copies keep
    the class.  An instruction built in code holds no such text, so it needs no reader, and the
    IR never imports the layer that reads it (nor is anything installed into it at import).
    """

    __slots__ = _OWN_SLOTS

    def __init__(self, name: str, opcode: HloOpcode, shape: Shape):
        # The fields the bases declare (``_users``, ``_where``, ``_line_off``,
        # ``_extra``) are assigned here without an annotation: mypyc takes an annotated assignment
        # as a second declaration and its collector's traverse then visits the field twice, so
        # a parsed module was never freed in the compiled core (tests/test_compiled_core.py).
        self.name = name
        """Unique within the module (XLA requires module-wide unique names)."""
        self.opcode = opcode
        self.shape = shape
        self._operands: tuple[HloInstruction, ...] | HloInstruction | WideOperands = ()
        """The operands: a tuple; the one operand itself where there is one (most instructions:
        a one-element tuple each was 48 bytes); while uses of a wide instruction's operands are
        being replaced, a :class:`~.operands.WideOperands` (a list with an index)."""
        self._users = NO_USERS
        """The users (see :attr:`users`): the shared empty :data:`~.users.NO_USERS` until the
        first user, that user itself while it is the only one (jax_entry: four instructions in
        five have exactly one, and a ``Users`` each was 80 bytes), a :class:`~.users.Users` of
        its own from the second on (kept from then, as XLA keeps its vector)."""
        self._attributes: dict[str, str] | str = ""  # none yet: the dict is made when first asked for
        """The ``attributes`` dict, or the text it is read from on first use (see :meth:`attributes`)."""
        self.parent: HloComputation | None = None
        self._where = NOWHERE
        """``(line, col)`` that :attr:`line` counts from, shared (see :meth:`set_position`)."""
        self._line_off = 0
        """:attr:`line` minus ``_where``'s line: 0..255, an int Python keeps one of."""
        self._extra = None
        """The fields few instructions have (:class:`RareFields`), made when one is first set, or
        the called computations alone (:attr:`called`, the parameter's number, the get-tuple-element's
        index and the custom call's target live there too: :mod:`.rare_fields`)."""

    def detached_copy(self) -> HloInstruction:
        """A copy of every field except the graph links (operands, users, parent, called
        computations, control predecessors), which start empty for the caller to fill.

        Goes field by field (:meth:`_copy_fields_to`; tests/test_ir_bulk_removal.py checks that
        it names every slot but the graph links), and the attributes dict is copied so the two
        instructions can be edited apart.  Copying every instruction of a module is most of
        ``clone_module``: a ``getattr`` / ``setattr`` loop made it four times slower.
        """
        cls = type(self)
        # A compiled class's ``__new__`` runs ``__init__`` (mypyc), which needs the arguments.
        new = cls(self.name, self.opcode, self.shape) if COMPILED else cls.__new__(cls)
        try:
            self._copy_fields_to(new)
        except AttributeError:  # a field never set (not by ``__init__``): copy what is there
            new._extra = None
            for slot in _COPIED_SLOTS:
                value = getattr(self, slot, _MISSING)
                if value is _MISSING:
                    continue
                if type(value) is dict or type(value) is list:
                    value = value.copy()
                setattr(new, slot, value)
            if getattr(self, "_extra", None) is not None:
                new._set_number(self._number())
        new._operands = ()
        new._users = NO_USERS
        new.parent = None
        return new

    def _copy_fields_to(self, new: HloInstruction) -> None:
        """Each of :data:`COPIED_FIELDS` from this instruction to ``new``, as plain assignments:
        compiled, each is a native field read and write (the copy ``exec``'d from ``__slots__``
        it replaces ran interpreted, through each field's descriptor: ~4% of the compiled
        core's ``offload`` on a train step)."""
        new.name = self.name
        new.opcode = self.opcode
        new.shape = self.shape
        attributes = self._attributes
        new._attributes = attributes.copy() if type(attributes) is dict else attributes
        extra = self._extra  # the calls alone (Calls) are graph links: detached, None
        new._extra = None if extra is None else extra.detached()
        new._where = self._where
        new._line_off = self._line_off

    def clone_with_new_operands(self, shape: Shape, operands: Sequence[HloInstruction],
                                name: str) -> HloInstruction:
        """XLA's ``CloneWithNewOperands``: a copy of this instruction (every field, the called
        computations too) of ``shape`` on ``operands``, named ``name`` (the caller's uniquer gives
        it), in no computation yet; control predecessors are not copied, as in XLA."""
        new = self.detached_copy()
        new.name = name
        new.shape = shape
        if self.called:
            new.called = {role: list(comps) for role, comps in self.called.items()}
        new.link_operands(tuple(operands))
        return new

    def set_called_computations(self, called: Mapping[str, list[HloComputation]]) -> None:
        """The called computations by role (XLA's ``set_called_computation``/``ReplaceCalledComputations``):
        the one write of :attr:`called`, which keeps the module's caller index in step."""
        if called and self._extra is None:  # the common case (the parser's): the calls alone, no property call
            self._extra = called if type(called) is CALLS else CALLS(called)
        else:
            self.called = called
        comp = self.parent
        if comp is not None and comp.module is not None:
            comp.module.calls_changed()

    # -- fields that only some instructions have; XLA's accessors CHECK them ---------------
    def computation(self) -> HloComputation:
        """XLA's ``parent()`` where the caller needs one: every parsed or inserted instruction has it."""
        if self.parent is None:
            raise ValueError(f"instruction '{self.name}' is in no computation")
        return self.parent

    def gte_index(self) -> int:
        """XLA's ``tuple_index()``: the ``index=N`` of a get-tuple-element."""
        if self.tuple_index is None:
            raise ValueError(f"instruction '{self.name}' has no tuple index")
        return self.tuple_index

    def param_number(self) -> int:
        """XLA's ``parameter_number()``: the ``N`` of ``parameter(N)``."""
        if self.parameter_number is None:
            raise ValueError(f"instruction '{self.name}' is not a numbered parameter")
        return self.parameter_number

    # -- operands and users: the single write path -----------------------------------
    @property
    def operands(self) -> tuple[HloInstruction, ...]:
        ops = self._operands
        cls = type(ops)
        if cls is tuple:
            return ops  # type: ignore[return-value]
        if cls is WideOperands:
            return ops.as_tuple()  # type: ignore[union-attr]
        return (ops,)  # type: ignore[return-value]  # the one operand, kept bare

    @operands.setter
    def operands(self, new: tuple[HloInstruction, ...] | list[HloInstruction]) -> None:
        self._set_operands(tuple(new))

    def _set_operands(self, new: tuple[HloInstruction, ...]) -> None:
        """The one write path of operand lists, O(old + new): an operand that stays keeps its
        place among its users; one that goes loses this user by ``RemoveUser`` (the last user
        takes its slot); a new one gets this user appended (``AddUser``)."""
        old = self.operands
        if old:
            kept: tuple[HloInstruction, ...] | set[HloInstruction] = new if len(new) <= WIDE else set(new)
            for op in old:
                if op not in kept:
                    op._lose_user(self)
        self._operands = new[0] if len(new) == 1 else new
        for op in new:
            if op._users is NO_USERS:
                op._users = self
            else:
                op._gain_user(self)

    def drop_operands(self) -> None:
        """``operands = ()`` as :meth:`_set_operands` does it (each operand loses this user, in order),
        without the setter's empty tuple and the old operands read through the property (every removal)."""
        ops, cls = self._operands, type(self._operands)
        for op in ops if cls is tuple else ops.as_tuple() if cls is WideOperands else (ops,):  # type: ignore[union-attr]
            op._lose_user(self)  # type: ignore[union-attr]
        self._operands = ()

    def link_operands(self, new: tuple[HloInstruction, ...]) -> None:
        """The operands of an instruction that has none yet (a fresh copy): the write path
        without reading the old list (``clone_module`` links every instruction of a module)."""
        ops = self._operands
        if type(ops) is not tuple or ops:
            self._set_operands(new)
            return
        self._operands = new[0] if len(new) == 1 else new
        for op in new:
            if op._users is NO_USERS:  # its first user, inline: the parser links every operand here
                op._users = self
            else:
                op._gain_new_user(self)

    def operand(self, i: int) -> HloInstruction:
        ops = self._operands
        cls = type(ops)
        if cls is tuple:
            return ops[i]  # type: ignore[index]
        if cls is WideOperands:
            return ops.items[i]  # type: ignore[union-attr]
        return (ops,)[i]  # type: ignore[return-value]

    def _wide_operands(self) -> WideOperands:
        """The operands as a :class:`~.operands.WideOperands`, made from the tuple at the first need."""
        ops = self._operands
        if type(ops) is not WideOperands:
            ops = self._operands = WideOperands(self.operands)
        return ops

    def replace_operand(self, index: int, new: HloInstruction) -> None:
        """``ReplaceOperandWith``: slot ``index`` now holds ``new``; O(1) for a wide instruction
        (its slot index, :class:`~.operands.WideOperands`), so returning one value N times is linear."""
        if type(self._operands) is not WideOperands:
            current = self.operands
            if len(current) <= WIDE:
                edited = list(current)
                edited[index] = new
                self._set_operands(tuple(edited))
                return
        wide = self._wide_operands()
        items = wide.items
        old = items[index]
        if old is new:
            return
        index %= len(items)
        items[index] = new
        wide.changed()
        slots = wide.slots[old]
        del slots[index]
        if not slots:  # ``old`` is used nowhere else here: it loses this user (``RemoveUser``)
            del wide.slots[old]
            old._lose_user(self)
        wide.slots.setdefault(new, {})[index] = None
        new._gain_user(self)

    def replace_all_uses_with(self, new: HloInstruction) -> list[HloInstruction]:
        """Point every user (and a ROOT position) at ``new``; returns the users changed.

        Per user as XLA's ``ReplaceUseWith``: this instruction loses the user by
        ``RemoveUser``, ``new`` gains it by ``AddUser``, every slot holding this one holds
        ``new`` -- the same links and order as assigning the rewritten operand list, in
        O(slots) for a wide user.

        XLA's guard for a ``new`` that is itself a user of this one (replacing ``x`` with
        ``copy(x)``): that use is left alone, so ``new`` stays this one's only user instead of
        becoming its own operand."""
        users = self._users  # the store: a bare user (most) needs no tuple nor comprehension
        changed: list[HloInstruction] = [u for u in users if u is not new] if type(users) is Users else \
            [users] if users is not new else []  # type: ignore[list-item]
        if new is not self:
            for user in changed:
                user._replace_uses(self, new)
        comp = self.parent
        if comp is not None and comp.root is self:
            comp.set_root_instruction(new)
        return changed

    def _replace_uses(self, old: HloInstruction, new: HloInstruction) -> None:
        """Every slot of this instruction holding ``old`` holds ``new``; links follow."""
        old._lose_user(self)
        new._gain_user(self)
        ops = self._operands
        cls = type(ops)
        if cls is not tuple and cls is not WideOperands:  # the one operand, kept bare
            if ops is old:
                self._operands = new
            return
        if cls is tuple and len(ops) <= WIDE:  # type: ignore[arg-type]
            if len(ops) == 2:  # type: ignore[arg-type]  # a binary op (most users): no generator to resume per operand
                a, b = ops  # type: ignore[misc]
                self._operands = (new if a is old else a, new if b is old else b)
            else:
                self._operands = tuple([new if o is old else o for o in ops])  # type: ignore[union-attr]
            return
        wide = self._wide_operands()
        slots = wide.slots.pop(old, None)
        if slots:
            items = wide.items
            for k in slots:
                items[k] = new
            wide.slots.setdefault(new, {}).update(slots)
            wide.changed()

    def sort_users(self, key: Callable[[HloInstruction], int]) -> None:
        """Order the users by ``key`` (stable; ``HloComputation.sort_users_by_position``)."""
        users = self._users
        if type(users) is Users:
            users.sort(key)

    @staticmethod
    def unlink(gone: set[HloInstruction]) -> None:
        """Take ``gone`` (used only by each other) out of the graph: each lets go of its operands,
        and every other operand drops them from its users keeping the others' order (the program
        rebuilt without them, as ``HloComputation.remove_unused`` models).  Each operand's users
        are filtered once, however many of them go: linear in the links removed."""
        touched: dict[int, HloInstruction] = {}
        for instr in gone:
            for op in instr.operands:
                if op not in gone:
                    touched[id(op)] = op
            instr._operands = ()
        for op in touched.values():
            op._lose_users(gone)

    # -- attributes (read lazily: a parsed instruction keeps its attribute text, one string) --
    @property
    def attributes(self) -> dict[str, str]:
        """Every ``name=value`` attribute after the operands, raw text, in printed order.

        The parser's fast path stores the attributes as the one slice of the line they were
        read from (``, name=value, ...``), having checked each of them as XLA's parser does;
        the dict is built from it on first use.  A dict of a few entries and one string per
        value took more than the text itself on every instruction, and analyses read the
        attributes of only a few (printing reads them all, once).
        """
        attrs = self._attributes
        if isinstance(attrs, str):
            attrs = self._attributes = self._read_attribute_text(attrs) if attrs else {}
        return attrs

    @attributes.setter
    def attributes(self, value: dict[str, str]) -> None:
        self._attributes = value

    def _read_attribute_text(self, text: str) -> dict[str, str]:
        """The attributes in ``text`` by name: only a parsed instruction holds such text."""
        raise TypeError(f"'{self.name}' holds attribute text but was not made by the HLO parser")

    def _metadata_codec(self) -> MetadataCodec:
        """The reader/writer of ``metadata={...}`` text: HLO syntax, a parsed instruction's."""
        raise TypeError(f"metadata of '{self.name}' needs the HLO syntax: set it with copy_metadata_from")

    def set_attribute_text(self, text: str) -> None:
        """Keep ``text`` (``, name=value, ...``, already checked by the parser) as the attributes."""
        self._attributes = text

    def may_have_attribute(self, name: str) -> bool:
        """False only where attribute ``name`` is surely absent: a parsed instruction's kept text
        does not hold the name at all (no dict is built).  Why: a test of one rare attribute on
        many instructions (dead-code elimination's side-effect flag of every dead custom call)
        need not decode each one's attributes."""
        attrs = self._attributes
        if isinstance(attrs, str):
            return name in attrs
        return name in attrs

    def _attribute_value(self, name: str) -> str | None:
        """Attribute ``name``'s raw text, without keeping the decoded dict (one attribute of every
        instruction read, as ``hlo``'s metadata); no split where the text lacks the name."""
        attrs = self._attributes
        if isinstance(attrs, str):
            return self._read_attribute_text(attrs).get(name) if name in attrs else None
        return attrs.get(name)

    # -- metadata (decoded on each read: a 100k-instruction module rarely needs more than a few,
    # and a summary that reads every one must not keep them all decoded) --------------------
    @property
    def metadata(self) -> OpMetadata | None:
        extra = self._extra
        if extra is not None and extra.metadata is not UNDECODED:
            return extra.metadata  # type: ignore[return-value]
        raw = self._attribute_value("metadata")
        return self._metadata_codec().decode(raw) if raw is not None else None

    @metadata.setter
    def metadata(self, value: OpMetadata | None) -> None:
        self._extras().metadata = value
        if value is None:
            self.attributes.pop("metadata", None)
        else:
            self.attributes["metadata"] = self._metadata_codec().encode(value)

    def copy_metadata_from(self, other: HloInstruction) -> None:
        """``other``'s metadata, decoded and as text (``set_metadata(other->metadata())``): the text
        is what ``other``'s own writer makes of it, so an instruction built in code can take it."""
        md = other.metadata
        self._extras().metadata = md
        if md is None:
            self.attributes.pop("metadata", None)
        else:
            self.attributes["metadata"] = other._metadata_text(md)

    def _metadata_text(self, md: OpMetadata) -> str:
        """``metadata``'s text: an instruction built in code only holds what it copied (the text
        for ``md``); a parsed one writes it (overridden)."""
        return self.attributes["metadata"]

    # -- queries -------------------------------------------------------------------
    @property
    def is_root(self) -> bool:
        return self.parent is not None and self.parent.root is self

    @property
    def called_computations(self) -> list[HloComputation]:
        extra = self._extra  # ``called``'s store, read without the property
        if extra is None:  # most instructions call nothing; the passes ask every one
            return []
        if type(extra) is CALLS:  # the calls alone (most callers): their own flat list, one call
            return extra.computations()
        called = extra.called  # RareFields' (the calls beside other fields), read as rare_fields.calls_in
        return [c for comps in called.values() for c in comps] if called else []

    def operand_indices(self, operand: HloInstruction) -> list[int]:
        """Every operand slot holding ``operand`` (an instruction may be used twice)."""
        ops = self.operands
        if len(ops) <= WIDE:
            return [i for i, o in enumerate(ops) if o is operand]
        wide = self._wide_operands()  # a wide user asked once per operand: its index, not a scan each time
        return sorted(wide.slots.get(operand, ()))

    def is_custom_call(self, *targets: str) -> bool:
        return self.opcode is CUSTOM_CALL and (not targets or self.custom_call_target in targets)

    def source_location(self) -> SourceLocation | None:
        """The Python file and line this instruction came from, if the module records it.

        Uses ``source_file``/``source_line`` from metadata when present, else the user's
        frame of ``stack_frame_id``'s stack in the module's StackFrames table (the line in the
        jitted function, not a helper's: :meth:`HloModule.user_frame_location`).
        """
        md = self.metadata
        if md is None:
            return None
        if md.source_file and md.source_line is not None:
            return SourceLocation(md.source_file, md.source_line, None, md.source_column)
        if md.stack_frame_id and self.parent is not None and self.parent.module is not None:
            return self.parent.module.user_frame_location(md.stack_frame_id, md.op_name)
        return None

    def stack(self) -> list[SourceLocation]:
        """The whole recorded Python stack for this instruction, innermost frame first."""
        md = self.metadata
        if md is None or not md.stack_frame_id or self.parent is None or self.parent.module is None:
            loc = self.source_location()
            return [loc] if loc else []
        return self.parent.module.stack_frames_for(md.stack_frame_id)

    def walk_operands(self) -> Iterator[HloInstruction]:
        yield from self.operands

    def __repr__(self) -> str:
        return f"<HloInstruction {self.name} = {self.shape} {self.opcode.value}>"


_GRAPH_SLOTS = {"_operands", "_users", "parent"}
_COPIED_SLOTS: Final = [s for s in INSTRUCTION_SLOTS if s not in _GRAPH_SLOTS and s != "_extra"] + \
    [s for s in EXTRA_COPIED if s not in ("metadata", "number")]
"""Every field :meth:`HloInstruction.detached_copy` copies, by the name it is read with."""
_MISSING: Final = object()
COPIED_FIELDS: Final = ("name", "opcode", "shape", "_attributes", "_extra", "_where", "_line_off")
"""The slots :meth:`HloInstruction._copy_fields_to` copies: every one but the graph links (a test
holds this to :data:`INSTRUCTION_SLOTS`, so a slot added later is not left out)."""
