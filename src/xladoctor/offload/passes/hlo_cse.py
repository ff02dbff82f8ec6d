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
:func:`merge_duplicate_annotations`'s; others may have side effects), control flow
and calls, and the side-effecting opcodes dead-code elimination keeps.

The annotation CSE (the pipeline's ``annotation_cse``, :func:`merge_duplicate_annotations`) is
the same pass on placement annotations only, where libtpu runs HloCSE before the general one:
two MoveToHost (or two MoveToDevice) of the same value (looking through JAX's ``Sharding``
markers, gone by then) are one.  JAX marks ``annotate_device_placement`` side-effecting, which
would keep both, but XLA turns them into plain MoveToHost/MoveToDevice custom calls first.
"""

from __future__ import annotations

from collections.abc import Callable

from ...ir.computation import HloComputation
from ...ir.instruction import COMPILED, HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import ADD, AND, CUSTOM_CALL, MAXIMUM, MINIMUM, MULTIPLY, OPT_BARRIER, OR, PARAMETER, XOR
from ...ir.operands import WideOperands
from ...ir.packed_fields import USERS
from ...ir.rare_fields import CALLS, calls_in
from ..annotations import ANNOTATION_TARGETS, is_move_to_device, is_move_to_host
from .hlo_dce import _SIDE_EFFECTING
from .hlo_pass_interface import HloPassInterface
from .host_offload_utils import is_sharding_annotation

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .handed_orders import HandedOrders

_NEVER: Final = _SIDE_EFFECTING | {CUSTOM_CALL, OPT_BARRIER}
assert PARAMETER in _NEVER  # :func:`_cheap_key` reads ``tuple_index`` from its field on that
_COMMUTATIVE: Final = frozenset({ADD, MULTIPLY, MAXIMUM, MINIMUM,
                          AND, OR, XOR})
_IGNORED: Final = frozenset({"metadata", "sharding", "frontend_attributes", "backend_config", "statistics_viz"})


def eliminate_common_subexpressions(module: HloModule, orders: HandedOrders | None = None) -> list[tuple[str, str]]:
    """Merge equal instructions in every computation; ``(removed, kept)`` names.  ``orders``: where
    given, each computation walked whose post order after the merges is the walk's without what
    they removed gets its walk and those (:mod:`.handed_orders`), for the next pass to walk."""
    merged: list[tuple[str, str]] = []
    for comp in module.computations:
        if len(comp.instructions) <= _SMALL and not _two_may_merge(comp.instructions):
            continue  # a reducer (two parameters and an add: 304 of a train step's 306 visits a run)
        merged.extend(_merge_by_cheap_key(comp, orders))
    return merged


_SMALL: Final = 3
"""Computations up to this size are first asked :func:`_two_may_merge` (a train step's reducers)."""


def _two_may_merge(instructions: list[HloInstruction]) -> bool:
    """Whether two of ``instructions`` have opcodes that may merge (not in :data:`_NEVER`).  A merge
    replaces one such instruction by another, so without two nothing merges: :func:`_merge_by_cheap_key`
    would make the keys, find them all different (:func:`_all_differ`) and return none, walking nothing
    and handing no order on.  A loop, not a comprehension: no frame of its own."""
    never, count = _NEVER, 0
    for instr in instructions:
        if instr.opcode not in never:
            count += 1
    return count >= 2


def _cheap_key(instr: HloInstruction) -> tuple | None:
    """What two equal instructions share before the shape is printed or the attributes decoded
    (:class:`_OwnKeys`): opcode, operands, literal, tuple index, callees.  Only instructions with
    the same cheap key are compared by the own key (printing every shape and decoding every
    attribute was a third of the analysis of a train step, issue 36).

    Made for every instruction of every computation, twice per run, so it reads the fields as
    they are stored (the operand field, the rare fields) rather than through their properties,
    and keeps the operands themselves (compared by identity, as their ids were) rather than a
    tuple of their ids: half the time of the ``id`` version on a train step's entry."""
    opcode = instr.opcode
    if opcode in _NEVER:
        return None
    # A tuple; the one operand, kept bare, and kept so in the key (one operand is always stored
    # bare, so two keys of one operand compare the operands themselves, as their tuples would);
    # or a wide list.
    operands: tuple[HloInstruction, ...] | HloInstruction | WideOperands = instr._operands  # (compiled: checked)
    cls = type(operands)
    if cls is WideOperands:
        operands = operands.as_tuple()  # type: ignore[union-attr]
    elif opcode in _COMMUTATIVE:
        if cls is not tuple:
            operands = (operands,)  # type: ignore[assignment]
        elif len(operands) == 2:  # type: ignore[arg-type]  # a binary op (all of them, in a verified module): no sort call
            first, second = operands  # type: ignore[misc]
            if id(second) < id(first):
                operands = (second, first)
        else:
            operands = tuple(sorted(operands, key=id))  # type: ignore[arg-type]
    extra = instr._extra
    if extra is None:  # most instructions: no literal, number or call
        return (opcode, operands, None, None, ())
    called = calls_in(extra)
    # ``tuple_index`` read from its field: the property's other None, a parameter, is in _NEVER
    number = extra.number
    return (opcode, operands, extra.literal, None if isinstance(number, str) else number,
            () if not called else called.identity() if type(called) is CALLS else
            tuple(sorted((r, tuple(map(id, cs))) for r, cs in called.items())))


_NOT_PLAIN: Final = _NEVER | _COMMUTATIVE
"""Opcodes whose :func:`_cheap_key` is not the plain one (none, or the operands put in order)."""


def _cheap_keys(instructions: list[HloInstruction]) -> list[tuple | None]:
    """:func:`_cheap_key` of each instruction, interpreted: the plain key (an opcode that may merge
    and keeps its operand order, no rare fields, operands not a wide list: half of a train step's
    entry) and a commutative binary op's (a third) made in the comprehension, not by a call."""
    not_plain, commutative, wide = _NOT_PLAIN, _COMMUTATIVE, WideOperands
    return [(op, ops, None, None, ()) if (op := i.opcode) not in not_plain and i._extra is None
            and type(ops := i._operands) is not wide
            else (op, ops if id(ops[0]) < id(ops[1]) else (ops[1], ops[0]), None, None, ())
            if op in commutative and i._extra is None and type(ops := i._operands) is tuple and len(ops) == 2
            else _cheap_key(i) for i in instructions]


def _own_attributes(instr: HloInstruction) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in instr.attributes.items() if k not in _IGNORED))


class _OwnKeys:
    """The rest of HloCSE's identity after :func:`_cheap_key`: the shape as printed and the
    attributes that are not metadata.  Two instructions with equal cheap keys (opcode, operands,
    literal, tuple index, callees) and equal own keys are equal instructions; only those are
    compared by it, so it leaves the cheap key's fields out (building them again was half the
    time of the full key).  Each part is made once per instruction, and only when needed."""

    def __init__(self) -> None:
        self.shapes: dict[HloInstruction, str] = {}
        self.attributes: dict[HloInstruction, tuple[tuple[str, str], ...]] = {}

    def same(self, a: HloInstruction, b: HloInstruction) -> bool:
        """Whether ``a`` and ``b`` have the same shape as printed and the same attributes.

        A parsed instruction keeps its attributes as the text they were read from until they are
        first asked for: where both are that text and it is the same, their attributes are too,
        and neither is decoded (decoding was most of the comparison on a train step, whose
        duplicates repeat ``dimensions={}``, issue 36)."""
        shape_a, shape_b = a.shape, b.shape
        if shape_a is not shape_b:  # one object prints one text: the parser shares a shape per text
            shapes = self.shapes
            sa = shapes.get(a)
            if sa is None:
                sa = shapes[a] = str(shape_a)
            sb = shapes.get(b)
            if sb is None:
                sb = shapes[b] = str(shape_b)
            if sa != sb:
                return False
        ta = a._attributes
        if type(ta) is str and ta == b._attributes:
            return True
        attributes = self.attributes
        aa = attributes.get(a)
        if aa is None:
            aa = attributes[a] = _own_attributes(a)
        ab = attributes.get(b)
        if ab is None:
            ab = attributes[b] = _own_attributes(b)
        return aa == ab


def merge_duplicates(comp: HloComputation,
                     key_of: Callable[[HloInstruction], tuple | None] | None = None) -> list[tuple[str, str]]:
    """Replace each later instruction of ``comp`` whose ``key_of`` equals an earlier one's (in post
    order, as ``HloCSE`` keeps the first it meets) by that one; ``(removed, kept)`` names.  The
    annotation CSE (:func:`merge_duplicate_annotations`) is the same loop over its own key."""
    if key_of is None:
        return _merge_by_cheap_key(comp)
    merged: list[tuple[str, str]] = []
    first: dict[tuple, HloInstruction] = {}
    gone: set[HloInstruction] = set()
    for instr in comp.post_order():
        key = key_of(instr)
        if key is None:
            continue
        kept = first.setdefault(key, instr)
        if kept is instr:
            continue
        comp.replace_and_unhook(instr, kept, gone)
        merged.append((instr.name, kept.name))
    comp.drop_removed(gone, release_names=False)
    return merged


def _merge_by_cheap_key(comp: HloComputation, orders: HandedOrders | None = None) -> list[tuple[str, str]]:
    """:func:`merge_duplicates` over HloCSE's identity (:func:`_cheap_key` and :class:`_OwnKeys`),
    the own key made only for instructions whose cheap key an earlier one has; each is compared
    with those, first first, so the one kept is the first in post order that equals it.  (An
    earlier instruction's keys do not change later: its operands come before it in post order.)
    ``orders``: :func:`eliminate_common_subexpressions`'."""
    merged: list[tuple[str, str]] = []
    # The cheap keys as the computation is, in list order: where no two are equal nothing merges
    # (a merge needs two equal keys, and nothing changes before the first), so no post order.
    instructions = comp.instructions
    # compiled: native calls (map: Python's protocol each); pure Python: the plain key inline
    keys = [_cheap_key(instr) for instr in instructions] if COMPILED else _cheap_keys(instructions)
    if _all_differ(keys):
        return merged
    first_keys = dict(zip(instructions, keys))
    # The first instruction of each cheap key, or the list of those kept with it once there are
    # two: most keys have one instruction, which then costs one hash of its key, not two.
    buckets: dict[tuple, HloInstruction | list[HloInstruction]] = {}
    own = _OwnKeys()  # the own keys' parts, made at the first comparison
    gone: set[HloInstruction] = set()
    stale: set[HloInstruction] = set()  # users given another operand by a merge: their keys changed
    order = comp.post_order()
    handed = orders is not None  # the walk stays the post order after the merges unless one breaks it (handed_orders.py)
    for instr in order:
        cheap = _cheap_key(instr) if instr in stale else first_keys[instr]
        if cheap is None:
            continue
        head = buckets.setdefault(cheap, instr)
        if head is instr:
            continue
        if type(head) is list:
            bucket: list[HloInstruction] = head
        else:
            bucket = buckets[cheap] = [head]  # type: ignore[list-item]
        kept = None
        for m in bucket:
            if own.same(m, instr):
                kept = m
                break
        if kept is None:
            bucket.append(instr)
            continue
        users = instr._users  # the store, not the property's call: a Users, or one user kept bare
        if type(users) is USERS:
            stale.update(users)
        else:
            stale.add(users)  # type: ignore[arg-type]
        if handed and (not kept._users or ((extra := instr._extra) is not None and extra.control_predecessors)):
            handed = False  # ``kept`` a walk's start until now, or ``instr``'s control edges walked before it
        comp.replace_and_unhook(instr, kept, gone)
        merged.append((instr.name, kept.name))
    comp.drop_removed(gone, release_names=False)
    if handed and orders is not None:
        orders[comp] = (order, gone)
    return merged


def _all_differ(keys: list[tuple | None]) -> bool:
    """Whether the keys that are not None are all different (no two instructions can merge)."""
    nones = keys.count(None)
    return len(set(keys)) - (nones > 0) == len(keys) - nones


def _annotation_key(instr: HloInstruction) -> tuple | None:
    key = _kind_and_operands(instr)
    return None if key is None else (*key, str(instr.shape))


def _kind_and_operands(instr: HloInstruction) -> tuple | None:
    if instr.opcode is not CUSTOM_CALL:
        return None  # most instructions: one identity test before the annotation predicates
    if is_move_to_host(instr):
        kind = "host"
    elif is_move_to_device(instr):
        kind = "device"
    else:
        return None
    return (kind, tuple(id(_through_sharding(o)) for o in instr.operands))


def _through_sharding(instr: HloInstruction) -> HloInstruction:
    """The value under JAX's sharding markers (the partitioner removes them before CSE)."""
    while instr.opcode is CUSTOM_CALL and is_sharding_annotation(instr):
        instr = instr.operands[0]
    return instr


def _may_have_duplicates(instructions: list[HloInstruction]) -> bool:
    """Whether two annotations have the same kind and operands (the key without the shape,
    whose printing cost a third of this pass on a 50k-instruction module): without such a
    pair no two full keys are equal."""
    custom_call = CUSTOM_CALL  # tested here: a call per instruction was most of the pass
    candidates = [i for i in instructions if i.opcode is custom_call and i.custom_call_target in ANNOTATION_TARGETS]
    if len(candidates) < 2:
        return False  # one annotation has no pair
    operands = [tuple(id(_through_sharding(o)) for o in i.operands) for i in candidates]
    if len(set(operands)) == len(operands):
        return False  # a pair has the same operands: none here (a move and the move back: jax's device_put pairs)
    keys = [key for key in map(_kind_and_operands, candidates) if key is not None]
    return len(keys) != len(set(keys))


def merge_duplicate_annotations(module: HloModule) -> list[tuple[str, str]]:
    """``(removed, kept)`` names: later duplicates are replaced by the first one in post order
    (``HloCSE`` keeps the first it meets)."""
    merged: list[tuple[str, str]] = []
    for comp in module.computations:
        if not _may_have_duplicates(comp.instructions):
            continue  # no duplicates: nothing to merge
        merged.extend(merge_duplicates(comp, _annotation_key))
    return merged


class HloCSE(HloPassInterface):
    """XLA's ``HloCSE``: :func:`eliminate_common_subexpressions`, which leaves the post orders it
    knows (:attr:`orders_left`)."""

    name = "cse"

    def run(self, module: HloModule) -> bool:
        orders: HandedOrders = {}
        self.orders_left = orders
        return bool(eliminate_common_subexpressions(module, orders))


class AnnotationCSE(HloPassInterface):
    """``HloCSE`` on placement annotations only, where libtpu runs it first:
    :func:`merge_duplicate_annotations`."""

    name = "annotation_cse"

    def run(self, module: HloModule) -> bool:
        merged = merge_duplicate_annotations(module)
        # No merge: it only read the module (the candidates, their keys, a post order where two may merge).
        self.left_untouched = not merged
        return bool(merged)

    def same_as(self, other: HloPassInterface) -> bool:
        return isinstance(other, AnnotationCSE)  # no options, nothing carried between runs
