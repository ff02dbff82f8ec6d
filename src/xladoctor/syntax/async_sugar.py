"""XLA's async syntax sugar: ``call-start``, ``custom-call-done``, ``dot-start``, ...

XLA's ``ParseOpcode`` reads ``<op>-start`` / ``-update`` / ``-done`` (for any opcode
but those with native async forms) as ``async-start`` / ``async-update`` /
``async-done`` wrapping ``<op>``.  For the start, ``CreateAsyncWrappedComputation``
builds the wrapped computation: a computation ``async_wrapped`` with one
parameter ``async_param`` per operand shape of the start's shape (at least the
opcode's arity; missing ones ``f32[1]``) and as root the wrapped instruction (named
after its opcode, shaped as the start's output, with the line's attributes).
(XLA's main branch also reshapes it after a ``call``/``fusion`` callee; jaxlib
0.10.2, the oracle, does not.)  It joins the module at once, before the computation being read, so its
names are uniquified first.  Update and done inherit the start's computation.
XLA prints such async ops in the sugared form again (:func:`sugared_opcode`).
"""

from __future__ import annotations

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.opcode_rules import COMMON_ATTRIBUTES
from ..ir.opcodes import ASYNC_DONE, ASYNC_START, ASYNC_UPDATE, OPCODES_BY_SPELLING, PARAMETER, HloOpcode
from ..ir.shape import Shape
from .attributes import unquote
from .instruction_line import ParsedInstruction

_SUFFIXES = (("-start", HloOpcode.ASYNC_START), ("-update", HloOpcode.ASYNC_UPDATE),
             ("-done", HloOpcode.ASYNC_DONE))
_NATIVE_ASYNC = frozenset({HloOpcode.ALL_GATHER, HloOpcode.ALL_REDUCE, HloOpcode.COLLECTIVE_PERMUTE,
                           HloOpcode.COPY, HloOpcode.RECV, HloOpcode.SEND})
ASYNC_OPS: frozenset[HloOpcode] = frozenset(op for _, op in _SUFFIXES)
_ASYNC = ASYNC_OPS
ASYNC_OWN_ATTRIBUTES = COMMON_ATTRIBUTES | {"async_execution_thread", "output_to_operand_aliasing"}
"""What stays on the async-start; the rest of the line's attributes belong to the wrapped op."""


def split_sugar(spelling: str) -> tuple[HloOpcode, HloOpcode] | None:
    """``(async opcode, wrapped opcode)`` for a sugared spelling, None if it is not one."""
    for suffix, async_op in _SUFFIXES:
        if spelling.endswith(suffix):
            wrapped = OPCODES_BY_SPELLING.get(spelling[: -len(suffix)])
            if wrapped is not None and wrapped not in _NATIVE_ASYNC and wrapped not in _ASYNC:
                return async_op, wrapped
            return None
    return None


def check_async(op: HloInstruction) -> str | None:
    """jaxlib's rules for an async op, as its message, or None: a start's shape is
    ``((operands), outputs, ...)``; an update or done has one operand, an async-start or
    -update (whose shape an update repeats) and the start's execution thread."""
    shape = op.shape
    if op.opcode is ASYNC_START:
        if not shape.is_tuple or len(shape.tuple_shapes) < 2 or not shape.tuple_shapes[0].is_tuple:
            return "AsyncStart expects the op shape to be in the form of ((async-operands), async-outputs, state)."
        return None
    if len(op.operands) != 1 or op.operands[0].opcode not in (ASYNC_START, ASYNC_UPDATE):
        return "AsyncUpdate and AsyncDone expect a single async op as their operand."
    producer = op.operands[0]
    if op.opcode is ASYNC_UPDATE and not shape.compatible(producer.shape):
        return "AsyncUpdate expects the op shape to be the same as the operand shape."
    start = producer
    while start.opcode is not ASYNC_START and start.operands:
        start = start.operands[0]
    thread, want = op.attributes.get("async_execution_thread"), start.attributes.get("async_execution_thread")
    if thread is not None and thread != (want or '"main"'):
        return f"Expect async_execution_thread to be {unquote(want or 'main')}, but got {unquote(thread)}"
    mine, theirs = op.called.get("calls"), start.called.get("calls")
    if mine and theirs and mine[0] is not theirs[0]:
        return f"Expect async_wrapped_computation to be {theirs[0].name}, but got {mine[0].name}"
    return None


def wrapped_computation(start: HloInstruction, wrapped: HloOpcode) -> HloComputation:
    """The computation XLA's ``CreateAsyncWrappedComputation`` makes for ``start`` (its
    attributes and called computations move to the wrapped root)."""
    operand_shapes = start.shape.tuple_shapes[0].tuple_shapes
    called = start.called
    count = max(wrapped.arity or 0, len(operand_shapes))
    comp = HloComputation("async_wrapped")
    params: list[HloInstruction] = []
    for i in range(count):
        shape = operand_shapes[i] if i < len(operand_shapes) else Shape.array("f32", (1,))
        param = ParsedInstruction("async_param", PARAMETER, shape)
        param.parameter_number = i
        params.append(param)
        comp.add_instruction(param)
    root = ParsedInstruction(wrapped.value, wrapped, start.shape.tuple_shapes[1])
    root.attributes = {k: v for k, v in start.attributes.items() if k not in ASYNC_OWN_ATTRIBUTES}
    root.set_called_computations(called)
    root.custom_call_target = start.custom_call_target
    root.set_position(start.line, start.col, start._where)
    root.operands = params
    comp.add_instruction(root)
    comp.set_root_instruction(root)
    start.attributes = {k: v for k, v in start.attributes.items() if k in ASYNC_OWN_ATTRIBUTES}
    start.set_called_computations({"calls": [comp]})
    start.custom_call_target = None
    return comp


def inherited_computation(op: HloInstruction, wrapped: HloOpcode) -> tuple[HloComputation | None, str | None]:
    """For a sugared update or done: the producer's wrapped computation, or XLA's complaint."""
    if not op.operands:
        return None, "No operand found for AsyncUpdate and AsyncDone"
    producer = op.operands[0]
    if producer.opcode is ASYNC_DONE:
        return None, "AsyncUpdate and AsyncDone cannot have AsyncDone as operand."
    comps = producer.called.get("calls") if producer.opcode in _ASYNC else None
    if not comps:
        return None, None
    root = comps[0].root
    if root is not None and root.opcode is not wrapped:
        return None, f"Expect async wrapped opcode to be {root.opcode.value}, but got {wrapped.value}"
    return comps[0], None


def sugared_opcode(instr: HloInstruction) -> str:
    """The opcode as XLA prints it: ``<wrapped>-start`` when the wrapped computation is one
    instruction over parameters (``CanExpandIntoSingleInstruction``), else the plain opcode."""
    op = instr.opcode
    if op in _ASYNC:
        comps = instr.called.get("calls")
        if not comps:
            start = instr
            while start.operands and start.opcode is not ASYNC_START and start.operands[0].opcode in _ASYNC:
                start = start.operands[0]
            comps = start.called.get("calls")
        if comps and comps[0].root is not None and all(
                i is comps[0].root or i.opcode is PARAMETER for i in comps[0].instructions):
            return comps[0].root.opcode.value + op.value[len("async"):]
    return op.value
