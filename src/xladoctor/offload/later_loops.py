"""Later failures of while loops whose state changes memory space (split from :mod:`.later_failures`).

A while whose state at an index enters an iteration in one memory space and leaves it in the
other is what HostOffloader leaves behind when a scan body moves its carry or ys to host, or when
a loop starts from a value in host memory.  libtpu then fails after HostOffloader in most such
programs (the post-optimization verifier's "async-start expects the shape", "Shape mismatch between
parameter number 0 and its operand", the TPU lowering's host-to-host CHECK), so it is a warning
with the fix for what puts the state on host (:func:`loop_state_changes_memory`); one narrowed
shape of it is a predicted failure, ``loop-state-reshape`` (:func:`loop_state_reshapes`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..base.labels import label
from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import (
    BITCAST,
    CALL,
    COPY,
    DYNAMIC_UPDATE_SLICE,
    GET_TUPLE_ELEMENT,
    PARAMETER,
    RESHAPE,
    TUPLE,
    WHILE,
)
from ..ir.shape import HOST_MEMORY_SPACE, ShapeIndex, format_shape_index
from ..ir.tpu_layouts import LIBTPU
from .annotations import is_move_to_device, is_move_to_host, is_sharding_marker
from .kinds import Status
from .later_scan import Located
from .loop_trips import trip_count
from .result import HostOffloadResult, PassFailure


def _while_loops(whiles: Located) -> Iterator[tuple[HloInstruction, HloInstruction, HloInstruction]]:
    """Every while loop of the module (``whiles``: :func:`.later_scan.instructions_of`'s) with its
    body's parameter and root."""
    for _, loop in whiles:
        if not loop.called.get("body"):
            continue
        body = loop.called["body"][0]
        if body.root is not None and body.parameters:
            yield loop, body.parameters[0], body.root


def _changing_leaves(param: HloInstruction, root: HloInstruction, host: set[tuple[str, ShapeIndex]]
                     ) -> list[tuple[ShapeIndex, bool]]:
    """``(index, enters on host)`` of each array leaf of the loop state that enters an iteration in
    one memory space (the body's parameter) and leaves it in the other (the body's root)."""
    return [(index, (param.name, index) in host) for index, leaf in param.shape.leaves()
            if leaf.is_array and ((param.name, index) in host) != ((root.name, index) in host)]


def loop_state_changes_memory(module: HloModule, result: HostOffloadResult, whiles: Located) -> Iterator[str]:
    """A while loop whose state at an index enters in one memory space and leaves in the other,
    with the fix for what puts it on host (:func:`_loop_state_fix`).  ``whiles``: the module's
    while loops (:func:`.later_scan.instructions_of`)."""
    host = set(result.host_positions)
    for loop, param, root in _while_loops(whiles):
        changing = _changing_leaves(param, root, host)
        if changing:
            index, enters = changing[0]
            yield label("offload.later_loop_state_memory", libtpu=LIBTPU, loop=loop.name,
                        index=format_shape_index(index), enters="host" if enters else "device",
                        leaves="device" if enters else "host", fix=_loop_state_fix(module, loop))


def _loop_state_fix(module: HloModule, loop: HloInstruction) -> str:
    """The fix for a loop whose state changes memory space, by what puts it on host.

    Measured on the 12 generated programs whose E1200 fix then met this failure (the fix
    campaign, seed 0): where a value enters the loop from host memory (a host-memory argument, or
    a value moved to host before the loop, also when computed with first) moving it to device
    before the loop compiled (4 programs); where the body moves its carry to host, moving it back
    before the body returns (7); one program needed both; and nested scans under grad with an
    offloading checkpoint policy compile with the outer scan's body in ``jax.checkpoint``."""
    source = _host_source(module, loop)
    body = label("offload.later_loop_state_fix_body")
    if source is None:
        return body
    if source.opcode is PARAMETER:
        value = label("offload.later_loop_state_host_argument", param=source.name, number=source.parameter_number)
    else:
        value = label("offload.later_loop_state_moved_before", instruction=source.name)
    before = label("offload.later_loop_state_fix_input", value=value)
    if not _moves_to_host_inside(loop):
        return before
    return label("offload.later_loop_state_fix_both", input=before, body=body)


def _host_source(module: HloModule, loop: HloInstruction, budget: int = 20_000) -> HloInstruction | None:
    """A host-memory entry argument or a move to host that ``loop``'s initial state is computed
    from, upstream through any op, into the ``call``s that make a value and out of their
    parameters to the calls' operands; not past a move to device or another loop (what a loop
    makes is its own question).  None when there is none within ``budget`` instructions."""
    ecl = module.entry_computation_layout
    assert ecl is not None
    stack, seen = list(loop.operands), {id(o) for o in loop.operands}
    while stack and budget > 0:
        budget -= 1
        instr = stack.pop()
        if is_move_to_host(instr):
            return instr
        if is_move_to_device(instr) or instr.opcode is WHILE:
            continue
        nxt: list[HloInstruction] = list(instr.operands)
        if instr.opcode is PARAMETER and instr.parameter_number is not None:
            number = instr.parameter_number
            if instr.parent is module.entry:
                if number < len(ecl.parameters) and any(
                        leaf.is_array and leaf.memory_space == HOST_MEMORY_SPACE for _, leaf in ecl.parameters[number].leaves()):
                    return instr
                continue
            calls = instr.parent.callers if instr.parent is not None else []
            nxt = [c.operands[number] for c in calls if c.opcode is CALL and number < len(c.operands)]
        elif instr.opcode is CALL:
            nxt += [c.root for c in instr.called.get("to_apply") or [] if c.root is not None]
        for o in nxt:
            if id(o) not in seen:
                seen.add(id(o))
                stack.append(o)
    return None


def _moves_to_host_inside(loop: HloInstruction) -> bool:
    """The loop's body, or a computation it calls (nested loops included), moves something to host."""
    stack, seen = list(loop.called.get("body") or []), set()
    while stack:
        comp = stack.pop()
        if id(comp) in seen:
            continue
        seen.add(id(comp))
        for instr in comp.instructions:
            if is_move_to_host(instr):
                return True
            for called in instr.called.values():
                stack.extend(called)
    return False


_Context = tuple[HloInstruction, ...]
"""The ``call`` instructions a value was followed into, outermost first."""


def _resolve(instr: HloInstruction, index: tuple[int, ...], calls: _Context
             ) -> tuple[HloInstruction, tuple[int, ...], _Context]:
    """What makes the value at ``index`` of ``instr``: through tuples, sharding markers, bitcasts
    and copies, into the roots of the computations ``call``s apply and out of their parameters
    back to the call's operands (jax's ``closed_call``s are still calls in the module we read)."""
    for _ in range(256):
        if instr.opcode is TUPLE and index and index[0] < len(instr.operands):
            instr, index = instr.operands[index[0]], index[1:]
        elif instr.opcode is GET_TUPLE_ELEMENT:
            instr, index = instr.operands[0], (instr.gte_index(), *index)
        elif is_sharding_marker(instr) or (instr.opcode in (BITCAST, COPY) and not index):
            instr = instr.operands[0]
        elif instr.opcode is CALL and (instr.called.get("to_apply") or []) and \
                instr.called["to_apply"][0].root is not None:
            calls, instr = (*calls, instr), instr.called["to_apply"][0].root
        elif instr.opcode is PARAMETER and calls and instr.parent is not None and \
                instr.parameter_number is not None and \
                instr.parameter_number < len(calls[-1].operands) and \
                instr.parent in (calls[-1].called.get("to_apply") or []):
            instr, calls = calls[-1].operands[instr.parameter_number], calls[:-1]
        else:
            break
    return instr, index, calls


def _is_carry(instr: HloInstruction, index: tuple[int, ...], calls: _Context, param: HloInstruction, i: int) -> bool:
    """The resolved value is the body's loop state at ``i``, unchanged."""
    return instr is param and index == (i,) and not calls


def _carry_moved_to_host(body_root: HloInstruction, param: HloInstruction, i: int
                         ) -> tuple[HloInstruction, _Context] | None:
    """The move to host (and its call context) that the body returns as state ``i``, when what it
    moves is state ``i`` itself, nothing computed from it."""
    move, index, calls = _resolve(body_root, (i,), ())
    if index or not is_move_to_host(move):
        return None
    if not _is_carry(*_resolve(move.operands[0], (), calls), param, i):
        return None
    return move, calls


def _ys_element_of(body_root: HloInstruction, param: HloInstruction, j: int, i: int
                   ) -> HloInstruction | None:
    """The reshape when the body's state ``j`` is the ys buffer (state ``j`` updated in place,
    ``dynamic-update-slice``) and the row it writes is a reshape of a move to host of state ``i``
    itself: what scan writes when the same moved carry is returned as a ys element."""
    dus, index, calls = _resolve(body_root, (j,), ())
    if index or dus.opcode is not DYNAMIC_UPDATE_SLICE or len(dus.operands) < 2:
        return None
    if not _is_carry(*_resolve(dus.operands[0], (), calls), param, j):
        return None
    reshape = dus.operands[1]
    if reshape.opcode is not RESHAPE:
        return None
    move, index, inner = _resolve(reshape.operands[0], (), calls)
    if index or not is_move_to_host(move) or not _is_carry(*_resolve(move.operands[0], (), inner), param, i):
        return None
    return reshape


def _only_moved_to_device(loop: HloInstruction, i: int) -> bool:
    """Every use of the loop's result ``i`` is a move to device (or there is none)."""
    stack: list[HloInstruction] = []
    for user in loop.users:
        if user.opcode is not GET_TUPLE_ELEMENT:
            return False  # the whole loop tuple goes on: not what was measured
        if user.gte_index() == i:
            stack.append(user)
    while stack:
        for user in stack.pop().users:
            if user.opcode in (BITCAST, COPY) or is_sharding_marker(user):
                stack.append(user)
            elif not is_move_to_device(user):
                return False
    return True


def enclosing_loops(comp: HloComputation | None) -> list[HloInstruction]:
    """The while loops whose body ``comp`` runs in, directly or through calls (the last caller in
    module order), innermost first."""
    loops: list[HloInstruction] = []
    seen: set[int] = set()
    while comp is not None and comp.callers and id(comp) not in seen:
        seen.add(id(comp))
        instr = comp.callers[-1]
        if instr.opcode is WHILE and comp in (instr.called.get("body") or []):
            loops.append(instr)
        comp = instr.parent
    return loops


def _first_to_fail(loop: HloInstruction, changing: dict[int, set[int]]) -> bool:
    """No other loop's state change can fail first: measured, another loop whose state changes
    memory space fails first with "The async-start expects the shape" or not, by program order; a
    loop around ``loop`` whose changing results are only moved to device lets this one fail first."""
    around = {id(o): o for o in enclosing_loops(loop.parent)}
    for other_id, indices in changing.items():
        if other_id == id(loop):
            continue
        if other_id not in around:
            return False
        if not all(_only_moved_to_device(around[other_id], i) for i in indices):
            return False
    return True


def loop_state_reshapes(module: HloModule, result: HostOffloadResult, whiles: Located) -> Iterator[PassFailure]:
    """A scan whose body moves its carry to host unchanged and returns that same host value as the
    carry and as a ys element (``c = place_to_host(c); return c, c``), the carry entering on device,
    with 2 or more iterations.  Measured (libtpu 0.0.42.1): f32/bf16/s32, rank 1 to 3, also nested in
    a scan, ys returned on device or host; the row's reshape (scan's ``broadcast_in_dim``) of the
    host value becomes a bitcast between memory spaces: ``Bitcast cannot have different memory
    spaces``.  One iteration, something computed from the carry before the move, a carry that is
    already on host, or the carry moved back to device before the body returns compiles; a carry
    result used after the loop other than by a move to device fails first with "The async-start
    expects the shape"; so may another loop whose state changes memory space, by program order,
    unless it is a loop around this one whose changing results are only moved to device (both
    warned, :func:`_first_to_fail`).  ``whiles``: the module's while loops (:func:`.later_scan.instructions_of`)."""
    host = set(result.host_positions)
    loops = list(_while_loops(whiles))
    changing = {id(loop): indices for loop, param, root in loops
                for indices in [{index[0] for index, _ in _changing_leaves(param, root, host) if index}] if indices}
    for loop, param, root in loops:
        trips = trip_count(loop)
        if trips is None or trips < 2:
            continue
        states = list(param.shape.tuple_shapes) if param.shape.is_tuple else []
        for i in range(len(states)):
            if (param.name, (i,)) in host or (root.name, (i,)) not in host:
                continue  # measured only for a carry entering on device and leaving on host
            moved = _carry_moved_to_host(root, param, i)
            if moved is None or not _only_moved_to_device(loop, i) or not _first_to_fail(loop, changing):
                continue
            reshape = next((r for j in range(len(states)) if j != i
                            for r in [_ys_element_of(root, param, j, i)] if r is not None), None)
            if reshape is None:
                continue
            yield PassFailure(Status.INTERNAL, label(
                "offload.later_loop_state_reshape", libtpu=LIBTPU, loop=loop.name, index=format_shape_index((i,)),
                move=moved[0].name, reshape=reshape.name, trips=trips), reshape.name)
            break
