"""The state of one HostOffloadLegalize run, its result types, and its edits of the graph.

See :mod:`..host_offload_legalize` for the pass; :mod:`.chain` walks the offload chains and
:mod:`.copies` moves the copies found in them.
"""

from __future__ import annotations

from collections.abc import Callable

from ....ir.computation import HloComputation
from ....ir.instruction import HloInstruction
from ....ir.module import HloModule
from ....ir.opcodes import BITCAST, COPY, DYNAMIC_SLICE, RESHAPE, SLICE, WHILE
from ....ir.shape import Layout, Shape
from ....ir.value import replace
from ...kinds import CopyMove, LegalizePhase
from ...result import PassFailure
from ..host_offload_utils import XlaCheckFailure
from ..pass_state import PassRecorder, PassState

SLICES = (SLICE, DYNAMIC_SLICE)
PASS_THROUGH = (BITCAST, COPY, DYNAMIC_SLICE, RESHAPE, SLICE)
_MAX_NAMES_IN_NOTE = 8

Value = tuple[HloInstruction, int]
"""XLA's ``InstructionAndIndex``: an instruction and a top-level tuple index (-1: the whole value)."""


class Unrecognized(Exception):
    """A status XLA's walk helpers return: the chain is not understood (the caller decides)."""

    def __init__(self, message: str, instruction: HloInstruction | None = None):
        super().__init__(message)
        self.message = message
        self.instruction = instruction


class LegalizeNote:
    """A chain HostOffloadLegalize gave up on (XLA logs it at VLOG level only).

    This module's records are written out, not dataclasses (start-up, issue 36: each cost ~0.5 ms
    of every ``offload`` run to make): compared, hashed and printed as the dataclasses were (the
    result's ``repr`` is what bench/pass_states.py digests); not frozen (mypyc), never assigned."""

    start: str
    """The starting instruction of the chain (MoveToHost or streamed entry parameter)."""
    phase: LegalizePhase
    """``walk-up`` (from a DUS to its buffer: chain skipped), ``walk-down`` (collecting copies:
    the walk stops there), ``consumer`` (a slice/dynamic-slice with no MoveToDevice after it:
    chain skipped), ``move-down`` (moving a copy: it stops there, the copy is removed anyway)."""
    message: str
    """XLA's status text, e.g. ``Unrecognized user name: tanh.3``."""
    instruction: str | None

    def __init__(self, start: str, phase: LegalizePhase, message: str, instruction: str | None = None) -> None:
        self.start = start
        self.phase = phase
        self.message = message
        self.instruction = instruction

    def _key(self) -> tuple[object, ...]:
        return (self.start, self.phase, self.message, self.instruction)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, LegalizeNote) and type(other) is type(self) \
            else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"LegalizeNote(start={self.start!r}, phase={self.phase!r}, message={self.message!r}, "
                f"instruction={self.instruction!r})")


class LegalizeMove:
    """What happened to one layout-changing copy found in an offload chain."""

    copy: str
    action: CopyMove
    """``moved-down`` (now after the MoveToDevices), ``moved-up`` (swapped above its
    MoveToHost), ``kept`` (it reaches the program end or a host computation and does not
    read a MoveToHost directly)."""
    start: str
    new_copies: tuple[str, ...]
    """Copies created after the MoveToDevices (``moved-down``)."""
    after: tuple[str, ...]
    """The MoveToDevice each new copy follows, as named in the input."""
    shapes: tuple[tuple[str, str], ...]
    """Per new copy: the MoveToDevice's shape (the layout from before the copy), the copy's shape."""

    def __init__(self, copy: str, action: CopyMove, start: str, new_copies: tuple[str, ...] = (),
                 after: tuple[str, ...] = (), shapes: tuple[tuple[str, str], ...] = ()) -> None:
        self.copy = copy
        self.action = action
        self.start = start
        self.new_copies = new_copies
        self.after = after
        self.shapes = shapes

    def _key(self) -> tuple[object, ...]:
        return (self.copy, self.action, self.start, self.new_copies, self.after, self.shapes)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, LegalizeMove) and type(other) is type(self) \
            else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"LegalizeMove(copy={self.copy!r}, action={self.action!r}, start={self.start!r}, "
                f"new_copies={self.new_copies!r}, after={self.after!r}, shapes={self.shapes!r})")


class LegalizeResult:
    """Everything the pre-pass did; ``changed`` is XLA's return value.  Compared and printed by its
    fields, and unhashable (``__eq__`` without ``__hash__``), as the unfrozen dataclass it was."""

    changed: bool
    starts: list[str]
    moves: list[LegalizeMove]
    notes: list[LegalizeNote]
    rerouted: list[str]
    """``root{k}``: while-body root slots that now carry the loop value instead of its MoveToDevice."""
    removed: list[str]
    failures: list[PassFailure]
    """Errors that fail compilation, CHECK crashes (never ``first``: HostOffloader's verdict decides)."""
    warnings: list[str]
    """Failures the pass would return unless an earlier pass removes the pattern (see
    :mod:`.branches`): said, not predicted."""

    def __init__(self) -> None:
        self.changed = False
        self.starts = []
        self.moves = []
        self.notes = []
        self.rerouted = []
        self.removed = []
        self.failures = []
        self.warnings = []

    def _key(self) -> tuple[object, ...]:
        return (self.changed, self.starts, self.moves, self.notes, self.rerouted, self.removed, self.failures,
                self.warnings)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, LegalizeResult) and type(other) is type(self) \
            else NotImplemented

    def __repr__(self) -> str:
        return (f"LegalizeResult(changed={self.changed!r}, starts={self.starts!r}, moves={self.moves!r}, "
                f"notes={self.notes!r}, rerouted={self.rerouted!r}, removed={self.removed!r}, "
                f"failures={self.failures!r}, warnings={self.warnings!r})")


def layout_of(shape: Shape) -> Layout:
    return shape.effective_layout


class LegalizeState(PassState):
    """One run of HostOffloadLegalize over ``module`` (a private copy: it is rewritten).

    The module, call graph and ``rn`` are :class:`~..pass_state.PassState`'s; failures go
    through ``rec`` as HostOffloader's do.
    """

    def __init__(self, module: HloModule, rename: Callable[[str], str] | None = None):
        super().__init__(module, rename)
        self.res = LegalizeResult()
        self.rec = PassRecorder(self, self.res.failures)
        self.removed: set[HloInstruction] = set()
        self.processed: set[HloInstruction] = set()
        self.start_name = ""
        self.clone_of: dict[str, str] = {}
        """Annotation clone name -> the input instruction it stands for (for reporting)."""

    # -------------------------------------------------------------- IR edits
    def new_name(self, base: str) -> str:
        return self.module.numbered_name(base)

    def clone(self, of: HloInstruction, shape: Shape, operands: list[HloInstruction],
               comp: HloComputation) -> HloInstruction:
        """``CloneWithNewOperands`` + ``AddInstruction``: same fields, a uniquified name."""
        new = of.clone_with_new_operands(shape, operands, self.new_name(of.name))
        self.clone_of[new.name] = self.clone_of.get(of.name, of.name)
        comp.add_instruction(new)
        return new

    def new_copy(self, operand: HloInstruction, shape: Shape) -> HloInstruction:
        new = HloInstruction(self.new_name("copy"), COPY, shape)
        operand.computation().add_instruction(new)
        new.operands = (operand,)
        return new

    def remove(self, instr: HloInstruction) -> None:
        if instr in self.removed:
            return
        instr.operands = ()
        self.removed.add(instr)
        self.res.removed.append(self.rn(instr.name))

    def purge(self) -> None:
        """Drop removed instructions from their computations, once (keeps the pass linear)."""
        by_comp: dict[HloComputation, set[HloInstruction]] = {}
        for i in self.removed:
            if i.parent is not None:
                by_comp.setdefault(i.parent, set()).add(i)
        for comp, removed in by_comp.items():
            comp.drop_removed(removed)

    @staticmethod
    def replace_use(instr: HloInstruction, user: HloInstruction, new: HloInstruction) -> None:
        """``ReplaceUseWithDifferentShape``: every slot of ``user`` holding ``instr``."""
        user.operands = tuple([new if o is instr else o for o in user.operands])

    def set_layout(self, v: Value, layout: Layout) -> None:
        """``UpdateInstructionLayout``: a while also updates its body root and condition parameter."""
        instr, index = v
        shape = instr.shape
        if index == -1:
            if not shape.is_array:
                raise XlaCheckFailure(f"Check failed: shape has no layout ({instr.name} is {shape})", instr)
            instr.shape = shape.with_layout(layout)
        else:
            if not shape.is_tuple or index >= len(shape.tuple_shapes) or \
                    not shape.tuple_shapes[index].is_array:
                raise XlaCheckFailure(f"Check failed: tuple index {index} of {instr.name} is not an array", instr)
            parts = list(shape.tuple_shapes)
            parts[index] = parts[index].with_layout(layout)
            instr.shape = replace(shape, tuple_shapes=tuple(parts))
        if instr.opcode is WHILE:
            body, cond = instr.called["body"][0], instr.called["condition"][0]
            for target in (body.root, cond.parameters[0]):
                if target is not None and target is not instr:
                    self.set_layout((target, index), layout)

    def note(self, phase: LegalizePhase, message: str, instr: HloInstruction | None = None) -> None:
        self.res.notes.append(LegalizeNote(self.start_name, phase, message,
                                           self.rn(instr.name) if instr is not None else None))

    def callers_text(self, comp: HloComputation, callers: list[HloInstruction]) -> str:
        names = [c.name for c in callers[:_MAX_NAMES_IN_NOTE]]
        if len(callers) > _MAX_NAMES_IN_NOTE:
            names.append("...")
        return (f'Expected computation "{comp.name}" to be called only by one caller and that caller to be a '
                f"While. There are {len(callers)} caller(s): [{', '.join(names)}]")
