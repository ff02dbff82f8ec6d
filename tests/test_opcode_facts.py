"""The opcode facts live on ``HloOpcode`` and agree with each other (issue 20: one table).

Why: the parser, the verifier, dead-code elimination and HostOffloader's pure-memory walk each
used a set of opcode names of their own; two copies of one fact drift.  These checks tie the
properties to each other and to what jaxlib's parser was measured to accept.
"""

from __future__ import annotations

from xladoctor.ir.instruction import CALLED_COMPUTATION_ROLES
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload.passes.hlo_dce import _SIDE_EFFECTING


def test_every_called_computation_the_verifier_requires_is_an_attribute_the_parser_accepts_and_resolves():
    for op in HloOpcode:
        for role, count in op.called_computations:
            assert count >= 1
            assert role in CALLED_COMPUTATION_ROLES, (op, role)
            allowed = op.allowed_attributes
            assert allowed is None or role in allowed, (op, role)
            assert role in op.required_attributes or op in (HloOpcode.ASYNC_START, HloOpcode.SCATTER,
                                                             HloOpcode.REDUCE_WINDOW), (op, role)
        if op.passes_operands_to is not None:
            assert op.passes_operands_to in dict(op.called_computations)


def test_side_effects_as_xla_states_them_are_kept_by_dead_code_elimination():
    always = {op for op in HloOpcode if op.has_side_effect}
    assert {HloOpcode.SEND, HloOpcode.RECV_DONE, HloOpcode.RNG, HloOpcode.OUTFEED,
            HloOpcode.COLLECTIVE_PERMUTE_START} <= always
    assert not always & {HloOpcode.ADD, HloOpcode.COPY, HloOpcode.AFTER_ALL, HloOpcode.CUSTOM_CALL}
    assert always <= _SIDE_EFFECTING
    assert HloOpcode.CUSTOM_CALL.may_have_side_effect and HloOpcode.CUSTOM_CALL not in _SIDE_EFFECTING


def test_pure_memory_moves_are_xlas_list_and_copy_is_not_one():
    moves = {op for op in HloOpcode if op.is_pure_memory_move}
    assert len(moves) == 15
    assert HloOpcode.BITCAST in moves and HloOpcode.OPT_BARRIER in moves
    assert HloOpcode.COPY not in moves and HloOpcode.RESHAPE not in moves


def test_arity_is_the_parsers():
    assert HloOpcode.ADD.arity == 2 and HloOpcode.IOTA.arity == 0 and HloOpcode.TUPLE.arity is None
    assert HloOpcode.CONVOLUTION.arity == 2  # the parser's count; hlo_opcode.h declares it variadic
    assert HloOpcode.WHILE.required_attributes == ("condition", "body")
