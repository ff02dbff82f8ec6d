"""Structural checks on a parsed module, a subset of XLA's HloVerifier.

XLA's parser, like ours, accepts text that its verifier then rejects: a
``while`` without a ``body``, a ``get-tuple-element`` past the end of its tuple, a
``call`` whose callee takes a different number of parameters.  Analyses walk the
graph assuming these hold, so :func:`verify_module` checks them first and turns
a violation into one :class:`~xladoctor.base.errors.VerifyError` at the instruction's
line and column, instead of a crash deep inside an analysis.
"""

from __future__ import annotations

from ..base.errors import VerifyError
from .instruction import HloInstruction
from .module import HloModule
from .opcodes import CONDITIONAL, GET_TUPLE_ELEMENT, TUPLE, WHILE, HloOpcode
from .operands import operands_of
from .rare_fields import CALLS, NO_CALLS

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final


def _fail(module: HloModule, instr: HloInstruction, message: str) -> VerifyError:
    error = VerifyError(f"{message} (instruction '{instr.name}')", module.source_name, instr.line or 1,
                        instr.col or 1)
    error.instruction = instr.name
    return error


# The opcodes :func:`_verify_instruction` checks anything of (most instructions are of none).
_CHECKED = frozenset(op for op in HloOpcode if op.called_computations or op.passes_operands_to is not None
                     or op in (HloOpcode.GET_TUPLE_ELEMENT, HloOpcode.TUPLE, HloOpcode.WHILE, HloOpcode.CONDITIONAL))


_CALLS: Final = {op: op.called_computations for op in _CHECKED}
"""Each checked opcode's ``called_computations`` and ``passes_operands_to``, read per instruction
from a dict: the enum's properties are Python calls (``jax_entry`` at 100k instructions checks
15.8k calls, reduces and tuples)."""
_PASSES_TO: Final = {op: op.passes_operands_to for op in _CHECKED}


def verify_module(module: HloModule) -> None:
    """Raise :class:`VerifyError` for the first structural problem, in text order."""
    for w in module.layout_warnings:
        if w.role == "result":  # XLA's shape validation refuses the instruction's own layout (libtpu:
            error = VerifyError(f"{w.message} (instruction '{w.instruction}')",  # INVALID_ARGUMENT)
                                module.source_name, w.line, w.column)
            error.instruction = w.instruction
            raise error
    checked = _CHECKED
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.opcode in checked:
                _verify_instruction(module, instr)


def _verify_instruction(module: HloModule, instr: HloInstruction) -> None:
    op = instr.opcode
    # A get-tuple-element or a tuple calls nothing (no role to count): checked before the calls
    # are read (jax_entry: most checked instructions; the same first error either way).
    if op is GET_TUPLE_ELEMENT:
        if len(instr.operands) != 1 or instr.tuple_index is None:
            raise _fail(module, instr, "get-tuple-element needs one operand and index=N")
        shape = instr.operands[0].shape
        if not shape.is_tuple or not 0 <= instr.tuple_index < len(shape.tuple_shapes):
            raise _fail(module, instr, f"index={instr.tuple_index} is out of range for operand shape {shape}")
        return
    if op is TUPLE:  # (operands read by operands_of: the property's read was ~1k instructions more, 5k tuples a jax_entry 100k)
        if not instr.shape.is_tuple or len(instr.shape.tuple_shapes) != len(operands_of(instr)):
            raise _fail(module, instr, f"tuple of {len(instr.operands)} operands has shape {instr.shape}")
        return
    extra = instr._extra  # ``called``'s store: rare_fields.calls_in, inline (a Python call per instruction)
    called = NO_CALLS if extra is None else extra if type(extra) is CALLS else extra.called
    for role, count in _CALLS[op]:
        got = len(called.get(role, ()))
        if got != count:
            raise _fail(module, instr, f"{op.value} needs {count} '{role}' computation(s), has {got}")
    if op is WHILE:
        if len(instr.operands) != 1:
            raise _fail(module, instr, f"while takes 1 operand, has {len(instr.operands)}")
        for role in ("body", "condition"):
            if len(called[role][0].parameters) != 1:
                raise _fail(module, instr, f"while {role} '{called[role][0].name}' must take 1 parameter")
    elif (passed_to := _PASSES_TO[op]) is not None:
        callee = called[passed_to][0]
        if len(callee.parameters) != len(operands_of(instr)):  # (5k calls a jax_entry 100k: no property read)
            raise _fail(module, instr, f"{op.value} passes {len(instr.operands)} operand(s) to '{callee.name}', "
                                       f"which takes {len(callee.parameters)}")
    elif op is CONDITIONAL:
        branches = called.get("branch_computations") or [
            *called.get("true_computation", ()), *called.get("false_computation", ())]
        if not branches or len(instr.operands) != len(branches) + 1:
            raise _fail(module, instr, f"conditional with {len(branches)} branch(es) needs {len(branches) + 1} "
                                       f"operands, has {len(instr.operands)}")
        for b in branches:
            if len(b.parameters) != 1:
                raise _fail(module, instr, f"conditional branch '{b.name}' must take 1 parameter")
