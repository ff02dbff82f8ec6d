"""A ``conditional`` checked as XLA's parser checks it, once its operands are known.

The branch index (operand 0) must be a scalar ``pred`` or ``s32``; a ``pred`` index
takes ``true_computation=`` and ``false_computation=``, an ``s32`` one
``branch_computations={...}`` (the other form is an unknown attribute there), and
there is one operand per branch after the index (XLA: ``operands.size() !=
branch_computations->size() + 1`` fails the parse).
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction

_PRED_FORM = ("true_computation", "false_computation")
_INDEX_FORM = ("branch_computations",)


def check_conditional(instr: HloInstruction) -> str | None:
    """XLA's message for a conditional it refuses, or None."""
    ops = instr.operands
    if not ops:
        return "conditional requires at least one operand"
    index = ops[0].shape
    if not index.is_array or index.rank:
        return "The first operand must be a scalar"
    is_pred = index.element_type.name == "pred"
    if not is_pred and index.element_type.name != "s32":
        return "The first operand must be a scalar of PRED or S32"
    wanted, other = (_PRED_FORM, _INDEX_FORM) if is_pred else (_INDEX_FORM, _PRED_FORM)
    for attr in other:
        if attr in instr.attributes:
            return (f'unexpected attribute "{attr}": a {index.element_type.name} branch index takes '
                    + " and ".join(f"{a}=" for a in wanted))
    for attr in wanted:
        if attr not in instr.attributes:
            return f"attribute {attr} is expected but not seen"
    branches = sum(len(instr.called.get(attr, ())) for attr in wanted)
    if not branches or len(ops) != branches + 1:
        return f"conditional with {branches} branch computations takes {branches + 1} operands, not {len(ops)}"
    return None
