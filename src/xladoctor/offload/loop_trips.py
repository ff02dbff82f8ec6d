"""A while loop's counter and constant trip count, as jax's ``scan``/``fori_loop`` write them.

A counter is a slot ``k`` of the loop state that the body's root sets to
``gte(param, k) + constant``; the trip count is known when the condition is
``counter < constant``, the counter starts at a constant and steps by 1.
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction
from ..ir.opcodes import ADD, COMPARE, CONSTANT, GET_TUPLE_ELEMENT, PARAMETER, TUPLE


def counter_slot(value: HloInstruction, body_root: HloInstruction) -> int | None:
    """``k`` when ``value`` is ``gte(param, k)`` and the body's root sets slot ``k`` to it plus a constant."""
    if value.opcode is not GET_TUPLE_ELEMENT or value.operands[0].opcode is not PARAMETER:
        return None
    k = value.gte_index()
    return k if 0 <= k < len(body_root.operands) and _step(body_root.operands[k], k) is not None else None


def _step(value: HloInstruction, k: int) -> int | None:
    """The constant added to slot ``k`` when ``value`` is ``gte(param, k) + constant``."""
    if value.opcode is not ADD or len(value.operands) != 2:
        return None
    reads = [o for o in value.operands if o.opcode is GET_TUPLE_ELEMENT and o.tuple_index == k
             and o.operands[0].opcode is PARAMETER]
    steps = [integer(o) for o in value.operands if o.opcode is CONSTANT]
    return steps[0] if reads and steps and steps[0] is not None else None


def integer(instr: HloInstruction | None) -> int | None:
    """The value of an integer scalar ``constant``, else None."""
    if instr is None or instr.opcode is not CONSTANT:
        return None
    try:
        return int((instr.literal or "").strip())
    except ValueError:
        return None


def initial(loop: HloInstruction, k: int) -> HloInstruction | None:
    """What slot ``k`` of the loop state starts as (the ``tuple`` operand of the while), or None."""
    init = loop.operands[0] if loop.operands else None
    if init is None or init.opcode is not TUPLE or k >= len(init.operands):
        return None
    return init.operands[k]


def induction_variable(loop: HloInstruction) -> tuple[int, int, int] | None:
    """``(slot, start, bound)`` of a loop whose condition is ``counter < bound`` (a constant), the
    counter starting at the constant ``start`` and stepping by 1; else None."""
    conds, bodies = loop.called.get("condition") or [], loop.called.get("body") or []
    if not conds or not bodies:
        return None
    test, root = conds[0].root, bodies[0].root
    if test is None or root is None or root.opcode is not TUPLE or \
            test.opcode is not COMPARE or test.attributes.get("direction") != "LT" or len(test.operands) != 2:
        return None
    counter, bound = test.operands
    k = counter_slot(counter, root)
    if k is None or _step(root.operands[k], k) != 1:
        return None
    start, end = integer(initial(loop, k)), integer(bound)
    return (k, start, end) if start is not None and end is not None else None


def trip_count(loop: HloInstruction) -> int | None:
    """How many times the body runs, when the condition is ``counter < constant`` stepping by 1."""
    found = induction_variable(loop)
    return max(0, found[2] - found[1]) if found is not None else None
