"""XLA's ``HloCSE``: two instructions that compute the same value are one.

libtpu's simplification pipelines start with ``cse`` (its dump ``simplification-1...before_cse``),
before ``host_offloading``.  The comparison with the compiler's ``before_host-offload-legalize``
dump (:mod:`xladoctor.oracle.prepass`) found programs where JAX writes one value twice --
``x * 2`` for two outputs, ``jnp.ones`` broadcasts in two places -- and the compiler's module
has it once: HostOffloader then sees one instruction with the users of both, which changes its
walks (which user comes first, whether a host value feeds compute once or twice).

Modelled as ``hlo_cse.cc`` does it without layouts: in post order (operands first, so chains
merge in one run) an instruction is replaced by the first earlier one with the same opcode,
shape, operands (the same instructions, in order; in any order for a commutative binary op, as
``IdenticalIgnoringCommutativeOperandOrder``: seed 1, program 393 has ``a + b`` and ``b + a``), attributes, called computations and, for a
constant, literal.  Not merged: parameters, custom calls (placement annotations are
:func:`.host_offloading_prepare.merge_duplicate_annotations`'s; others may have side effects), control flow
and calls, and the side-effecting opcodes dead-code elimination keeps.
"""

from __future__ import annotations

from collections.abc import Callable

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import HloOpcode
from .hlo_dce import _SIDE_EFFECTING

_NEVER = _SIDE_EFFECTING | {HloOpcode.CUSTOM_CALL, HloOpcode.OPT_BARRIER}
_COMMUTATIVE = frozenset({HloOpcode.ADD, HloOpcode.MULTIPLY, HloOpcode.MAXIMUM, HloOpcode.MINIMUM,
                          HloOpcode.AND, HloOpcode.OR, HloOpcode.XOR})
_IGNORED = frozenset({"metadata", "sharding", "frontend_attributes", "backend_config", "statistics_viz"})


def eliminate_common_subexpressions(module: HloModule) -> list[tuple[str, str]]:
    """Merge equal instructions in every computation; ``(removed, kept)`` names."""
    merged: list[tuple[str, str]] = []
    for comp in module.computations:
        merged.extend(merge_duplicates(comp))
    return merged


def _key(instr: HloInstruction) -> tuple | None:
    if instr.opcode in _NEVER:
        return None
    attrs = tuple(sorted((k, v) for k, v in instr.attributes.items() if k not in _IGNORED))
    called = tuple((role, tuple(id(c) for c in comps)) for role, comps in sorted(instr.called.items()))
    operands = [id(o) for o in instr.operands]
    if instr.opcode in _COMMUTATIVE:
        operands.sort()  # IdenticalIgnoringCommutativeOperandOrder
    return (instr.opcode, str(instr.shape), tuple(operands), attrs, called, instr.literal, instr.tuple_index)


def merge_duplicates(comp: HloComputation,
                     key_of: Callable[[HloInstruction], tuple | None] | None = None) -> list[tuple[str, str]]:
    """Replace each later instruction of ``comp`` whose ``key_of`` equals an earlier one's (in post
    order, as ``HloCSE`` keeps the first it meets) by that one; ``(removed, kept)`` names.  The
    annotation CSE (:func:`.host_offloading_prepare.merge_duplicate_annotations`) is the same loop over its own key."""
    key_fn = _key if key_of is None else key_of
    merged: list[tuple[str, str]] = []
    first: dict[tuple, HloInstruction] = {}
    gone: set[HloInstruction] = set()
    for instr in comp.post_order():
        key = key_fn(instr)
        if key is None:
            continue
        kept = first.setdefault(key, instr)
        if kept is instr:
            continue
        comp.replace_and_unhook(instr, kept, gone)
        merged.append((instr.name, kept.name))
    comp.drop_removed(gone, release_names=False)
    return merged
