"""libtpu's ``concat-decomposer``: a concatenate becomes pads combined by ``maximum``.

libtpu 0.0.42.1 runs it in its ``Pre_main_fusion`` pipeline, before ``host_offloading`` (the dump
``...after_concat-decomposer...`` is where it first shows).  The comparison with the compiler's
``before_host-offload-legalize`` dump (:mod:`xladoctor.oracle.prepass`) found it on
``scan(..., unroll=2)`` with host ``ys``: the two rows JAX concatenates reach HostOffloader as::

    maximum(pad(a, -inf), padding=0_1x0_0x0_0, pad(b, -inf), padding=1_0x0_0x0_0)

so the host values' first user is a ``pad`` (issue 19: "concatenate becomes pad").  The pass is
libtpu's own (not in openxla); modelled is what the dumps show: a floating concatenate along
dimension 0 -- an ``s32`` concatenate along dimension 1 stayed -- is replaced by one ``pad`` of
each operand to the full shape with ``-inf`` (the operand at its offset, ``-inf`` elsewhere)
and a left-to-right chain of ``maximum`` of the pads.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CONCATENATE, CONSTANT, MAXIMUM, PAD
from ...ir.shape import Shape
from .hlo_pass_interface import HloPassInterface


def decompose_concatenates(module: HloModule) -> list[str]:
    """Replace each decomposable concatenate; the names replaced."""
    done: list[str] = []
    concatenate = CONCATENATE  # the opcode first: no call of _decomposable per instruction
    for comp in module.computations:
        for concat in [i for i in comp.instructions if i.opcode is concatenate and _decomposable(i)]:
            _decompose(module, comp, concat)
            done.append(concat.name)
    return done


def _decomposable(instr: HloInstruction) -> bool:
    if instr.opcode is not CONCATENATE or not instr.shape.is_array or len(instr.operands) < 2:
        return False
    return instr.shape.element_type.kind == "float" and \
        instr.attributes.get("dimensions", "").strip("{} ") == "0"


def _decompose(module: HloModule, comp: HloComputation, concat: HloInstruction) -> None:
    shape = concat.shape
    fill = HloInstruction(module.unique_name("constant"), CONSTANT,
                          Shape.array(shape.element_type, ()))
    fill.literal = "-inf"
    comp.insert_before(concat, fill)
    total, offset, combined = shape.dimensions[0], 0, None
    for operand in concat.operands:
        rows = operand.shape.dimensions[0]
        padding = "x".join([f"{offset}_{total - offset - rows}"] + ["0_0"] * (len(shape.dimensions) - 1))
        offset += rows
        pad = HloInstruction(module.unique_name("pad"), PAD, shape)
        pad.attributes = {"padding": padding}
        comp.insert_before(concat, pad)
        pad.operands = (operand, fill)
        if combined is None:
            combined = pad
            continue
        joined = HloInstruction(module.unique_name("maximum"), MAXIMUM, shape)
        comp.insert_before(concat, joined)
        joined.operands = (combined, pad)
        combined = joined
    assert combined is not None
    comp.replace_instruction(concat, combined)


class ConcatDecomposer(HloPassInterface):
    """libtpu's ``concat_decomposer``: :func:`decompose_concatenates`."""

    name = "concat_decomposer"

    def run(self, module: HloModule) -> bool:
        done = decompose_concatenates(module)
        self.left_untouched = not done  # only a decomposition edits the module (the scan reads it)
        return bool(done)
