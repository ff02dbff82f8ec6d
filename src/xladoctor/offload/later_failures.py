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
  The same parameter computed on where it is (``x * 2`` with the result left in host memory,
  what JAX lowers when the argument is an array already in ``pinned_host``) aborts the compiler:
  ``Check failed: prev->opcode() == HloOpcode::kAsyncUpdate`` (hlo_instructions.cc, from the
  TPU's post-fusion tiling assignment), on a real v5e chip and compile-only alike; returning it
  unchanged runs right (tests/data/chip/, bench/chip_campaign.py).
* ``narrow-host-row-update``: a loop that writes a sub-32-bit value of one row into a buffer in
  host memory each iteration (``jax.lax.scan`` stacking rank-1 bf16/f16/s16/s8/u8/f8 ``ys`` moved
  to host, or ``[1, n]`` ones): the dynamic-update-slice's second-minor dimension is 1, less than
  the packed tile's sublanes, and libtpu aborts: ``Check failed: intermediate_calc.slice_size %
  intermediate_calc.update_detail.num_sublanes_per_chunk == 0 ... Sublane slicing size not
  multiple of update chunk sublane size`` (async_slice_util.cc).  Measured compile-only and on
  the chip: rank-1 of 100 to 1,024 elements and ``[1, 128]`` fail for every 8- and 16-bit type;
  ``[2, 128]`` and wider rows, and f32/s32 of any shape, compile and run right.

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

* ``nested-host-stack-read`` (:mod:`.later_nested`): nested scans under ``grad`` with an offloading
  checkpoint policy -- a buffer stacked on host by an inner and an outer loop (2 or more
  iterations each), then sliced in host compute in a loop: ``The async-start expects the shape
  of operand 0 to match the async shape``.
* ``host-argument-slice-update`` / ``host-argument-scatter`` (:mod:`.later_scatter`): a scatter
  into a host-memory argument (openxla/xla#34565 called with an array in ``pinned_host``): the
  lane-slice error, a sublane CHECK, or host compute's ``Fusion must have backend config``.

A pattern seen to fail but not narrowed to a rule gives a warning instead (never a silent
``ok``): another reshape of a loop's host-memory output merging its two leading
dimensions (a user's own merge of ys stacked on device compiles); and a while loop whose
state at some index is in one memory space on entry (the body's parameter) and in the
other after an iteration (the body's root), which HostOffloader leaves behind when a
scan body moves its carry or its ``ys`` buffer to host.  Every post-HostOffloader
failure of the campaign's scans ("The async-start expects the shape of operand 0 to
match the async shape", "Shape mismatch between parameter number 0 and its operand",
the TPU lowering's host-to-host CHECK) had such a loop; about a third of the programs
with one compile, so it is a warning (this and ``loop-state-reshape`` live in
:mod:`.later_loops`).  Its fix is for what puts the state on host: a value the
loop starts from in host memory (move it to device before the loop), a move to host in the body
(move it back before the body returns; an offloading checkpoint policy: ``jax.checkpoint`` around
the loop's body), or both; each compiled by libtpu (tests/test_jax_fix_campaign.py).

Only an ``ok`` from HostOffloader can be followed by these: an E1200 or another failure of
the pass stops the compile first.  The loop-state warning is given after an E1200 too: fixing
the E1200 leaves that loop as it is, so the first report gives every fix the program needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..base.labels import label
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import (
    BITCAST,
    CALL,
    CONCATENATE,
    COPY,
    DYNAMIC_UPDATE_SLICE,
    GET_TUPLE_ELEMENT,
    PARAMETER,
    RESHAPE,
    SCATTER,
    TUPLE,
    WHILE,
    HloOpcode,
)
from ..ir.shape import HOST_MEMORY_SPACE, Shape, format_shape_index
from ..ir.tpu_layouts import LIBTPU
from .annotations import is_move_to_device, is_move_to_host, is_sharding_marker
from .kinds import Status
from .later_loops import enclosing_loops, loop_state_changes_memory, loop_state_reshapes
from .later_nested import nested_host_stack_reads
from .later_scan import Found, instructions_of
from .later_scatter import host_argument_scatters
from .loop_trips import trip_count
from .result import HostOffloadResult, PassFailure

_STARTS = frozenset({WHILE, DYNAMIC_UPDATE_SLICE, RESHAPE, SCATTER})
"""The opcodes the later-failure checks start from (:func:`.later_scan.instructions_of`)."""
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
    if result.outcome not in ("ok", "E1200"):
        return
    found = instructions_of(module, _STARTS)  # what the checks start from, in one look
    whiles = found[WHILE]
    if result.outcome == "ok":
        entry = module.entry
        for failure in [*_donations(module), *_narrow_host_parameters(module), *_unrolled_scan_host_ys(found),
                        *loop_state_reshapes(module, result, whiles), *_narrow_host_row_updates(module, found),
                        *_lane_slice_host_updates(module, found), *nested_host_stack_reads(module, result),
                        *host_argument_scatters(module, [i for c, i in found[SCATTER] if c is entry])]:
            result.add_later_failure(failure)
        result.later_warnings.extend(_host_loop_output_reshapes(module, result, found))
    result.later_warnings.extend(loop_state_changes_memory(module, result, whiles))
    result.warnings.extend(result.later_warnings)


def _producer(instr: HloInstruction, index: tuple[int, ...]) -> HloInstruction:
    """What makes the value at ``index`` of ``instr``, through tuples and sharding markers."""
    while True:
        if instr.opcode is TUPLE and index:
            instr, index = instr.operands[index[0]], index[1:]
        elif instr.opcode is GET_TUPLE_ELEMENT:
            instr, index = instr.operands[0], (instr.gte_index(), *index)
        elif is_sharding_marker(instr):
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
        p_space = param.subshape(alias.parameter_index).memory_space
        o_space = ecl.result.subshape(alias.output_index).memory_space
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


def _first_user(instr: HloInstruction, found: Callable[[HloInstruction], bool],
                through: frozenset[HloOpcode] = _PASS_THROUGH) -> HloInstruction | None:
    """The first user ``found`` accepts that ``instr``'s value reaches through ``through`` ops and
    sharding markers (a use by anything else ends that branch), or None."""
    stack, seen = [instr], {instr}
    while stack:
        for user in stack.pop().users:
            if user in seen:
                continue
            seen.add(user)
            if found(user):
                return user
            if user.opcode in through or is_sharding_marker(user):
                stack.append(user)
    return None


def _moved_to_device(instr: HloInstruction) -> HloInstruction | None:
    """The MoveToDevice this value reaches through pass-through ops, or None."""
    return _first_user(instr, is_move_to_device)


def _narrow_host_parameters(module: HloModule) -> Iterator[PassFailure]:
    ecl = module.entry_computation_layout
    assert ecl is not None and module.entry is not None
    for number, param_shape in enumerate(ecl.parameters):
        if not param_shape.is_array or param_shape.memory_space != HOST_MEMORY_SPACE or len(param_shape.dimensions) < 2:
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
        if mtd is not None:
            yield PassFailure(Status.INTERNAL, label(
                "offload.later_narrow_tile", libtpu=LIBTPU, param=number, shape=str(param_shape), rows=rows,
                instruction=mtd.name), mtd.name)
            continue
        compute = _computed_in_place(param)
        if compute is not None:
            yield PassFailure(Status.CHECK, label(
                "offload.later_narrow_tile_compute", libtpu=LIBTPU, param=number, shape=str(param_shape), rows=rows,
                instruction=compute.name), compute.name)


_MOVEMENT = _PASS_THROUGH | {HloOpcode.RESHAPE}


def _computed_in_place(param: HloInstruction) -> HloInstruction | None:
    """The first instruction that computes on ``param`` (through data movement), not a placement."""
    def computes(user: HloInstruction) -> bool:
        return not (is_move_to_device(user) or is_move_to_host(user) or user.opcode in _MOVEMENT
                    or is_sharding_marker(user))

    return _first_user(param, computes, _MOVEMENT)


def _narrow_host_row_updates(module: HloModule, found: Found) -> Iterator[PassFailure]:
    """A dynamic-update-slice, in a loop body (or a computation it calls), of a sub-32-bit update
    whose second-minor dimension is 1 and that comes from a move to host: one row into a host buffer.
    Not in a loop known to run once: a scan of length 1 compiles (bench/public_boundaries.py)."""
    for comp, instr in found[DYNAMIC_UPDATE_SLICE]:
        if len(instr.operands) < 2:
            continue
        update = instr.operands[1].shape
        bits = update.element_type.bits if update.is_array else None
        if bits is None or bits >= 32 or len(update.dimensions) < 2 or _second_minor(update) != 1:
            continue
        loops = enclosing_loops(comp)
        trips = trip_count(loops[0]) if loops else None
        if trips is not None and trips < 2:
            continue  # measured: a scan of length 1 compiles, every type and row width
        if not _from_host_move(module, instr.operands[1]):
            continue
        yield PassFailure(Status.CHECK, label(
            "offload.later_narrow_row_update", libtpu=LIBTPU, instruction=instr.name, shape=str(update)),
            instr.name)


def _lane_slice_host_updates(module: HloModule, found: Found) -> Iterator[PassFailure]:
    """A dynamic-update-slice, in a loop of 2 or more iterations, writing one element of the minor
    dimension of a host buffer: an ``f32[1]`` row of a rank-1 buffer (a scan stacking scalar ys on
    host, openxla/xla#20373) or a 32-bit ``[1, 1]`` update.  Measured (libtpu 0.0.42.1,
    compile-only): rank-0 ys of f32, s32, bf16, s8 and ``(1,)`` ys of f32/s32, lengths 2 to 64,
    with or without a device ys beside them, fail with "UNIMPLEMENTED: Lane slice updating is not
    supported in async dynamic update slice yet"; length 1, and ``(2,)`` or wider 32-bit ys,
    compile.  Narrower ``[1, n]`` rows are :func:`_narrow_host_row_updates`' (a CHECK at 2
    iterations, this error at 4: a failure either way)."""
    for comp, instr in found[DYNAMIC_UPDATE_SLICE]:
        if len(instr.operands) < 2:
            continue
        update = instr.operands[1].shape
        if not update.is_array or not _lane_slice(update):
            continue
        loops = enclosing_loops(comp)
        trips = trip_count(loops[0]) if loops else None
        if trips is None or trips < 2 or not _from_host_move(module, instr.operands[1]):
            continue
        yield PassFailure(Status.UNIMPLEMENTED, label(
            "offload.later_lane_slice_update", libtpu=LIBTPU, instruction=instr.name, shape=str(update),
            loop=loops[0].name, trips=trips), instr.name)


def _lane_slice(update: Shape) -> bool:
    """``[1]`` of any type, or ``[1, 1]``/``[1, 1, 1]`` of a 32-bit type (rank-0, ``(1,)`` and ``(1, 1)``
    ys elements): one element of the minor dimension."""
    dims = tuple(update.dimensions)
    return bool(dims) and all(d == 1 for d in dims) and (len(dims) == 1 or update.element_type.bits == 32)


def _from_host_move(module: HloModule, instr: HloInstruction) -> bool:
    """``instr`` is a move to host, also through reshapes and the parameters of a computation that a
    single ``call`` calls (jax's ``dynamic_update_index_in_dim`` is such a call in a scan's body)."""
    for _ in range(16):
        if _moved_to_host(instr):
            return True
        while instr.opcode in (RESHAPE, BITCAST, COPY):
            instr = instr.operands[0]
        if instr.opcode is not PARAMETER or instr.parent is None:
            return _moved_to_host(instr)
        callers = module.callers_of(instr.parent)
        if len(callers) != 1 or callers[0].opcode is not CALL:
            return False
        number = instr.parameter_number
        if number is None or number >= len(callers[0].operands):
            return False
        instr = callers[0].operands[number]
    return False


def _host_loop_output_reshapes(module: HloModule, result: HostOffloadResult, found: Found) -> Iterator[str]:
    """A reshape of a while loop's output that ends in host memory, not an unrolled scan's (warned)."""
    host = result.host_position_names()
    entry = module.entry
    assert entry is not None
    for comp, instr in found[RESHAPE]:
        if comp is not entry or instr.name not in host:
            continue
        made_by = _producer(instr.operands[0], ())
        if made_by.opcode is WHILE and _merges_two_leading_dimensions(instr) and \
                trip_count(made_by) != 1 and _unrolled_scan(instr) is None:
            yield label("offload.later_host_loop_reshape", libtpu=LIBTPU, instruction=instr.name, loop=made_by.name)


def _unrolled_scan_host_ys(found: Found) -> Iterator[PassFailure]:
    """``jax.lax.scan(..., unroll=u)`` with host ys and a loop left to run (2 or more iterations).

    The ys blocks are host values by construction (stacked moves to host), so the reshape need not
    be a host position of our model (it is not when the ys go on into an outer scan's ys)."""
    for _, instr in found[RESHAPE]:
        if not _merges_two_leading_dimensions(instr):
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
    if gte.opcode is not GET_TUPLE_ELEMENT or gte.operands[0].opcode is not WHILE:
        return None
    loop, (trips, unroll) = gte.operands[0], gte.shape.dimensions[:2]
    bodies = loop.called.get("body") or []
    if trips < 2 or trip_count(loop) != trips or not bodies:
        return None
    for instr in bodies[0].instructions:
        if instr.opcode is CONCATENATE and len(instr.operands) == unroll and \
                all(_moved_to_host(o) for o in instr.operands):
            return loop
    return None


def _moved_to_host(instr: HloInstruction) -> bool:
    """``instr`` is a move to host, up through reshapes, tuples and the results of ``call``s."""
    index: tuple[int, ...] = ()
    for _ in range(64):
        if is_move_to_host(instr) and not index:
            return True
        if instr.opcode in (RESHAPE, BITCAST, COPY) and not index:
            instr = instr.operands[0]
        elif instr.opcode is GET_TUPLE_ELEMENT:
            instr, index = instr.operands[0], (instr.gte_index(), *index)
        elif instr.opcode is TUPLE and index and index[0] < len(instr.operands):
            instr, index = instr.operands[index[0]], index[1:]
        elif instr.opcode is CALL and (instr.called.get("to_apply") or []) and index:
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
