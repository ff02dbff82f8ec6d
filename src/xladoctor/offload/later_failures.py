"""Compile failures that come after HostOffloader accepted the module (libtpu 0.0.42.1, v5e).

HostOffloader is not the last word on a program that offloads: later TPU passes (buffer
assignment's DMAs, the post-optimisation verifier) reject some modules HostOffloader
accepts.  Each rule here is one such class, found by compiling jax programs written the way
users write them with the real compiler and narrowed by varying dtypes, shapes and
placements until it holds (tests/test_offload_later.py compiles each one again):

* ``donated-across-memory-spaces``: an ``input_output_alias`` pairs a device parameter
  with a host (``S(5)``) output (``donate_argnums`` on an argument returned through
  ``jax.device_put(..., Space.Host)``), or a host parameter with a device output that is
  only the parameter moved to device.  The aliased output buffer is the parameter's, so
  the transfer becomes a DMA within one memory: ``UNIMPLEMENTED: Unimplemented DMA from hbm
  to hbm.`` (or ``from host to host``).
* ``narrow-host-parameter-tile``: a host entry parameter of an 8-bit type (s8, u8, pred,
  f8*) whose second-minor dimension is a multiple of 32 (4-bit: of 64), moved to device.
  On device such an array gets the tile ``T(32,128)(4,1)`` (``T(64,128)(8,1)`` for 4-bit),
  in host memory ``T(8,128)(4,1)``, and the copy between them fails the post-optimisation
  verifier: ``Source and destination buffers in CopyDone arguments need to be the same
  shape``.  33x128, 16x128 and rank-1 arrays compile; so do 16-bit and wider types.

* ``unrolled-scan-host-ys``: ``jax.lax.scan(..., unroll=u)`` whose ys go to host, with 2 or
  more iterations of the loop left: the body stacks ``u`` moves to host into each
  ``[trips, u, ...]`` block, and jax's reshape of the blocks back to ``[length, ...]`` becomes
  a bitcast between memory spaces: ``Bitcast cannot have different memory spaces`` (also
  nested in a scan).  One iteration left (length 3, unroll 2) or full unrolling compiles.
* ``loop-state-reshape``: a scan body that moves its carry to host unchanged and returns that
  one host value as both the new carry and a ys element (``h = place_to_host(c); return h, h``,
  another frontend's annotation: jax's ``device_put`` refuses the carry's changed type), the
  carry entering on device, 2 or more iterations, the carry's result unused after the loop or
  only moved to device.  From the second iteration the carry is a host buffer, and scan's
  reshape of it into a ys row becomes a bitcast between memory spaces: ``Bitcast cannot have
  different memory spaces`` (f32, bf16, s32; rank 1 to 3; also nested; ys summed, reshaped or
  returned on host).  One iteration, anything computed from the carry before the move, no ys,
  or the carry moved back to device before the body returns compiles; a carry result computed
  with after the loop fails otherwise ("async-start expects the shape"): warned, below.

A pattern seen to fail but not narrowed to a rule gives a warning instead (never a silent
``ok``): another reshape of a loop's host-memory output merging its two leading
dimensions (a user's own merge of ys stacked on device compiles); and a while loop whose
state at some index is in one memory space on entry (the body's parameter) and in the
other after an iteration (the body's root), which HostOffloader leaves behind when a
scan body moves its carry or its ``ys`` buffer to host.  Every post-HostOffloader
failure of the campaign's scans ("The async-start expects the shape of operand 0 to
match the async shape", "Shape mismatch between parameter number 0 and its operand",
the TPU lowering's host-to-host CHECK) had such a loop; about a third of the programs
with one compile, so it is a warning.  Its fix is for what puts the state on host: a value the
loop starts from in host memory (move it to device before the loop), a move to host in the body
(move it back before the body returns; an offloading checkpoint policy: ``jax.checkpoint`` around
the loop's body), or both; each compiled by libtpu (tests/test_jax_fix_campaign.py).

Only an ``ok`` from HostOffloader can be followed by these: an E1200 or another failure of
the pass stops the compile first.  The loop-state warning is given after an E1200 too: fixing
the E1200 leaves that loop as it is, so the first report gives every fix the program needs.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import HloOpcode
from ..ir.shape import HOST_MEMORY_SPACE, Shape, format_shape_index
from ..labels import label
from .annotations import is_move_to_device, is_move_to_host, placement
from .kinds import Status
from .loop_trips import trip_count
from .result import HostOffloadResult, PassFailure

LIBTPU = "libtpu 0.0.42.1"
_PASS_THROUGH = frozenset({HloOpcode.GET_TUPLE_ELEMENT, HloOpcode.TUPLE, HloOpcode.BITCAST, HloOpcode.COPY})
"""Ops a value passes through unchanged on its way to or from a placement annotation."""


def predict_later_failures(module: HloModule, result: HostOffloadResult) -> None:
    """Add the failures later passes would hit (and the warnings) to ``result``, after an ``ok``.

    HostOffloadLegalize's warnings (:mod:`.legalize_branches`) are added whatever the outcome; so
    is the loop-state warning after an E1200 (the E1200 fix leaves that loop as it is: the fix
    campaign's 12 programs with one each failed on it once fixed, in every form of the fix), so
    that the first report gives every fix the program needs."""
    if result.legalize is not None:
        result.warnings.extend(w for w in result.legalize.warnings if w not in result.warnings)
    if module.entry is None or module.entry_computation_layout is None:
        return
    if result.outcome == "E1200":
        result.later_warnings.extend(_loop_state_changes_memory(module, result))
        result.warnings.extend(result.later_warnings)
        return
    if result.outcome != "ok":
        return
    for failure in [*_donations(module), *_narrow_host_parameters(module), *_unrolled_scan_host_ys(module),
                    *_loop_state_reshapes(module, result)]:
        result.add_later_failure(failure)
    result.later_warnings.extend(_host_loop_output_reshapes(module, result))
    result.later_warnings.extend(_loop_state_changes_memory(module, result))
    result.warnings.extend(result.later_warnings)


def _space(shape: Shape) -> int:
    layout = shape.layout
    return layout.memory_space if layout is not None else 0


def _is_sharding_marker(instr: HloInstruction) -> bool:
    target = instr.custom_call_target or ""
    return (instr.opcode is HloOpcode.CUSTOM_CALL and placement(instr) is None and not target.startswith(
        ("Move", "annotate")) and len(instr.operands) == 1 and instr.shape == instr.operands[0].shape)


def _producer(instr: HloInstruction, index: tuple[int, ...]) -> HloInstruction:
    """What makes the value at ``index`` of ``instr``, through tuples and sharding markers."""
    while True:
        if instr.opcode is HloOpcode.TUPLE and index:
            instr, index = instr.operands[index[0]], index[1:]
        elif instr.opcode is HloOpcode.GET_TUPLE_ELEMENT:
            instr, index = instr.operands[0], (instr.gte_index(), *index)
        elif _is_sharding_marker(instr):
            instr = instr.operands[0]
        else:
            return instr


def _donations(module: HloModule) -> Iterator[PassFailure]:
    ecl = module.entry_computation_layout
    assert ecl is not None and module.entry is not None
    root = module.entry.root_instruction()
    for alias in module.input_output_alias:
        if alias.parameter_number >= len(ecl.parameters):
            continue
        param = ecl.parameters[alias.parameter_number]
        if not (param.has_index(alias.parameter_index) and ecl.result.has_index(alias.output_index)):
            continue
        p_space = _space(param.subshape(alias.parameter_index))
        o_space = _space(ecl.result.subshape(alias.output_index))
        if p_space == o_space:
            continue
        made_by = _producer(root, alias.output_index)
        if p_space == HOST_MEMORY_SPACE and not is_move_to_device(made_by):
            continue  # measured: a device output computed from a donated host argument compiles
        memory = "host" if p_space == HOST_MEMORY_SPACE else "hbm"
        yield PassFailure(Status.UNIMPLEMENTED, label(
            "offload.later_donation", libtpu=LIBTPU, memory=memory, param=alias.parameter_number,
            output=label("offload.later_output", index=format_shape_index(alias.output_index))
            if alias.output_index else label("offload.later_the_result"),
            instruction=made_by.name), made_by.name)


def _tile_rows(shape: Shape) -> int | None:
    """The second-minor tile size the TPU gives this array on device, when it differs from host's 8."""
    bits = shape.element_type.bits
    if shape.element_type.kind == "pred" or bits == 8:
        return 32
    if bits == 4:
        return 64
    return None


def _second_minor(shape: Shape) -> int:
    """The size of the physical second-minor dimension (the layout's, else the logical one)."""
    order = shape.layout.minor_to_major if shape.layout is not None else ()
    if len(order) == len(shape.dimensions):
        return shape.dimensions[order[1]]
    return shape.dimensions[-2]


def _moved_to_device(instr: HloInstruction) -> HloInstruction | None:
    """The MoveToDevice this value reaches through pass-through ops, or None."""
    stack, seen = [instr], {instr}
    while stack:
        for user in stack.pop().users:
            if is_move_to_device(user):
                return user
            if (user.opcode in _PASS_THROUGH or _is_sharding_marker(user)) and user not in seen:
                seen.add(user)
                stack.append(user)
    return None


def _narrow_host_parameters(module: HloModule) -> Iterator[PassFailure]:
    ecl = module.entry_computation_layout
    assert ecl is not None and module.entry is not None
    for number, param_shape in enumerate(ecl.parameters):
        if not param_shape.is_array or _space(param_shape) != HOST_MEMORY_SPACE or len(param_shape.dimensions) < 2:
            continue
        rows = _tile_rows(param_shape)
        if rows is None or _second_minor(param_shape) % rows:
            continue
        if param_shape.layout is not None and param_shape.layout.tiles:
            continue  # an explicit host tile: not what this rule measured
        if number >= len(module.entry.parameters):
            continue
        param = module.entry.parameter(number)
        mtd = _moved_to_device(param)
        if mtd is None:
            continue
        yield PassFailure(Status.INTERNAL, label(
            "offload.later_narrow_tile", libtpu=LIBTPU, param=number, shape=str(param_shape), rows=rows,
            instruction=mtd.name), mtd.name)


def _host_loop_output_reshapes(module: HloModule, result: HostOffloadResult) -> Iterator[str]:
    """A reshape of a while loop's output that ends in host memory, not an unrolled scan's (warned)."""
    host = result.host_position_names()
    assert module.entry is not None
    for instr in module.entry.instructions:
        if instr.opcode is not HloOpcode.RESHAPE or instr.name not in host:
            continue
        made_by = _producer(instr.operands[0], ())
        if made_by.opcode is HloOpcode.WHILE and _merges_two_leading_dimensions(instr) and \
                trip_count(made_by) != 1 and _unrolled_scan(instr) is None:
            yield label("offload.later_host_loop_reshape", libtpu=LIBTPU, instruction=instr.name, loop=made_by.name)


def _unrolled_scan_host_ys(module: HloModule) -> Iterator[PassFailure]:
    """``jax.lax.scan(..., unroll=u)`` with host ys and a loop left to run (2 or more iterations).

    The ys blocks are host values by construction (stacked moves to host), so the reshape need not
    be a host position of our model (it is not when the ys go on into an outer scan's ys)."""
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.opcode is not HloOpcode.RESHAPE or not _merges_two_leading_dimensions(instr):
                continue
            loop = _unrolled_scan(instr)
            if loop is None:
                continue
            trips, unroll = instr.operands[0].shape.dimensions[:2]
            yield PassFailure(Status.INTERNAL, label(
                "offload.later_unrolled_scan", libtpu=LIBTPU, instruction=instr.name, loop=loop.name, trips=trips,
                unroll=unroll, length=instr.shape.dimensions[0]), instr.name)


def _unrolled_scan(reshape: HloInstruction) -> HloInstruction | None:
    """The loop when ``reshape`` merges ``[trips, u, ...]`` ys blocks of a loop running ``trips`` >= 2
    times whose body stacks ``u`` host values (``concatenate``) into each block: what scan's unroll
    writes.  Measured: unroll 2, 3, 4 over 4 to 9 steps fail, also nested in a scan; one iteration
    left (length 3, unroll 2) or full unrolling compiles; so does a user's own merge of ys stacked
    on device before the move (no host concatenate)."""
    gte = reshape.operands[0]
    if gte.opcode is not HloOpcode.GET_TUPLE_ELEMENT or gte.operands[0].opcode is not HloOpcode.WHILE:
        return None
    loop, (trips, unroll) = gte.operands[0], gte.shape.dimensions[:2]
    bodies = loop.called.get("body") or []
    if trips < 2 or trip_count(loop) != trips or not bodies:
        return None
    for instr in bodies[0].instructions:
        if instr.opcode is HloOpcode.CONCATENATE and len(instr.operands) == unroll and \
                all(_moved_to_host(o) for o in instr.operands):
            return loop
    return None


def _moved_to_host(instr: HloInstruction) -> bool:
    """``instr`` is a move to host, up through reshapes, tuples and the results of ``call``s."""
    index: tuple[int, ...] = ()
    for _ in range(64):
        if is_move_to_host(instr) and not index:
            return True
        if instr.opcode in (HloOpcode.RESHAPE, HloOpcode.BITCAST, HloOpcode.COPY) and not index:
            instr = instr.operands[0]
        elif instr.opcode is HloOpcode.GET_TUPLE_ELEMENT:
            instr, index = instr.operands[0], (instr.gte_index(), *index)
        elif instr.opcode is HloOpcode.TUPLE and index and index[0] < len(instr.operands):
            instr, index = instr.operands[index[0]], index[1:]
        elif instr.opcode is HloOpcode.CALL and (instr.called.get("to_apply") or []) and index:
            root = instr.called["to_apply"][0].root
            if root is None:
                return False
            instr = root
        else:
            return False
    return False


def _merges_two_leading_dimensions(reshape: HloInstruction) -> bool:
    """``[a, b, ...rest] -> [a*b, ...rest]`` with ``rest`` keeping the two tiled minor dimensions: what
    scan's unroll leaves on its ys (``[n/u, u, ...]`` back to ``[n, ...]``), a bitcast under TPU tiling.
    Measured: every partially unrolled scan with host ys tried fails (unroll 2, 3, 4 of 4 to 8 steps);
    a user's reshape into the tiled dimensions, a split, or full unrolling compiles; so does a user's
    own merge of two leading dimensions of rank-4 host ys, which this still matches: a warning."""
    before, after = reshape.operands[0].shape.dimensions, reshape.shape.dimensions
    return (len(before) >= 4 and len(after) == len(before) - 1 and after[0] == before[0] * before[1]
            and after[1:] == before[2:])


def _loop_state_changes_memory(module: HloModule, result: HostOffloadResult) -> Iterator[str]:
    """A while loop whose state at an index enters in one memory space and leaves in the other,
    with the fix for what puts it on host (:func:`_loop_state_fix`)."""
    host = set(result.host_positions)
    callers: dict[int, list[HloInstruction]] = {}
    for caller_comp in module.computations:
        for instr in caller_comp.instructions:
            if instr.opcode is HloOpcode.CALL:
                for called in instr.called.get("to_apply") or []:
                    callers.setdefault(id(called), []).append(instr)
    for comp in module.computations:
        for loop in comp.instructions:
            if loop.opcode is not HloOpcode.WHILE or not loop.called.get("body"):
                continue
            body = loop.called["body"][0]
            if body.root is None or not body.parameters:
                continue
            param, root = body.parameters[0], body.root
            for index, leaf in param.shape.leaves():
                enters = (param.name, index) in host
                if leaf.is_array and enters != ((root.name, index) in host):
                    yield label("offload.later_loop_state_memory", libtpu=LIBTPU, loop=loop.name,
                                index=format_shape_index(index), enters="host" if enters else "device",
                                leaves="device" if enters else "host", fix=_loop_state_fix(module, loop, callers))
                    break


def _loop_state_fix(module: HloModule, loop: HloInstruction, callers: dict[int, list[HloInstruction]]) -> str:
    """The fix for a loop whose state changes memory space, by what puts it on host.

    Measured on the 12 generated programs whose E1200 fix then met this failure (the fix
    campaign, seed 0): where a value enters the loop from host memory (a host-memory argument, or
    a value moved to host before the loop, also when computed with first) moving it to device
    before the loop compiled (4 programs); where the body moves its carry to host, moving it back
    before the body returns (7); one program needed both; and nested scans under grad with an
    offloading checkpoint policy compile with the outer scan's body in ``jax.checkpoint``."""
    source = _host_source(module, loop, callers)
    body = label("offload.later_loop_state_fix_body")
    if source is None:
        return body
    if source.opcode is HloOpcode.PARAMETER:
        value = label("offload.later_loop_state_host_argument", param=source.name, number=source.parameter_number)
    else:
        value = label("offload.later_loop_state_moved_before", instruction=source.name)
    before = label("offload.later_loop_state_fix_input", value=value)
    if not _moves_to_host_inside(loop):
        return before
    return label("offload.later_loop_state_fix_both", input=before, body=body)


def _host_source(module: HloModule, loop: HloInstruction, callers: dict[int, list[HloInstruction]],
                 budget: int = 20_000) -> HloInstruction | None:
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
        if is_move_to_device(instr) or instr.opcode is HloOpcode.WHILE:
            continue
        nxt: list[HloInstruction] = list(instr.operands)
        if instr.opcode is HloOpcode.PARAMETER and instr.parameter_number is not None:
            number = instr.parameter_number
            if instr.parent is module.entry:
                if number < len(ecl.parameters) and any(
                        leaf.is_array and _space(leaf) == HOST_MEMORY_SPACE for _, leaf in ecl.parameters[number].leaves()):
                    return instr
                continue
            nxt = [c.operands[number] for c in callers.get(id(instr.parent), []) if number < len(c.operands)]
        elif instr.opcode is HloOpcode.CALL:
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
        if instr.opcode is HloOpcode.TUPLE and index and index[0] < len(instr.operands):
            instr, index = instr.operands[index[0]], index[1:]
        elif instr.opcode is HloOpcode.GET_TUPLE_ELEMENT:
            instr, index = instr.operands[0], (instr.gte_index(), *index)
        elif _is_sharding_marker(instr) or (instr.opcode in (HloOpcode.BITCAST, HloOpcode.COPY) and not index):
            instr = instr.operands[0]
        elif instr.opcode is HloOpcode.CALL and (instr.called.get("to_apply") or []) and \
                instr.called["to_apply"][0].root is not None:
            calls, instr = (*calls, instr), instr.called["to_apply"][0].root
        elif instr.opcode is HloOpcode.PARAMETER and calls and instr.parent is not None and \
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
    if index or dus.opcode is not HloOpcode.DYNAMIC_UPDATE_SLICE or len(dus.operands) < 2:
        return None
    if not _is_carry(*_resolve(dus.operands[0], (), calls), param, j):
        return None
    reshape = dus.operands[1]
    if reshape.opcode is not HloOpcode.RESHAPE:
        return None
    move, index, inner = _resolve(reshape.operands[0], (), calls)
    if index or not is_move_to_host(move) or not _is_carry(*_resolve(move.operands[0], (), inner), param, i):
        return None
    return reshape


def _only_moved_to_device(loop: HloInstruction, i: int) -> bool:
    """Every use of the loop's result ``i`` is a move to device (or there is none)."""
    stack: list[HloInstruction] = []
    for user in loop.users:
        if user.opcode is not HloOpcode.GET_TUPLE_ELEMENT:
            return False  # the whole loop tuple goes on: not what was measured
        if user.gte_index() == i:
            stack.append(user)
    while stack:
        for user in stack.pop().users:
            if user.opcode in (HloOpcode.BITCAST, HloOpcode.COPY) or _is_sharding_marker(user):
                stack.append(user)
            elif not is_move_to_device(user):
                return False
    return True


def _changing_indices(loop: HloInstruction, host: set[tuple[str, tuple[int, ...]]]) -> set[int]:
    """The top-level state indices of ``loop`` with an array that changes memory space."""
    body = loop.called["body"][0]
    if body.root is None or not body.parameters:
        return set()
    param, root = body.parameters[0], body.root
    return {index[0] for index, leaf in param.shape.leaves() if index and leaf.is_array
            and ((param.name, index) in host) != ((root.name, index) in host)}


def _enclosing_loops(comp: HloComputation | None, caller: dict[int, HloInstruction]) -> list[HloInstruction]:
    """The while loops whose body ``comp`` runs in, directly or through calls, innermost first."""
    loops: list[HloInstruction] = []
    seen: set[int] = set()
    while comp is not None and id(comp) in caller and id(comp) not in seen:
        seen.add(id(comp))
        instr = caller[id(comp)]
        if instr.opcode is HloOpcode.WHILE and comp in (instr.called.get("body") or []):
            loops.append(instr)
        comp = instr.parent
    return loops


def _first_to_fail(loop: HloInstruction, changing: dict[int, set[int]], caller: dict[int, HloInstruction]) -> bool:
    """No other loop's state change can fail first: measured, another loop whose state changes
    memory space fails first with "The async-start expects the shape" or not, by program order; a
    loop around ``loop`` whose changing results are only moved to device lets this one fail first."""
    around = {id(o) for o in _enclosing_loops(loop.parent, caller)}
    for other_id, indices in changing.items():
        if other_id == id(loop):
            continue
        if other_id not in around:
            return False
        other = next(o for o in _enclosing_loops(loop.parent, caller) if id(o) == other_id)
        if not all(_only_moved_to_device(other, i) for i in indices):
            return False
    return True


def _loop_state_reshapes(module: HloModule, result: HostOffloadResult) -> Iterator[PassFailure]:
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
    warned, :func:`_first_to_fail`)."""
    host = set(result.host_positions)
    caller = {id(c): instr for comp in module.computations for instr in comp.instructions
              for called in instr.called.values() for c in called}
    changing = {id(loop): indices for comp in module.computations for loop in comp.instructions
                if loop.opcode is HloOpcode.WHILE and loop.called.get("body")
                for indices in [_changing_indices(loop, host)] if indices}
    for comp in module.computations:
        for loop in comp.instructions:
            if loop.opcode is not HloOpcode.WHILE or not loop.called.get("body"):
                continue
            trips = trip_count(loop)
            body = loop.called["body"][0]
            if trips is None or trips < 2 or body.root is None or not body.parameters:
                continue
            param, root = body.parameters[0], body.root
            states = list(param.shape.tuple_shapes) if param.shape.is_tuple else []
            for i in range(len(states)):
                if (param.name, (i,)) in host or (root.name, (i,)) not in host:
                    continue  # measured only for a carry entering on device and leaving on host
                moved = _carry_moved_to_host(root, param, i)
                if moved is None or not _only_moved_to_device(loop, i) or not _first_to_fail(loop, changing, caller):
                    continue
                reshape = next((r for j in range(len(states)) if j != i
                                for r in [_ys_element_of(root, param, j, i)] if r is not None), None)
                if reshape is None:
                    continue
                yield PassFailure(Status.INTERNAL, label(
                    "offload.later_loop_state_reshape", libtpu=LIBTPU, loop=loop.name, index=format_shape_index((i,)),
                    move=moved[0].name, reshape=reshape.name, trips=trips), reshape.name)
                break
