"""The state one HostOffloader run carries, in small pieces passed explicitly.

XLA's ``HostOffloader`` is one class whose members the phases share
(``already_visited_move_to_host_custom_calls_``, ``dynamic_update_slices_seen_``,
``copies_created_after_``, ...).  Here each concern is its own object, and each phase
(:mod:`.start_discovery`, :mod:`.walk`, :mod:`.host_compute`, :mod:`.rewrites`,
:mod:`.verdict`) is a set of functions taking the :class:`OffloaderRun` that bundles
them, so a reader sees which phase touches which state:

* :class:`PassContext`: what the run reads and never changes (options, call graph, the
  input module for reporting names and source lines): a :class:`~..pass_state.PassState`,
  as HostOffloadLegalize's state is;
* :class:`Recorder`: the result being written, the VLOG switch, the first failure: a
  :class:`~..pass_state.PassRecorder`, so a failure is a :class:`~...result.PassFailure` in
  every pass;
* :class:`GraphEdits`: edits of the private copy (new instructions, lazy removals);
* :class:`MoveToHostBook` / :class:`HostComputeBook`: what earlier walks saw, which
  later walks and the dynamic-update-slice phase read.
"""

from __future__ import annotations

from ....ir.computation import HloComputation
from ....ir.instruction import HloInstruction
from ....ir.module import HloModule
from ....ir.opcodes import COPY, CUSTOM_CALL, HloOpcode
from ....ir.shape import HOST_MEMORY_SPACE, Shape, ShapeIndex, set_memory_space_in_place
from ...annotations import ALLOCATE_BUFFER
from ...kinds import FirstKind
from ...positions import Position
from ...result import HostOffloadResult, PathHop
from ...rules import SHIPPED
from ..pass_state import PassRecorder, PassState

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

DEVICE_MEMORY_SPACE: Final = 0


class OffloadOptions:
    """Switches that change the pass' decisions.

    This module's records are written out, not dataclasses (start-up, issue 36: each cost ~0.5 ms
    of every ``offload`` run to make); the options compare, hash and print as the frozen dataclass
    did (not frozen: mypyc; never assigned), the books and the run by identity (nothing compares them)."""

    rule: str
    """Program-end rule (:mod:`...rules`): ``shipped`` = any output reached by host memory
    whose layout is not host is E1200; ``unmerged-pr-36525`` = only when that layout is
    customized, else the output silently becomes host memory."""
    disable_host_compute: bool
    """``--xla_disable_automatic_host_compute_offload``."""
    allow_h2h_copy: bool
    """``--xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled``."""

    def __init__(self, rule: str = SHIPPED, disable_host_compute: bool = False, allow_h2h_copy: bool = False) -> None:
        self.rule = rule
        self.disable_host_compute = disable_host_compute
        self.allow_h2h_copy = allow_h2h_copy

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OffloadOptions) or type(other) is not type(self):
            return NotImplemented
        return (self.rule, self.disable_host_compute, self.allow_h2h_copy) == (
            other.rule, other.disable_host_compute, other.allow_h2h_copy)

    def __hash__(self) -> int:
        return hash((self.rule, self.disable_host_compute, self.allow_h2h_copy))

    def __repr__(self) -> str:
        return (f"OffloadOptions(rule={self.rule!r}, disable_host_compute={self.disable_host_compute!r}, "
                f"allow_h2h_copy={self.allow_h2h_copy!r})")


# ---------------------------------------------------------------------------- memory spaces
def memory_space(shape: Shape) -> int:
    return shape.layout.memory_space if shape.layout is not None else DEVICE_MEMORY_SPACE


def all_leaves_host(shape: Shape) -> bool:
    leaves = list(shape.leaves())
    return bool(leaves) and all(s.is_array and memory_space(s) == HOST_MEMORY_SPACE for _, s in leaves)


def memory_space_at(pos: Position) -> int | None:
    """Memory space of an array subshape; None for tuples (XLA: no layout to read)."""
    sub = pos.instruction.shape.subshape(pos.shape_index)
    return memory_space(sub) if sub.is_array else None


def set_memory_space(pos: Position, space: int) -> None:
    instr = pos.instruction
    instr.shape = set_memory_space_in_place(instr.shape, space, pos.shape_index, instr)


# ---------------------------------------------------------------------------- the pieces
class PassContext(PassState):
    """What one run reads and never changes (the module, call graph and ``rn`` of :class:`PassState`)."""

    def __init__(self, module: HloModule, original: HloModule, options: OffloadOptions,
                 origin: dict[str, str] | None):
        self.origin = origin or {}
        """Clones made by the call-inlining pre-pass -> the input instruction they copy."""
        super().__init__(module, self._input_name if self.origin else None)
        self.original = original
        self.options = options

    def _input_name(self, name: str) -> str:
        return self.origin.get(name, name)

    def input_instruction(self, name: str) -> HloInstruction | None:
        return self.original.get_instruction(self.origin.get(name, name))

    def hop(self, pos: Position) -> PathHop:
        instr = pos.instruction
        orig = self.input_instruction(instr.name)
        src = orig if orig is not None else instr
        comp = src.parent.name if src.parent is not None else ""
        return PathHop(self.rn(instr.name), pos.shape_index, src.opcode.value, hop_shape(src.shape, pos.shape_index),
                       src.source_location(), comp)

    def path(self, origin_instr: str, trace: list[Position]) -> tuple[PathHop, ...]:
        """The readable path: the origin (when the trace does not start there), then the trace."""
        hops = [self.hop(p) for p in trace]
        origin = self.input_instruction(origin_instr)
        if origin is not None and (not trace or trace[0].name != origin_instr):
            hops.insert(0, self.hop(Position(origin)))
        return tuple(hops)


WIDE_TUPLE = 16
"""A hop in a tuple of more elements names its element's shape, not the tuple's (:func:`hop_shape`)."""


def hop_shape(shape: Shape, index: ShapeIndex) -> str:
    """The shape a path hop shows: the instruction's, except inside a tuple of more than
    :data:`WIDE_TUPLE` elements, where it is the element's at ``index``: every output of a pytree
    of thousands of leaves has a path through its ROOT tuple, whose shape would be written once per
    output (the report and its JSON grew with the square of the outputs)."""
    if index and shape.is_tuple and len(shape.tuple_shapes) > WIDE_TUPLE and shape.has_index(index):
        return str(shape.subshape(index))
    return str(shape)


class Recorder(PassRecorder):
    """The result being written; VLOG lines are kept until XLA would have stopped."""

    def __init__(self, ctx: PassContext, res: HostOffloadResult):
        super().__init__(ctx, res.failures)
        self.ctx = ctx
        self.res = res
        self.logging = True

    def vlog(self, line: str) -> None:
        if self.logging:
            self.res.vlog.append(line)

    def first(self, kind: FirstKind) -> bool:
        """Whether this is what XLA reports (compilation stops at the first error)."""
        if self.res._first_kind is None:
            self.res._first_kind = kind
            self.logging = False
            return True
        return False

    def is_first_failure(self) -> bool:
        return self.first(FirstKind.FAILURE)


class GraphEdits:
    """Edits of the private copy: new instructions named as XLA's uniquer would, lazy removals."""

    def __init__(self, module: HloModule, res: HostOffloadResult):
        self.module = module
        self.res = res
        self.dead: set[HloInstruction] = set()
        """Removed instructions: they stay listed in their computation, without operands or users."""

    def add(self, comp: HloComputation, base: str, opcode: HloOpcode, shape: Shape,
            operands: list[HloInstruction]) -> HloInstruction:
        instr = HloInstruction(self.module.numbered_name(base), opcode, shape)
        comp.add_instruction(instr)
        instr.operands = tuple(operands)  # a compiled caller checks the write against the getter's type
        return instr

    def new_copy(self, of: HloInstruction, space: int) -> HloInstruction:
        return self.add(of.computation(), "copy", COPY, of.shape.with_memory_space(space), [of])

    def new_allocate_buffer(self, comp: HloComputation, shape: Shape) -> HloInstruction:
        ab = self.add(comp, "custom-call", CUSTOM_CALL, shape.with_memory_space(HOST_MEMORY_SPACE), [])
        ab.custom_call_target = ALLOCATE_BUFFER
        return ab

    def remove(self, instr: HloInstruction) -> None:
        """Rewire users to operand 0 and drop ``instr`` (lazily: it stays listed but dead)."""
        instr.replace_all_uses_with(instr.operands[0])
        instr.operands = ()
        self.dead.add(instr)
        self.res.removed.append(instr.name)


class MoveToHostBook:
    """What the walks did with MoveToHosts and copies (read by later walks)."""

    consumed: set[HloInstruction]
    """``already_visited_move_to_host_custom_calls_``: MoveToHosts a walk has taken care of."""
    redundant: set[HloInstruction]
    """MoveToHosts bypassed by ``HandleRedundantCopiesBackToHost``."""
    copies_after: dict[HloInstruction, HloInstruction]
    """``copies_created_after_``: the device-to-host copy already made for a value."""
    copy_inserted_before: set[tuple[HloInstruction, ShapeIndex, int]]

    def __init__(self) -> None:
        self.consumed = set()
        self.redundant = set()
        self.copies_after = {}
        self.copy_inserted_before = set()


class HostComputeBook:
    """Dynamic-update-slices the walks met and instructions already marked host compute."""

    dus_seen: dict[HloInstruction, None]
    """``dynamic_update_slices_seen_``, in the order met (an ordered set)."""
    dus_with_annotation: set[HloInstruction]
    dus_allocated: set[HloInstruction]
    host_compute_seen: set[HloInstruction]

    def __init__(self) -> None:
        self.dus_seen = {}
        self.dus_with_annotation = set()
        self.dus_allocated = set()
        self.host_compute_seen = set()


class OffloaderRun:
    """One HostOffloader run: the pieces above, and the entry result layout as it evolves."""

    ctx: PassContext
    rec: Recorder
    edits: GraphEdits
    mths: MoveToHostBook
    host: HostComputeBook
    ecl_result: Shape
    """The entry result layout; an offending output is treated as host memory once reported."""

    def __init__(self, ctx: PassContext, rec: Recorder, edits: GraphEdits, mths: MoveToHostBook,
                 host: HostComputeBook, ecl_result: Shape) -> None:
        self.ctx = ctx
        self.rec = rec
        self.edits = edits
        self.mths = mths
        self.host = host
        self.ecl_result = ecl_result

    @classmethod
    def start(cls, module: HloModule, original: HloModule, options: OffloadOptions,
              origin: dict[str, str] | None) -> OffloaderRun:
        ctx = PassContext(module, original, options, origin)
        res = HostOffloadResult(rule=options.rule)
        return cls(ctx, Recorder(ctx, res), GraphEdits(module, res), MoveToHostBook(), HostComputeBook(),
                   module.entry_layout().result)

    @property
    def res(self) -> HostOffloadResult:
        return self.rec.res
