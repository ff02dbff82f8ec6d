"""What the host-offload analysis decided, as plain values.

Everything here refers to instructions by *name* (names are module-unique), so a
result outlives the simulated copy of the module it was computed on and can be
printed, compared in tests and serialised to JSON without holding IR objects.
The frozen values are :class:`~xladoctor.ir.value.FrozenValue`'s, written out: as dataclasses
each cost ~0.3 ms of every ``offload`` run to make (issue 36 item 1), for the same equality,
hash, repr and ``replace``.
Instructions the pass would create (copies, AllocateBuffers, dynamic slices) are
named as XLA's name uniquer would name them in this module, and marked inserted.
"""

from __future__ import annotations

from ..ir.instruction import SourceLocation
from ..ir.record import MutableValue
from ..ir.shape import ShapeIndex, format_shape_index
from ..ir.value import FrozenValue, fields_with
from .kinds import DusAction, FirstKind, HostComputeReason, InsertedKind, MismatchContext, Status

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from .passes.host_offload_legalize import LegalizeNote, LegalizeResult

    _V = TypeVar("_V", bound="_Value")

E1200_CODE = "E1200"
E1200_NAME = "CompileTimeHostOffloadOutputLocationMismatch"
E1200_URL = "https://openxla.org/xla/errors/error_1200"
XLA_VERSION_MODELLED = "openxla/xla baf3aac993 (libtpu 0.0.42.1, jaxlib 0.10.2)"
"""Which HostOffloader this analysis reproduces by default; see :mod:`.rules`."""


class _Value(FrozenValue):
    """This module's frozen values: :meth:`replace` made here, so a copy is built by this layer and
    never from ``ir`` up (tests/test_route_layers.py)."""

    __slots__ = ()

    def replace(self: _V, **changes: Any) -> _V:
        """A copy with ``changes`` (field names), as ``dataclasses.replace``."""
        return self.__class__(**fields_with(self, changes))


class PathHop(_Value):
    """One hop of an offloaded tensor's path, readable: name, opcode, shape, Python line."""

    _FIELDS = ("instruction", "shape_index", "opcode", "shape", "location", "computation")

    instruction: str
    shape_index: ShapeIndex
    opcode: str
    shape: str
    location: SourceLocation | None
    computation: str

    def __init__(self, instruction: str, shape_index: ShapeIndex, opcode: str, shape: str,
                 location: SourceLocation | None = None, computation: str = "") -> None:
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "shape_index", shape_index)
        object.__setattr__(self, "opcode", opcode)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "location", location)
        object.__setattr__(self, "computation", computation)

    @property
    def xla_string(self) -> str:
        """XLA's ``InstructionAndShapeIndex::ToString``."""
        return f"{{Instr: {self.instruction}, ShapeIndex: {format_shape_index(self.shape_index)}}}"


class OutputMismatch(_Value):
    """One E1200: a host-memory tensor reaching an entry output whose layout is not host.

    ``start`` is what XLA names in "starting from X" (the walk's first instruction:
    the MoveToHost's first real consumer, a DUS, or a streamed entry parameter);
    under the ``unmerged-pr-36525`` rule only, a MoveToHost that is itself the entry
    root gives ``context`` ``custom call`` and ``start`` the MoveToHost (shipped XLA
    inserts a copy to host there and compiles).
    """

    _FIELDS = ("start", "context", "output_index", "output_layout", "customized", "trace", "origin",
               "origin_instruction", "path", "first")

    start: str
    context: MismatchContext
    """``"starting from"`` (shipped XLA) or ``"custom call"`` (unmerged PR #36525 only)."""
    output_index: ShapeIndex
    output_layout: str
    """The entry result (sub)shape as declared, e.g. ``f32[8]{0:T(128)}``."""
    customized: bool
    """Whether that layout is "explicitly customized" (tiles, index/pointer type, E(n)); only the
    ``unmerged-pr-36525`` rule looks at it."""
    trace: tuple[PathHop, ...]
    """From the walk's start to the entry root, following first-discovered predecessors."""
    origin: str
    """What started the walk: ``move-to-host NAME``, ``input-streaming PARAM``, ``host-async NAME``."""
    origin_instruction: str
    path: tuple[PathHop, ...]
    """The readable path: the origin (the MoveToHost, when one started it) then the trace."""
    first: bool
    """True for the one XLA reports: compilation stops at the first error."""

    def __init__(self, start: str, context: MismatchContext, output_index: ShapeIndex, output_layout: str,
                 customized: bool, trace: tuple[PathHop, ...], origin: str, origin_instruction: str,
                 path: tuple[PathHop, ...] = (), first: bool = False) -> None:
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "context", context)
        object.__setattr__(self, "output_index", output_index)
        object.__setattr__(self, "output_layout", output_layout)
        object.__setattr__(self, "customized", customized)
        object.__setattr__(self, "trace", trace)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "origin_instruction", origin_instruction)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "first", first)

    @property
    def context_text(self) -> str:
        return f'custom call "{self.start}"' if self.context is MismatchContext.CUSTOM_CALL else f"starting from {self.start}"

    @property
    def message(self) -> str:
        """XLA's message text, without the error-code framing."""
        return (f"Tensor which is moved to host ({self.context_text}) is returned from the entry computation "
                "but the layout for this output is not set to host memory.")

    @property
    def full_message(self) -> str:
        """Exactly what XLA prints today: code line, message, link."""
        return f"{E1200_CODE}: {E1200_NAME}:\n{self.message}\nSee {E1200_URL} for more details."


class PassFailure(_Value):
    """Any other way the pass would fail: a returned status or a CHECK crash."""

    _FIELDS = ("status", "message", "instruction", "first")

    status: Status
    """``INVALID_ARGUMENT``, ``INTERNAL``, ``UNIMPLEMENTED``, or ``CHECK`` (process abort)."""
    message: str
    instruction: str | None
    first: bool

    def __init__(self, status: Status, message: str, instruction: str | None = None, first: bool = False) -> None:
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "first", first)


class HostComputeConversion(_Value):
    """An instruction the pass marks ``_xla_compute_type="host"`` (it runs on the CPU)."""

    _FIELDS = ("instruction", "opcode", "reason", "location")

    instruction: str
    opcode: str
    reason: HostComputeReason
    """``walk`` (device op touched host data), ``dus-host-to-device``, ``dus-host-to-host``."""
    location: SourceLocation | None

    def __init__(self, instruction: str, opcode: str, reason: HostComputeReason,
                 location: SourceLocation | None = None) -> None:
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "opcode", opcode)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "location", location)


class InsertedInstruction(_Value):
    """A copy, AllocateBuffer or dynamic-slice the pass would add."""

    _FIELDS = ("kind", "name", "operand", "user", "operand_number", "replaces")

    kind: InsertedKind
    """``copy-to-host``, ``copy-to-device``, ``output-copy-to-host``, ``allocate-buffer``,
    ``scheduling-copy``, ``dynamic-slice``."""
    name: str
    operand: str | None
    """What it reads (``None`` for an AllocateBuffer)."""
    user: str | None
    """Where it is plugged in (the start, the MoveToDevice's users, the DUS...)."""
    operand_number: int | None
    replaces: str | None
    """The broadcast / slice / MoveToDevice it stands in for."""

    def __init__(self, kind: InsertedKind, name: str, operand: str | None, user: str | None,
                 operand_number: int | None = None, replaces: str | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "operand", operand)
        object.__setattr__(self, "user", user)
        object.__setattr__(self, "operand_number", operand_number)
        object.__setattr__(self, "replaces", replaces)


class DusOutcome(_Value):
    """How ``HandleDynamicUpdateSlices`` resolved one dynamic-update-slice."""

    _FIELDS = ("instruction", "update_on_host", "destination_on_host", "action")

    instruction: str
    update_on_host: bool
    destination_on_host: bool
    action: DusAction
    """``host-compute+host-output``, ``host-compute``, ``host-output``, ``allocate-buffer``, ``none``,
    ``failed`` (the AllocateBuffer search failed the pass)."""

    def __init__(self, instruction: str, update_on_host: bool, destination_on_host: bool, action: DusAction) -> None:
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "update_on_host", update_on_host)
        object.__setattr__(self, "destination_on_host", destination_on_host)
        object.__setattr__(self, "action", action)


class DroppedOffload(_Value):
    """A MoveToHost that moves nothing: no successor to walk (XLA removes it silently).

    Slots, no ``__dict__``: a jax module's dead MoveToHosts are each one (5,262 in a ``jax_entry``
    100k run, kept with the result; ~50 bytes less each)."""

    _FIELDS = ("move_to_host", "reason", "users", "location")
    __slots__ = _FIELDS

    move_to_host: str
    reason: str
    users: tuple[str, ...]
    location: SourceLocation | None

    def __init__(self, move_to_host: str, reason: str, users: tuple[str, ...] = (),
                 location: SourceLocation | None = None) -> None:
        object.__setattr__(self, "move_to_host", move_to_host)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "users", users)
        object.__setattr__(self, "location", location)

    def __reduce__(self) -> tuple[type[DroppedOffload], tuple[object, ...]]:
        return (self.__class__, self._key())  # slots and a refused __setattr__: pickled by its fields


class OutputMovedToHost(_Value):
    """An entry output whose memory kind the ``unmerged-pr-36525`` rule silently changes to host."""

    _FIELDS = ("output_index", "old_layout", "new_layout", "start")

    output_index: ShapeIndex
    old_layout: str
    new_layout: str
    start: str

    def __init__(self, output_index: ShapeIndex, old_layout: str, new_layout: str, start: str) -> None:
        object.__setattr__(self, "output_index", output_index)
        object.__setattr__(self, "old_layout", old_layout)
        object.__setattr__(self, "new_layout", new_layout)
        object.__setattr__(self, "start", start)


class WalkStart(_Value):
    """One call of ``WalkDownHostMemoryOffloadPaths``, in XLA's order."""

    _FIELDS = ("start", "shape_index", "origin", "insert_copy_before")

    start: str
    shape_index: ShapeIndex
    origin: str
    insert_copy_before: bool

    def __init__(self, start: str, shape_index: ShapeIndex, origin: str, insert_copy_before: bool) -> None:
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "shape_index", shape_index)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "insert_copy_before", insert_copy_before)


class HostOffloadResult(MutableValue):
    """Everything HostOffloader would decide for one module, under one rule (:mod:`.rules`).

    ``errors`` lists every offending output (XLA stops at the first; it has
    ``first=True`` and is also ``error``); ``failures`` lists other failures of the
    pass (status errors and CHECK crashes).  ``outcome`` says what XLA does:
    ``"ok"``, ``"E1200"`` or ``"failure"`` (another error or a crash comes first).
    Written out, not a generated class (:mod:`..ir.value`: start-up, issue 36); each list field
    not given starts empty, as the dataclass' ``default_factory=list``.
    """

    _FIELDS = ("rule", "errors", "failures", "host_positions", "host_compute", "inserted", "dynamified_slices",
               "dynamic_update_slices", "dropped_offloads", "outputs_moved_to_host", "warnings", "later_warnings",
               "vlog", "walks", "removed", "inlined_calls", "legalize", "_first_kind")

    rule: str
    """``shipped`` (default: what released XLA does) or ``unmerged-pr-36525``."""
    errors: list[OutputMismatch]
    failures: list[PassFailure]
    host_positions: list[tuple[str, ShapeIndex]]
    """Positions (of instructions in the input module) that end in host memory (S(5))."""
    host_compute: list[HostComputeConversion]
    inserted: list[InsertedInstruction]
    dynamified_slices: list[str]
    dynamic_update_slices: list[DusOutcome]
    dropped_offloads: list[DroppedOffload]
    outputs_moved_to_host: list[OutputMovedToHost]
    warnings: list[str]
    """XLA's LOG(WARNING) lines, in order, plus the analysis' own notes."""
    later_warnings: list[str]
    """Patterns libtpu was seen to reject after HostOffloader but no rule predicts
    (:mod:`.later_failures`); each is also in ``warnings``."""
    vlog: list[str]
    """What ``--vmodule=host_offloader=1`` prints (trace lines included)."""
    walks: list[WalkStart]
    removed: list[str]
    inlined_calls: list[str]
    """``call`` instructions the CallInliner pre-pass replaced by their callee's body (empty when off)."""
    legalize: LegalizeResult | None
    """What the HostOffloadLegalize pre-pass did (None when it was not run)."""
    _first_kind: FirstKind | None

    def __init__(self, rule: str, errors: list[OutputMismatch] | None = None, failures: list[PassFailure] | None = None,
                 host_positions: list[tuple[str, ShapeIndex]] | None = None,
                 host_compute: list[HostComputeConversion] | None = None,
                 inserted: list[InsertedInstruction] | None = None, dynamified_slices: list[str] | None = None,
                 dynamic_update_slices: list[DusOutcome] | None = None,
                 dropped_offloads: list[DroppedOffload] | None = None,
                 outputs_moved_to_host: list[OutputMovedToHost] | None = None, warnings: list[str] | None = None,
                 later_warnings: list[str] | None = None, vlog: list[str] | None = None,
                 walks: list[WalkStart] | None = None, removed: list[str] | None = None,
                 inlined_calls: list[str] | None = None, legalize: LegalizeResult | None = None,
                 _first_kind: FirstKind | None = None) -> None:
        self.rule = rule
        self.errors = [] if errors is None else errors
        self.failures = [] if failures is None else failures
        self.host_positions = [] if host_positions is None else host_positions
        self.host_compute = [] if host_compute is None else host_compute
        self.inserted = [] if inserted is None else inserted
        self.dynamified_slices = [] if dynamified_slices is None else dynamified_slices
        self.dynamic_update_slices = [] if dynamic_update_slices is None else dynamic_update_slices
        self.dropped_offloads = [] if dropped_offloads is None else dropped_offloads
        self.outputs_moved_to_host = [] if outputs_moved_to_host is None else outputs_moved_to_host
        self.warnings = [] if warnings is None else warnings
        self.later_warnings = [] if later_warnings is None else later_warnings
        self.vlog = [] if vlog is None else vlog
        self.walks = [] if walks is None else walks
        self.removed = [] if removed is None else removed
        self.inlined_calls = [] if inlined_calls is None else inlined_calls
        self.legalize = legalize
        self._first_kind = _first_kind

    def replace(self, **changes: Any) -> HostOffloadResult:
        """A copy with ``changes`` (field names), as ``dataclasses.replace``: the lists are shared."""
        return HostOffloadResult(**fields_with(self, changes))

    @property
    def error(self) -> OutputMismatch | None:
        """The E1200 XLA reports, or None (no E1200, or another failure comes first)."""
        return self.errors[0] if self.errors and self._first_kind is FirstKind.E1200 else None

    @property
    def outcome(self) -> str:
        return "ok" if self._first_kind is None else str(self._first_kind)

    def add_later_failure(self, failure: PassFailure) -> None:
        """A failure of a pass after HostOffloader (:mod:`.later_failures`), which accepted the module.

        It is what the compile reports when nothing came before it (then ``outcome`` is
        ``failure``); after an E1200 or a failure of the pass it is never reached, so it is dropped.
        """
        if self._first_kind is not None:
            return
        self._first_kind = FirstKind.FAILURE
        self.failures.append(failure.replace(first=True))

    @property
    def has_findings(self) -> bool:
        return bool(self.errors or self.failures)

    def host_position_names(self) -> set[str]:
        """``name`` or ``name{1,0}`` for each host position (tests read these)."""
        return {n if not idx else n + format_shape_index(idx) for n, idx in self.host_positions}

    @property
    def legalize_notes(self) -> list[LegalizeNote]:
        """Chains HostOffloadLegalize did not recognise (XLA skips them silently)."""
        return self.legalize.notes if self.legalize is not None else []

    def host_compute_names(self) -> set[str]:
        return {h.instruction for h in self.host_compute}
