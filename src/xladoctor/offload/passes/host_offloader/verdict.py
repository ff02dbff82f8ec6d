"""The verdict: E1200 at the program end, MoveToHosts that move nothing, what ends on host.

XLA stops at the first error; the simulation records every one (the first is what XLA
reports, ``first=True``) and carries on as if the offending output were host memory,
so each offending output is reported once.  Failures of the pass itself (a returned
status, a CHECK) are recorded by :class:`~.state.Recorder`.
"""

from __future__ import annotations

from ....base.labels import label
from ....ir.instruction import HloInstruction
from ....ir.opcodes import CUSTOM_CALL
from ....ir.shape import HOST_MEMORY_SPACE, ShapeIndex, format_shape_index, set_memory_space_in_place
from ...annotations import is_move_to_host
from ...kinds import FirstKind, MismatchContext
from ...positions import Position
from ...result import DroppedOffload, OutputMismatch, OutputMovedToHost, PassFailure
from ...rules import SHIPPED
from . import messages
from .state import OffloaderRun, all_leaves_host, memory_space

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, Final

    from ....ir.metadata import SourceLocation

# DroppedOffload's slots written through their descriptors, in its field order: the class call
# ran its interpreted __init__ (four object.__setattr__ calls), ~6,700 instructions a record in
# the compiled core, and a jax_entry 100k run reports 5,262 (issue 36, branch h51c).
_NEW: Final = object.__new__
_DROPPED_SETTERS: Final[tuple[Any, ...]] = tuple(getattr(DroppedOffload, f).__set__ for f in DroppedOffload._FIELDS)


def new_dropped(move_to_host: str, reason: str, location: SourceLocation | None) -> DroppedOffload:
    """``DroppedOffload(move_to_host, reason, (), location)``, built without its ``__init__``."""
    new = _NEW(DroppedOffload)
    setters = _DROPPED_SETTERS
    setters[0](new, move_to_host)
    setters[1](new, reason)
    setters[2](new, ())
    setters[3](new, location)
    return new


def ensure_entry_output_is_host(run: OffloaderRun, index: ShapeIndex, context: MismatchContext, start_name: str,
                                trace: list[Position], origin: str, origin_instr: str) -> None:
    """The program-end rule: shipped XLA's E1200, or ``EnsureEntryLayoutIsHostMemory`` of PR #36525."""
    ecl = run.ecl_result
    if not ecl.has_index(index):
        return
    sub = ecl.subshape(index)
    if all_leaves_host(sub):
        return
    customized = any(s.effective_layout.is_customized for _, s in sub.leaves() if s.is_array)
    ctx, res = run.ctx, run.res
    if ctx.options.rule == SHIPPED or customized:
        first = run.rec.first(FirstKind.E1200)
        if first:
            res.vlog.append("Instruction trace leading to error:")
            res.vlog.extend("  " + str(p) for p in trace)
        res.errors.append(OutputMismatch(
            start=ctx.rn(start_name), context=context, output_index=index, output_layout=str(sub),
            customized=customized, trace=tuple(ctx.hop(p) for p in trace), origin=origin,
            origin_instruction=origin_instr, path=ctx.path(origin_instr, trace), first=first))
    else:
        new_sub = sub.with_memory_space(HOST_MEMORY_SPACE)
        res.outputs_moved_to_host.append(OutputMovedToHost(index, str(sub), str(new_sub), ctx.rn(start_name)))
        res.warnings.append(messages.output_moved_warning(format_shape_index(index), str(sub),
                                                          str(new_sub), start_name))
    # Carry on as if the output were host memory, so each output is reported once.
    run.ecl_result = set_memory_space_in_place(ecl, HOST_MEMORY_SPACE, index, run)


def report_removed_by_dce(run: OffloaderRun, removed: list[HloInstruction]) -> None:
    """MoveToHosts that HloDCE removed before the pass (see :mod:`..hlo_dce`): they move nothing.

    They share one reason: a label each was a :class:`~....base.labels.Said` with its own
    ``__dict__`` and values per offload (5,262 in a ``jax_entry`` 100k run: 2.6 MiB kept with the
    result, and a template filled each time), for the same words."""
    ctx = run.ctx
    custom_call = CUSTOM_CALL  # most removed code: one identity test each
    reason: str | None = None
    dropped = run.res.dropped_offloads
    for instr in reversed(removed):
        if instr.opcode is custom_call and is_move_to_host(instr):
            if reason is None:
                reason = label("offload.dropped_dead_code")
            orig = ctx.input_instruction(instr.name)
            dropped.append(new_dropped(ctx.rn(instr.name), reason, orig.source_location() if orig else None))


def report_prior_failure(run: OffloaderRun, failure: PassFailure) -> None:
    """A failure of an earlier pass (HostOffloadLegalize): XLA stops before this one."""
    run.res.failures.append(failure.replace(first=run.rec.first(FirstKind.FAILURE)))


def collect_host_positions(run: OffloaderRun) -> None:
    """Final memory spaces of the input's instructions, and what each inserted copy reads now."""
    ctx, res = run.ctx, run.res
    seen: set[tuple[str, ShapeIndex]] = set()
    for comp in ctx.module.computations:
        for instr in comp.instructions:
            shape = instr.shape
            layout = shape.layout  # memory_space(shape), read inline: every instruction of the module
            if (layout is None or layout.memory_space != HOST_MEMORY_SPACE) and shape.element_type.bits is not None:
                continue  # the common case, an array not on host: no lookups (``is_array`` without its call)
            if instr in run.edits.dead or ctx.input_instruction(instr.name) is None:
                continue
            for idx, leaf in instr.shape.leaves():
                if leaf.is_array and memory_space(leaf) == HOST_MEMORY_SPACE:
                    reported = (ctx.rn(instr.name), idx)
                    if reported not in seen:
                        seen.add(reported)
                        res.host_positions.append(reported)
    # Copies were created before the MoveToHosts they read were removed: name what they read now.
    fixed = []
    for ins in res.inserted:
        made = ctx.module.get_instruction(ins.name)
        if made is not None and made.operands and ins.operand is not None:
            ins = ins.replace(operand=made.operands[0].name)
        if ctx.origin:
            ins = ins.replace(operand=ins.operand and ctx.rn(ins.operand), user=ins.user and ctx.rn(ins.user))
        fixed.append(ins)
    res.inserted = fixed
