"""A buffer stacked in host memory by nested loops, then sliced in host compute inside a loop.

``nested-host-stack-read`` (libtpu 0.0.42.1, v5e): nested scans under ``grad`` whose layer's
checkpoint policy offloads a residual (MaxText PR #4995's NESTED case) save it in two stacks:
the inner scan stacks each iteration's move to host into an ``[inner, ...]`` host buffer, and
the outer scan writes that buffer into an ``[outer, inner, ...]`` buffer that starts on device
-- a dynamic-update-slice of host data into a device buffer, which HostOffloader turns into host
compute (``dus-host-to-device``).  The backward pass's loop then slices that buffer by its
counter and keeps the slice in host memory (the inner loop moves each row to device), a
dynamic-slice HostOffloader also turns into host compute; the compiler expects the buffer in
host memory there and finds it on device: ``The async-start expects the shape of operand 0 to
match the async shape at index {0} (f32[O,I,...]{...} vs f32[O,I,...]{...S(5)})``
(post-optimization verifier).

Measured compile-only (``bench/public_boundaries.py nested`` and ``stack``) and on a real v5e
chip (tests/data/chip/: user_programs ``remat_grad`` seeds 42, 67, 80, PR #4995 NESTED): it
fails exactly when both stacking loops run 2 or more times and the slice is taken in a loop
(also a ``fori_loop`` or a scan without inner loop, f32 and bf16).  It compiles when the outer
loop or the inner one runs once, when the policy offloads nothing (``remat_grad`` seed 78: its
layer's derivative needs no named value, so nothing is stacked), when each slice the reading
loop takes is moved to device whole, when the slice is taken outside any loop, when the outer
scan itself moves a device-stacked value to host (no host-compute write), and when the buffer
is a host argument rather than a nested stack.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..base.labels import label
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import (
    CALL,
    DYNAMIC_SLICE,
    DYNAMIC_UPDATE_SLICE,
    GET_TUPLE_ELEMENT,
    PARAMETER,
    TUPLE,
    WHILE,
    HloOpcode,
)
from ..ir.tpu_layouts import LIBTPU
from .annotations import is_sharding_marker
from .kinds import HostComputeReason, Status
from .later_loops import enclosing_loops
from .loop_trips import trip_count
from .result import HostOffloadResult, PassFailure

_Value = tuple[HloInstruction, tuple[int, ...]]


def nested_host_stack_reads(module: HloModule, result: HostOffloadResult) -> Iterator[PassFailure]:
    """Each dynamic-slice in host compute, in a loop of 2 or more iterations, of a buffer written in
    host compute (host data into a device buffer) by a loop of 2 or more iterations with what an
    inner loop of 2 or more iterations stacked in host memory."""
    writes = {h.instruction for h in result.host_compute if h.reason is HostComputeReason.DUS_HOST_TO_DEVICE}
    reads = [h.instruction for h in result.host_compute
             if h.reason is HostComputeReason.WALK and h.opcode == DYNAMIC_SLICE.value]
    if not writes or not reads:
        return
    for name in reads:
        read = module.get_instruction(name)
        if read is None or read.opcode is not DYNAMIC_SLICE or not read.operands:
            continue
        readers = enclosing_loops(read.parent)
        if not readers or not _runs_twice(readers[0]):
            continue  # measured: the same slice outside any loop compiles
        for origin, index in _origins(module, read.operands[0], into_loops=True):
            if index or origin.opcode is not DYNAMIC_UPDATE_SLICE or origin.name not in writes:
                continue
            stacked = _nested_stack(module, origin)
            if stacked is None:
                continue
            outer, inner = stacked
            yield PassFailure(Status.INTERNAL, label(
                "offload.later_nested_host_stack", libtpu=LIBTPU, shape=str(origin.shape.without_layout()),
                write=origin.name, read=read.name, outer=_where(outer), inner=_where(inner),
                reader=_where(readers[0]), outer_trips=trip_count(outer), inner_trips=trip_count(inner)), read.name)
            return  # the first such read is where the compile stops


def _runs_twice(loop: HloInstruction) -> bool:
    trips = trip_count(loop)
    return trips is not None and trips >= 2


def _nested_stack(module: HloModule, write: HloInstruction) -> tuple[HloInstruction, HloInstruction] | None:
    """``(outer, inner)`` when ``write`` runs in a loop of 2 or more iterations and writes what a
    loop of 2 or more iterations (inside it) made: the inner loop's stacked ys."""
    writers = enclosing_loops(write.parent)
    if not writers or not _runs_twice(writers[0]) or len(write.operands) < 2:
        return None
    for origin, _ in _origins(module, write.operands[1], into_loops=False):
        if origin.opcode is WHILE and _runs_twice(origin) and writers[0] in enclosing_loops(origin.parent):
            return writers[0], origin
    return None


def _where(loop: HloInstruction) -> str:
    """``while.31 (model.py:70 (loss))``: the loop by its Python line where the module records it."""
    loc = loop.source_location()
    return f"{loop.name} ({loc})" if loc is not None else loop.name


_MOVES = (HloOpcode.BITCAST, HloOpcode.COPY, HloOpcode.RESHAPE)


def _origins(module: HloModule, start: HloInstruction, into_loops: bool, budget: int = 4096) -> Iterator[_Value]:
    """The instructions (with a tuple index) whose value ``start`` is, upward on every path: through
    tuples, sharding markers and data movement, into the roots of ``call``s, out of a called
    computation's parameters to each caller's operand, and out of a while body's parameter to the
    loop's operand and to the body's root (the previous iteration's state).  ``into_loops``: a
    while's result is followed into its body's root; otherwise the while is an origin itself."""
    stack: list[_Value] = [(start, ())]
    seen: set[tuple[int, tuple[int, ...]]] = set()
    while stack and budget > 0:
        instr, index = stack.pop()
        if (id(instr), index) in seen:
            continue
        seen.add((id(instr), index))
        budget -= 1
        nxt = _upward(module, instr, index, into_loops)
        if nxt is None:
            yield instr, index
        else:
            stack.extend(nxt)


def _upward(module: HloModule, instr: HloInstruction, index: tuple[int, ...], into_loops: bool
            ) -> list[_Value] | None:
    """One step of :func:`_origins`, or None where ``instr`` makes the value itself."""
    op = instr.opcode
    if op is TUPLE and index and index[0] < len(instr.operands):
        return [(instr.operands[index[0]], index[1:])]
    if op is GET_TUPLE_ELEMENT:
        return [(instr.operands[0], (instr.gte_index(), *index))]
    if is_sharding_marker(instr) or (op in _MOVES and not index):
        return [(instr.operands[0], ())]
    if op is CALL and instr.called.get("to_apply"):
        root = instr.called["to_apply"][0].root
        return [(root, index)] if root is not None else None
    if op is WHILE and into_loops and instr.called.get("body"):
        root = instr.called["body"][0].root
        return [(root, index)] if root is not None else None
    if op is PARAMETER and instr.parent is not None and instr.parent is not module.entry:
        return _from_parameter(module, instr, index)
    return None


def _from_parameter(module: HloModule, param: HloInstruction, index: tuple[int, ...]) -> list[_Value] | None:
    comp, number = param.parent, param.parameter_number
    if number is None:
        return None
    found: list[_Value] = []
    for caller in module.callers_of(comp):
        if caller.opcode is CALL and number < len(caller.operands):
            found.append((caller.operands[number], index))
        elif caller.opcode is WHILE and comp in (caller.called.get("body") or []) and caller.operands:
            found.append((caller.operands[0], index))
            if comp.root is not None:
                found.append((comp.root, index))
    return found or None
