"""libtpu's ``while-initializer-removal``: a scan's zero-filled output buffer becomes an ``AllocateBuffer``.

libtpu 0.0.42.1 runs this pass right before ``pipelining-optimizations`` and ``host_offloading``
(its dump ``...after_while-initializer-removal...`` is where the rewrite first shows).  The
comparison of our prepared module with the compiler's ``before_host-offload-legalize`` dump
(:mod:`xladoctor.oracle.prepass`) found it on a third of the differing programs: the
``broadcast(0)`` that ``lax.scan`` makes for its stacked ``ys`` is, in the compiler's module, a
``custom-call(), custom_call_target="AllocateBuffer"``.  HostOffloader treats the two apart:
an ``AllocateBuffer`` that feeds a host ``dynamic-update-slice`` is given host memory as it is,
a broadcast is replaced by one first.

The pass is not in openxla; XLA:GPU's ``DusAccumulatorZeroInitElimination``
(``xla/backends/gpu/transforms/dus_accumulator_zero_init_elimination.cc``) makes the same
rewrite and its conditions are the ones modelled, reduced to the loops JAX writes:

* the ``while`` has a known trip count ``T``: an induction variable slot that starts at 0, is
  incremented by 1 in the body and compared ``LT`` a constant ``T`` in the condition;
* the slot's initial value is a ``broadcast`` of a scalar constant (through ``bitcast`` /
  ``copy`` / ``reshape``), used only by the loop's init ``tuple`` and in that slot only, whose
  first dimension is ``T``;
* in the body the slot is read once (one ``get-tuple-element``) and only by
  ``dynamic-update-slice``\\ s that overwrite it before any read: updating it as operand 0, at
  constant 0 with the full size in every dimension but one, and in that one at the induction
  variable itself (a slice of at least one row);
* the body's root does not pass the slot through unchanged.

Then the init operand is replaced by a new ``AllocateBuffer`` custom call of the same shape
(the broadcast, unused, is dead-code elimination's).

**The accumulating form** (``--user remat_grad``: a gradient summed over a scan's steps): a slot
whose init is a broadcast zero used by that slot only, read once in the body (not by a
``dynamic-update-slice`` as its buffer: a stack written at a reversed index stays) and not
passed through, also gets an ``AllocateBuffer``; in the body its read is replaced by
``select(broadcast(i == 0), zero, acc)``, so the first iteration sees the zero (libtpu's dump
shows exactly that ``select``, with a copy of the zero in the body).  A carry starting at
another value (``broadcast(1)``) stays.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import (
    BITCAST,
    BROADCAST,
    COMPARE,
    CONSTANT,
    CONVERT,
    COPY,
    CUSTOM_CALL,
    DYNAMIC_UPDATE_SLICE,
    GET_TUPLE_ELEMENT,
    PARAMETER,
    SELECT,
    TUPLE,
    WHILE,
    HloOpcode,
)
from ...ir.primitive import PRED
from ...ir.shape import Shape
from .. import loop_trips
from ..annotations import ALLOCATE_BUFFER
from .hlo_pass_interface import HloPassInterface

_LAYOUT_WRAPPERS = (HloOpcode.BITCAST, HloOpcode.COPY, HloOpcode.RESHAPE)


def remove_while_initializers(module: HloModule) -> list[str]:
    """Replace each dead zero-filled loop buffer by an ``AllocateBuffer``; the new names."""
    made: list[str] = []
    for comp in list(module.computations):
        for loop in [i for i in comp.instructions if i.opcode is WHILE]:
            made.extend(_rewrite_loop(module, comp, loop))
    return made


def _rewrite_loop(module: HloModule, comp: HloComputation, loop: HloInstruction) -> list[str]:
    init = loop.operands[0]
    found = induction_variable(loop)
    if init.opcode is not TUPLE or found is None:
        return []
    slot_iv, trip = found
    made = []
    for slot, value in enumerate(init.operands):
        if slot == slot_iv or not _is_broadcast_of_scalar_constant(value) or len(value.users) != 1:
            continue
        dims = value.shape.dimensions if value.shape.is_array else ()
        if dims and dims[0] == trip and _slot_is_dead_input(loop, slot, slot_iv, trip):
            pass
        elif not _rewrite_accumulator(module, loop, slot, slot_iv, value):
            continue
        alloc = HloInstruction(module.unique_name("custom-call"), CUSTOM_CALL, value.shape)
        alloc.custom_call_target = ALLOCATE_BUFFER
        alloc.copy_metadata_from(value)
        comp.insert_before(init, alloc)
        init.replace_operand(slot, alloc)
        made.append(alloc.name)
    return made


def induction_variable(loop: HloInstruction) -> tuple[int, int] | None:
    """``(tuple index, trip count)`` of a loop counting from 0 by 1 while ``LT`` a constant."""
    found = loop_trips.induction_variable(loop)
    return (found[0], found[2]) if found is not None and found[1] == 0 else None


def _parameter_slot(instr: HloInstruction) -> int | None:
    """``get-tuple-element(parameter(0)), index=N`` -> N."""
    if instr.opcode is not GET_TUPLE_ELEMENT or instr.operands[0].opcode is not PARAMETER:
        return None
    return instr.tuple_index


def _is_broadcast_of_scalar_constant(instr: HloInstruction) -> bool:
    while instr.opcode in _LAYOUT_WRAPPERS:
        instr = instr.operands[0]
    if instr.opcode is not BROADCAST:
        return False
    scalar = instr.operands[0]
    while scalar.opcode is CONVERT:
        scalar = scalar.operands[0]
    return scalar.opcode is CONSTANT and not scalar.shape.dimensions


def _slot_is_dead_input(loop: HloInstruction, slot: int, slot_iv: int, trip: int) -> bool:
    body = loop.called["body"][0]
    param, root = body.parameters[0], body.root
    if root is None or root.opcode is not TUPLE:
        return False
    reads = [u for u in param.users if u.opcode is GET_TUPLE_ELEMENT and u.tuple_index == slot]
    if not reads:
        return True
    if len(reads) != 1 or any(u.opcode is not GET_TUPLE_ELEMENT for u in param.users):
        return False
    read = reads[0]
    if not _all_users_kill(read, slot_iv, trip):
        return False
    value = root.operands[slot]
    while value.opcode in (BITCAST, COPY):
        value = value.operands[0]
    return value is not read


def _all_users_kill(buffer: HloInstruction, slot_iv: int, trip: int) -> bool:
    for user in buffer.users:
        if user.opcode is BITCAST:
            if not _all_users_kill(user, slot_iv, trip):
                return False
        elif not _is_killing_dus(user, buffer, slot_iv, trip):
            return False
    return True


def _is_killing_dus(dus: HloInstruction, operand: HloInstruction, slot_iv: int, trip: int) -> bool:
    """A ``dynamic-update-slice`` of ``operand`` that covers it over the loop's iterations."""
    if dus.opcode is not DYNAMIC_UPDATE_SLICE or dus.operands[0] is not operand or \
            operand in dus.operands[1:]:
        return False
    full, update = operand.shape.dimensions, dus.operands[1].shape.dimensions
    if len(full) != len(update):
        return False
    dynamic = None
    for d, index in enumerate(dus.operands[2:]):
        span = _index_range(index, slot_iv, trip)
        if span is None:
            return False
        if span == (0, 0):
            if update[d] != full[d]:
                return False
            continue
        if dynamic is not None:
            return False
        dynamic = (d, span)
    if dynamic is None:
        return False
    d, (low, high) = dynamic
    return 0 < update[d] <= full[d] and low <= 0 and high >= full[d] - update[d]


def _index_range(index: HloInstruction, slot_iv: int, trip: int) -> tuple[int, int] | None:
    """The values ``index`` takes over iterations 0..trip-1: a constant, or the induction
    variable itself.  libtpu leaves the buffer of a reversed index (``C - i``) alone, unlike
    XLA:GPU's pass (seen: ``maxtext_decoder``'s gradient stacks under ``value_and_grad``)."""
    value = loop_trips.integer(index)
    if value is not None:
        return value, value
    if _parameter_slot(index) == slot_iv:
        return 0, trip - 1
    return None  # a reversed index (C - i: a reversed scan, a gradient's stack) is not replaced


def _rewrite_accumulator(module: HloModule, loop: HloInstruction, slot: int, slot_iv: int,
                         init: HloInstruction) -> bool:
    """The accumulating form: a slot read once in the body and not passed through gets
    ``select(i == 0, init, acc)`` in place of its read, so that its initial value is never read."""
    body = loop.called["body"][0]
    param, root = body.parameters[0], body.root
    if root is None or root.opcode is not TUPLE or not init.shape.is_array:
        return False
    reads = [u for u in param.users if u.opcode is GET_TUPLE_ELEMENT and u.tuple_index == slot]
    ivs = [u for u in param.users if u.opcode is GET_TUPLE_ELEMENT and u.tuple_index == slot_iv]
    if len(reads) != 1 or len(ivs) != 1 or root.operands[slot] is reads[0] or not reads[0].users or \
            any(u.opcode is not GET_TUPLE_ELEMENT for u in param.users):
        return False  # the whole parameter read elsewhere: the slot's init could still be seen
    read, iv = reads[0], ivs[0]
    users = list(read.users)
    if not _is_zero(init) or len(loop.operands[0].operand_indices(init)) != 1 or any(
            u.opcode is DYNAMIC_UPDATE_SLICE and u.operands[0] is read for u in users):
        return False  # a stack written at a reversed index (a gradient's): left as it is
    position = {instr: n for n, instr in enumerate(body.instructions)}
    anchor = min(users, key=lambda u: position.get(u, len(position)))
    zero = _new(module, body, anchor, "constant", CONSTANT, iv.shape)
    zero.literal = "0"
    first = _new(module, body, anchor, "compare", COMPARE, Shape.array(PRED, ()))
    first.attributes = {"direction": "EQ"}
    first.operands = (iv, zero)
    mask = _new(module, body, anchor, "broadcast", BROADCAST, Shape.array(PRED, read.shape.dimensions))
    mask.attributes = {"dimensions": "{}"}
    mask.operands = (first,)
    fresh = _clone_into(module, body, anchor, init)
    select = _new(module, body, anchor, "select", SELECT, read.shape)
    select.operands = (mask, fresh, read)
    for user in users:
        for index in user.operand_indices(read):
            user.replace_operand(index, select)
    return True


def _is_zero(instr: HloInstruction) -> bool:
    """A broadcast zero (the accumulator's init); a loop carry starting at another value stays
    (generated seed 1, program 0: ``broadcast(1)`` is in the dump)."""
    while instr.operands and instr.opcode is not CONSTANT:
        instr = instr.operands[0]
    try:
        return instr.literal is not None and float(instr.literal.strip()) == 0.0
    except ValueError:
        return False


def _new(module: HloModule, comp: HloComputation, anchor: HloInstruction, base: str,
         opcode: HloOpcode, shape: Shape) -> HloInstruction:
    instr = HloInstruction(module.unique_name(base), opcode, shape)
    comp.insert_before(anchor, instr)
    return instr


def _clone_into(module: HloModule, comp: HloComputation, anchor: HloInstruction,
                value: HloInstruction) -> HloInstruction:
    """A copy of the constant expression ``value`` (a chain ending in a scalar constant) in ``comp``."""
    operands = [_clone_into(module, comp, anchor, o) for o in value.operands]
    copy = value.clone_with_new_operands(value.shape, operands, module.unique_name(value.name + ".clone"))
    comp.insert_before(anchor, copy)
    return copy


class WhileInitializerRemoval(HloPassInterface):
    """libtpu's ``while_initializer_removal``: :func:`remove_while_initializers`."""

    name = "while_initializer_removal"

    def run(self, module: HloModule) -> bool:
        made = remove_while_initializers(module)
        # Only an AllocateBuffer made edits the module: an accumulator's select is made with it, and
        # every refusal (``_rewrite_accumulator``'s included) comes before anything is made.
        self.left_untouched = not made
        return bool(made)
