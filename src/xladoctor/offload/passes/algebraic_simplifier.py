"""AlgebraicSimplifier's rewrites that change what HostOffloader sees.

libtpu's compile runs XLA's AlgebraicSimplifier several times before ``host_offloading``
(``simplification-1`` .. ``-4``, ``layout_fixup``).  Most of its rewrites leave the dataflow
between a MoveToHost and an entry output alone; the ones modelled here do not, as the
comparison of our prepared module with the compiler's ``before_host-offload-legalize``
dump showed (:mod:`xladoctor.oracle.prepass`, ``bench/offload_campaign.py --compare-prepass``):

* ``HandleSelect``: ``select(p, x, x) -> x``; ``select(true, x, y) -> x`` and
  ``select(false, x, y) -> y`` for a constant (or broadcast constant) predicate.  So
  ``ROOT s = select(k, h, h)`` with ``h`` a MoveToHost compiles: the root becomes the
  MoveToHost itself.
* ``HandleNegate``: ``negate(negate(x)) -> x`` (seen in the campaign: seed 1, program 172).
* ``HandleSubtract`` / ``HandleAdd``'s reassociation of scalar integer constants:
  ``(C1 - x) - C2 -> (C1 - C2) - x``, which a reversed ``lax.scan`` writes for its row index
  (``N - i - 1``); the compiler's module reads ``subtract(2, i)`` where the lowering had
  ``subtract(subtract(3, i), 1)`` (seed 1, program 113).
* ``HandleMultiply``: ``(A * C1) * C2 -> A * (C1 * C2)`` for scalar constants or broadcasts of
  them (``x * 2 * 2`` reaches HostOffloader as ``x * 4``: seed 1, program 10);
* ``HandleAdd``: ``A + 0 -> A`` and ``0 + A -> A`` (a scalar zero, seen through broadcasts);
* ``HandleAdd``'s factoring: ``A*C + B*C -> (A+B)*C``, for any float ``C`` as libtpu runs it
  (MaxText's gradient of a mean: ``add(x*c, x*c)`` reaches HostOffloader as
  ``multiply(add(x, x), c)``);
* ``HandleAdd``'s reassociation: ``(A + C1) + C2 -> A + (C1 + C2)`` for float scalar constants
  or broadcasts of them (``x + 1 + 1`` under ``jax.grad``: ``remat_grad``);
* ``HandleMaximum`` / ``HandleMinimum``: ``max(max(x, y), y) -> max(x, y)`` (either operand,
  either order; ``relu(relu(x))`` under remat: ``scan_offload``, ``remat_grad``);
* ``HandleReshape``: ``reshape(reshape(x)) -> reshape(x)``, and ``x`` itself when that is its
  shape (``scan_offload``'s stacked ys);
* ``HandleDynamicSlice``: a ``dynamic-slice`` whose start indices are all constants is a
  ``slice`` (starts clamped into the operand, as the op does: corpus D5, D6);
* ``HandleTranspose``: ``transpose(dot(a, b)), dimensions={1,0} -> dot(b, a)`` for a matrix
  product without batch dimensions (contracting dimensions swapped): a gradient's
  ``dW = (x^T g)^T`` (``maxtext_decoder``);
* ``HandleDynamicSlice``: a slice as large as its operand is the operand;
* ``HandleDynamicUpdateSlice``: an update as large as the operand is the update itself;
* ``HandleConcatenate``: a concatenate's operand concatenated along the same dimension gives
  its operands instead; three or more operands that are one instruction of size 1 along the
  dimension are a ``broadcast`` of it (``scan_offload``'s ys of ``relu(relu(x))``);
* ``HandleCompare``: ``max(a, b) > a`` is ``b > a`` (and the three like it);
* ``HandleDivide``: ``A / C -> A * (1 / C)`` for a floating constant or a broadcast of one
  (MaxText's mean over 2048 elements: ``x * 0.00048828125``).

Each rewrite is XLA's ``ReplaceInstruction``: every use (and the root) moves to the
replacement, and the replaced instruction leaves its operands' user lists at once; the
operands it leaves unused are dead-code elimination's (the next pass in the pipeline).
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import (
    ADD,
    BROADCAST,
    COMPARE,
    CONCATENATE,
    CONSTANT,
    CUSTOM_CALL,
    DIVIDE,
    DOT,
    DYNAMIC_SLICE,
    DYNAMIC_UPDATE_SLICE,
    MAXIMUM,
    MINIMUM,
    MULTIPLY,
    NEGATE,
    RESHAPE,
    SELECT,
    SLICE,
    SUBTRACT,
    TRANSPOSE,
    HloOpcode,
)
from ...ir.operands import WideOperands, first_operand, operands_of
from ...ir.shape import Shape, default_layout
from .handed_orders import post_order
from .hlo_pass_interface import HloPassInterface
from .insertions import Insertions

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .handed_orders import HandedOrders


def simplify_for_offloading(module: HloModule, floats_are_real: bool = True) -> list[tuple[str, str]]:
    """Apply the modelled rewrites in every computation; ``(replaced, replacement)`` names.

    ``floats_are_real``: AlgebraicSimplifier's ``enable_floats_are_real``, as libtpu runs it
    (``A*C + B*C`` factored for any float ``C``); XLA:GPU runs without it (:func:`_factored_add`)."""
    return _simplify_module(module, floats_are_real)[0]


def _simplify_module(module: HloModule, floats_are_real: bool,
                     orders: HandedOrders | None = None) -> tuple[list[tuple[str, str]], bool]:
    """:func:`simplify_for_offloading`, and whether the module was left untouched: no computation
    had an instruction :func:`_may_rewrite` (so none was visited, nothing was made or named).
    ``orders``: post orders handed on by the pass before (:mod:`.handed_orders`; a computation is
    walked as it is when its turn comes, and a rewrite changes only its own computation)."""
    replaced: list[tuple[str, str]] = []
    untouched = True
    for comp in module.computations:
        if not _any_may_rewrite(comp.instructions):
            continue  # no rewrite can start here: no post order (most computations, and most runs)
        untouched = False
        replaced.extend(_simplify_computation(comp, floats_are_real, post_order(comp, orders)))
    return replaced, untouched


_REWRITTEN: Final = frozenset({SELECT, NEGATE, SUBTRACT, MULTIPLY, DIVIDE,
                        ADD, TRANSPOSE, MAXIMUM, MINIMUM, RESHAPE,
                        DYNAMIC_SLICE, DYNAMIC_UPDATE_SLICE,
                        CONCATENATE, COMPARE})
"""The opcodes the simplifier may rewrite, tested for every instruction: a set (one hash, the
spelling's, cached), not a tuple's 14 compares."""


def _any_may_rewrite(instructions: list[HloInstruction]) -> bool:
    """Whether :func:`_may_rewrite` holds for one of ``instructions``: a loop, which compiled calls
    it natively (``any(map(...))`` went through Python's call protocol per instruction); a loop, not
    ``any()`` of a generator, which interpreted costs a frame switch per instruction.

    The first tests :func:`_may_rewrite` makes are made here, without a call: the opcode against
    :data:`_REWRITTEN`, a binary add, multiply or divide against its operands' opcodes
    (:func:`_binary_rules_out`, spelled inline in its order: a train step's entry has ~1,600 such
    after each of the simplification pipeline's passes, none of them a rewrite), and the operand
    opcode each other rewrite's match starts from (a reshape's or negate's operand of its own
    opcode, a transpose's dot, a subtract's inner subtract and constant, a maximum's or minimum's
    inner one).  What they do not rule out goes to :func:`_may_rewrite_unruled`.  Two of a train
    step's four runs find nothing: what they cost is this scan, and ~1,000 calls a run were of
    instructions those operand tests rule out (reshapes, transposes, subtracts, maximums)."""
    rewritten, constant, broadcast = _REWRITTEN, CONSTANT, BROADCAST
    for instr in instructions:
        op = instr.opcode
        if op not in rewritten:
            continue
        operands = instr._operands
        if type(operands) is tuple:
            if len(operands) == 2:  # else not ruled out here
                k0, k1 = operands[0].opcode, operands[1].opcode
                if op is ADD or op is MULTIPLY or op is DIVIDE:
                    c1 = k1 is constant or k1 is broadcast
                    if op is DIVIDE:
                        if not c1:
                            continue  # divided by no constant
                    else:
                        c0 = k0 is constant or k0 is broadcast
                        if op is MULTIPLY:
                            if not ((k0 is op and c1) or (k1 is op and c0)):
                                continue  # no (A * C1) * C2
                        elif not (c0 or c1 or (k0 is MULTIPLY and k1 is MULTIPLY)):
                            continue  # no zero, no (A + C1) + C2, no A*C + B*C
                elif op is SUBTRACT:
                    if k0 is not SUBTRACT or k1 is not constant:
                        continue  # no (C1 - x) - C2
                elif (op is MAXIMUM or op is MINIMUM) and k0 is not op and k1 is not op:
                    continue  # no max(max(x, y), y)
        elif type(operands) is not WideOperands:  # the one operand, kept bare
            k = operands.opcode  # type: ignore[union-attr]
            if op is RESHAPE or op is NEGATE:
                if k is op:
                    return True  # reshape(reshape), negate(negate): _may_rewrite's answer
                continue
            if op is TRANSPOSE and k is not DOT:
                continue  # no transpose(dot)
        if _may_rewrite_unruled(instr, op):
            return True
    return False


def _may_rewrite(instr: HloInstruction) -> bool:
    """Whether :func:`_simplify_computation` might do anything at ``instr`` (replace it, create an
    instruction, take a name, narrow a compare) in the computation as it is: each rewrite's own
    match where a match creates instructions, the shape of the match (operands' opcodes) where
    it does not -- never false where a rewrite would act.

    A computation where no instruction may is left as it is by the whole run: the visit is in
    post order, and until something is rewritten the computation is the one looked at here.
    So those computations (a train step's reducers, and its entry once simplified) need no post
    order (issue 36: most of AlgebraicSimplifier's time, four runs over every computation)."""
    op = instr.opcode
    if op not in _REWRITTEN:
        return False
    if (op is ADD or op is MULTIPLY or op is DIVIDE) and _binary_rules_out(instr, op):
        return False  # most of a train step's candidates (1,600 of 2,300)
    return _may_rewrite_unruled(instr, op)


def _may_rewrite_unruled(instr: HloInstruction, op: HloOpcode) -> bool:
    """:func:`_may_rewrite` of ``instr`` of opcode ``op`` in :data:`_REWRITTEN`, a binary add,
    multiply or divide of which :func:`_binary_rules_out` does not rule out (its callers have
    made those two tests)."""
    operands = operands_of(instr)
    if op is ADD:  # a zero, a factoring (floats_are_real allows more), a reassociation
        return _add_of_zero(instr) is not None or _factoring(instr, True) is not None or \
            _reassociation(instr, op) is not None
    if op is MULTIPLY:
        return _reassociation(instr, op) is not None
    if op is DIVIDE:
        return _divisor(instr) is not None
    if op is TRANSPOSE:
        return _transposes_a_product(instr)
    if op is SUBTRACT:
        return _subtract_reassociation(instr) is not None
    if op is SELECT:
        return _select_replacement(instr) is not None
    if op is MAXIMUM or op is MINIMUM:
        return _idempotent(instr) is not None
    if op is DYNAMIC_SLICE:
        return _compatible(operands[0], instr) or all(o.opcode is CONSTANT for o in operands[1:])
    if op is DYNAMIC_UPDATE_SLICE:
        return _compatible(operands[1], instr)
    if op is CONCATENATE:
        return any(o.opcode is op for o in operands) or (len(operands) > 2 and all(o is operands[0] for o in operands))
    if op is COMPARE:
        return operands[0].opcode is MAXIMUM or operands[1].opcode is MINIMUM
    return operands[0].opcode is op  # negate, reshape: of the same opcode


def _binary_rules_out(instr: HloInstruction, op: HloOpcode) -> bool:
    """For an add, multiply or divide ``op`` of two operands: whether its operands' opcodes rule out
    every rewrite of it (False where they do not, or where it has not two).  What every match needs
    first: a constant operand (a float scalar, a zero: a constant or a broadcast, :func:`_float_scalar`,
    :func:`_is_all_zero`) on the side it reads one, or two multiplies (a factoring).  Read from the
    operand tuple (two operands are always one): no tuple made per test."""
    operands = instr._operands
    if type(operands) is not tuple or len(operands) != 2:
        return False
    k0, k1 = operands[0].opcode, operands[1].opcode
    c0 = k0 is CONSTANT or k0 is BROADCAST
    c1 = k1 is CONSTANT or k1 is BROADCAST
    if op is DIVIDE:
        return not c1  # divided by no constant
    if op is MULTIPLY:
        return not ((k0 is op and c1) or (k1 is op and c0))  # no (A * C1) * C2
    return not (c0 or c1 or (k0 is MULTIPLY and k1 is MULTIPLY))  # no zero, no (A + C1) + C2, no A*C + B*C


def _simplify_computation(comp: HloComputation, floats_are_real: bool = True,
                          order: list[HloInstruction] | None = None) -> list[tuple[str, str]]:
    """AlgebraicSimplifier on ``comp``, visited in ``order``, its post order (walked here if not given)."""
    replaced: list[tuple[str, str]] = []
    gone: set[HloInstruction] = set()
    at = Insertions(comp)  # new instructions go into the list in one sweep at the end
    rewritten = _REWRITTEN
    for instr in comp.post_order() if order is None else order:  # XLA's visitor: operands first, so chains collapse in one run
        op = instr.opcode  # read once: the chain below tested it up to 14 times for the others
        if op not in rewritten:  # the opcodes the chain names, and no other
            continue
        if (op is ADD or op is MULTIPLY or op is DIVIDE) and _binary_rules_out(instr, op):
            continue  # no match can start here: one test, not each rewrite's own (most of the first run's visits)
        if op is COMPARE:
            if _narrowed_compare(instr):
                replaced.append((instr.name, instr.name))
            continue
        replacement = _replacement(at, instr, op, floats_are_real)
        if replacement is None or not _compatible(replacement, instr):
            continue  # ReplaceInstruction refuses a shape that is not compatible
        instr.replace_all_uses_with(replacement)
        if instr.opcode is not SUBTRACT:  # XLA's subtract rewrite goes through an add
            _keep_name(comp, instr, replacement)
        comp.unhook(instr)
        gone.add(instr)
        replaced.append((instr.name, replacement.name))
    at.place(gone)  # the replaced left out as the new instructions go in (one sweep where all were anchors)
    if gone:
        comp.forget_removed(gone, release_names=False)
    return replaced


def _replacement(at: Insertions, instr: HloInstruction, op: HloOpcode, floats_are_real: bool) -> HloInstruction | None:
    """What the rewrite for ``op`` (one of :data:`_REWRITTEN` but compare) replaces ``instr`` by,
    new instructions placed through ``at``; None where none applies."""
    if op is SELECT:
        return _select_replacement(instr)
    if op is NEGATE:
        operand = instr.operands[0]
        return operand.operands[0] if operand.opcode is NEGATE else None
    if op is SUBTRACT:
        return _reassociated_subtract(at, instr)
    if op is MULTIPLY:
        return _reassociated(at, instr, MULTIPLY)
    if op is DIVIDE:
        return _divide_by_constant(at, instr)
    if op is ADD:
        return _add_of_zero(instr) or _factored_add(at, instr, floats_are_real) or _reassociated(at, instr, ADD)
    if op is TRANSPOSE:
        return _transposed_dot(at, instr)
    if op is MAXIMUM or op is MINIMUM:
        return _idempotent(instr)
    if op is RESHAPE:
        return _reshape_of_reshape(at, instr)
    if op is DYNAMIC_SLICE:
        return _full_slice(instr) or _constant_dynamic_slice(at, instr)
    if op is DYNAMIC_UPDATE_SLICE:
        return _full_update(instr)
    if op is CONCATENATE:
        return _flattened_concatenate(at, instr) or _concatenate_of_one_row(at, instr)
    return None


def _integer_scalar(instr: HloInstruction) -> int | None:
    if instr.opcode is not CONSTANT or instr.literal is None or not instr.shape.is_array or \
            instr.shape.dimensions or instr.shape.element_type.kind not in ("signed", "unsigned"):
        return None
    try:
        return int(instr.literal.strip())
    except ValueError:
        return None


def _subtract_reassociation(outer: HloInstruction) -> tuple[int, int, HloInstruction, HloInstruction] | None:
    """``(C1, C2, C1's instruction, x)`` where :func:`_reassociated_subtract` rewrites ``outer``."""
    inner, c2 = operands_of(outer)
    second = _integer_scalar(c2)
    if second is None or inner.opcode is not SUBTRACT or len(inner.users) != 1:
        return None
    c1, x = operands_of(inner)
    first = _integer_scalar(c1)
    if first is None:
        return None
    return first, second, c1, x


def _reassociated_subtract(at: Insertions, outer: HloInstruction) -> HloInstruction | None:
    """``(C1 - x) - C2`` -> a new ``(C1 - C2) - x`` (scalar integers), else None."""
    match = _subtract_reassociation(outer)
    if match is None:
        return None
    first, second, c1, x = match
    module = at.module
    assert module is not None
    constant = HloInstruction(module.unique_name("constant"), CONSTANT, c1.shape)
    constant.literal = str(first - second)
    at.insert_before(outer, constant)
    new = HloInstruction(module.unique_name("subtract"), SUBTRACT, outer.shape)
    at.insert_before(outer, new)
    new.operands = (constant, x)
    return new


def _float_scalar(instr: HloInstruction) -> tuple[float, bool] | None:
    """``(value, broadcast)`` of a floating scalar constant, or of a broadcast of one."""
    broadcast = instr.opcode is BROADCAST
    if broadcast:
        instr = first_operand(instr)
    extra = instr._extra  # ``literal`` read from its store, as the property reads it
    literal = None if extra is None else extra.literal
    if instr.opcode is not CONSTANT or literal is None or not instr.shape.is_array or \
            instr.shape.dimensions or instr.shape.element_type.kind != "float":
        return None
    try:
        return float(literal.strip()), broadcast
    except ValueError:
        return None


def _rounded(value: float, bits: int | None) -> float:
    """``value`` as the nearest f32 when ``bits`` is 32 (the constant folder computes in the type)."""
    if bits != 32:
        return value
    import struct

    return float(struct.unpack("f", struct.pack("f", value))[0])


_LITERALS: Final[dict[tuple[float, int | None], str]] = {}
""":func:`_literal_text`'s answers so far.  A train step folds the same few constants again and
again (81 folds, 4 values on the unrolled step), and the search for the shortest f32 text was
a tenth of the pass; two keys that compare equal (``0.0``, ``-0.0``) have the same text."""


def _literal_text(value: float, bits: int | None) -> str:
    """The literal as XLA prints it: the shortest text that reads back as the same value of
    the element type (``4``, ``0.5``, ``0.00048828125``)."""
    key = (value, bits)
    text = _LITERALS.get(key)
    if text is None:
        if len(_LITERALS) >= 4096:  # a process checking many modules: kept small
            _LITERALS.clear()
        text = _LITERALS[key] = _shortest_literal_text(value, bits)
    return text


def _shortest_literal_text(value: float, bits: int | None) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    if bits == 64:
        return repr(value)
    import struct

    rounded = struct.unpack("f", struct.pack("f", value))[0]
    for digits in range(1, 10):
        text = f"{rounded:.{digits}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == rounded:
            return text
    return repr(rounded)


def _new_scalar_operand(at: Insertions, anchor: HloInstruction, like: HloInstruction, value: float,
                        broadcast: bool) -> HloInstruction:
    """A constant (broadcast like ``like`` when ``broadcast``) holding ``value``."""
    module = at.module
    assert module is not None
    scalar_like = like.operands[0] if broadcast else like
    constant = HloInstruction(module.unique_name("constant"), CONSTANT, scalar_like.shape)
    constant.literal = _literal_text(value, scalar_like.shape.element_type.bits)
    at.insert_before(anchor, constant)
    if not broadcast:
        return constant
    new = HloInstruction(module.unique_name("broadcast"), BROADCAST, like.shape)
    new.attributes = {"dimensions": like.attributes.get("dimensions", "{}")}
    at.insert_before(anchor, new)
    new.operands = (constant,)
    return new


def _binary(at: Insertions, old: HloInstruction, opcode: HloOpcode, a: HloInstruction,
            b: HloInstruction) -> HloInstruction:
    module = at.module
    assert module is not None
    new = HloInstruction(module.unique_name(opcode.value), opcode, old.shape)
    at.insert_before(old, new)
    new.operands = (a, b)
    return new


def _reassociated(at: Insertions, outer: HloInstruction, opcode: HloOpcode) -> HloInstruction | None:
    """``(A op C1) op C2`` (either order) -> ``A op (C1 op C2)`` for ``op`` multiply or add and
    float scalar constants or broadcasts of them, both of one kind; None otherwise."""
    match = _reassociation(outer, opcode)
    if match is None:
        return None
    a, c2, first, second = match
    bits = c2.shape.element_type.bits
    x, y = _rounded(first[0], bits), _rounded(second[0], bits)
    value = _rounded(x * y if opcode is MULTIPLY else x + y, bits)  # folded in the type
    folded = _new_scalar_operand(at, outer, c2, value, second[1])
    return _binary(at, outer, opcode, a, folded)


def _reassociation(outer: HloInstruction, opcode: HloOpcode) -> tuple[HloInstruction, HloInstruction,
                                                                        tuple[float, bool], tuple[float, bool]] | None:
    """``(A, C2, C1's value, C2's value)`` where :func:`_reassociated` rewrites ``outer``, the first
    match in its order; None where it does not."""
    operands = outer._operands  # the stored tuple (a binary op's): no property call, as for ``inner``'s below
    if type(operands) is not tuple:
        operands = outer.operands
    if operands[0].opcode is not opcode and operands[1].opcode is not opcode:
        return None  # no inner operation to reassociate with (most adds with a constant operand)
    for inner, c2 in (operands, operands[::-1]):
        if inner.opcode is not opcode:
            continue
        second = _float_scalar(c2)
        if second is None:
            continue
        inner_operands = inner._operands
        if type(inner_operands) is not tuple:
            inner_operands = inner.operands
        for a, c1 in (inner_operands, inner_operands[::-1]):
            first = _float_scalar(c1)
            if first is None or first[1] != second[1] or _float_scalar(a) is not None or a.opcode is CONSTANT:
                continue
            return a, c2, first, second
    return None


def _factored_add(at: Insertions, add: HloInstruction, floats_are_real: bool = True) -> HloInstruction | None:
    """``A*C + B*C`` -> ``(A+B)*C`` (XLA's matching: ``C`` either operand of the left
    multiply, any operand of the right one; each multiply used only by the add), else None.

    XLA does this for floats only when ``C`` is a constant ``+-2^k`` unless
    ``enable_floats_are_real``; libtpu does it for any float ``C`` (seed 1, program 19:
    ``p1*2 + p1*p1`` reaches HostOffloader as ``(2 + p1) * p1``); XLA:GPU (``floats_are_real``
    false) only for integers or a ``C`` of ``+-2^k`` (``IsAllFpConstantPowerOf2``; its dumps, 2026-12-03)."""
    match = _factoring(add, floats_are_real)
    if match is None:
        return None
    a, b, c = match
    summed = _binary(at, add, ADD, a, b)
    return _binary(at, add, MULTIPLY, summed, c)


def _factoring(add: HloInstruction, floats_are_real: bool) -> tuple[HloInstruction, HloInstruction, HloInstruction] | None:
    """``(A, B, C)`` where :func:`_factored_add` rewrites ``add``; None where it does not."""
    operands = add._operands  # the stored tuples (binary ops'), each read once: no property call per read
    lhs, rhs = operands if type(operands) is tuple else add.operands
    if lhs.opcode is not MULTIPLY or rhs.opcode is not MULTIPLY or \
            lhs.user_count() != 1 or rhs.user_count() != 1:
        return None  # the multiplies would stay: no fewer multiplies
    left, right = operands_of(lhs), operands_of(rhs)
    for a, c in (left, left[::-1]):
        if c in right and (floats_are_real or add.shape.element_type.kind != "float" or _power_of_two(c)):
            b = right[1] if right[0] is c else right[0]
            return a, b, c
    return None


def _transposes_a_product(transpose: HloInstruction) -> bool:
    """Whether :func:`_transposed_dot` rewrites ``transpose``."""
    dot = first_operand(transpose)
    if dot.opcode is not DOT or dot.user_count() != 1 or len(transpose.shape.dimensions) != 2 or \
            transpose.attributes.get("dimensions", "").replace(" ", "") != "{1,0}":
        return False
    attrs = dot.attributes
    return not (attrs.get("lhs_batch_dims") or attrs.get("rhs_batch_dims") or
                any(len(o.shape.dimensions) != 2 for o in dot.operands))


def _transposed_dot(at: Insertions, transpose: HloInstruction) -> HloInstruction | None:
    """``transpose(dot(a, b))`` of a rank-2 product -> ``dot(b, a)``, else None."""
    if not _transposes_a_product(transpose):
        return None
    dot = transpose.operands[0]
    attrs = dot.attributes
    module = at.module
    assert module is not None
    shape = Shape.array(transpose.shape.element_type, transpose.shape.dimensions, default_layout(2))
    new = dot.clone_with_new_operands(shape, [dot.operands[1], dot.operands[0]], module.unique_name(dot.name))
    swapped = dict(attrs)
    swapped["lhs_contracting_dims"] = attrs.get("rhs_contracting_dims", "{}")
    swapped["rhs_contracting_dims"] = attrs.get("lhs_contracting_dims", "{}")
    new.attributes = swapped
    at.insert_before(transpose, new)
    return new


def _idempotent(outer: HloInstruction) -> HloInstruction | None:
    """``op(op(x, y), y)`` (any operand order) -> ``op(x, y)`` for ``op`` max or min."""
    operands = operands_of(outer)
    for inner, other in (operands, operands[::-1]):
        if inner.opcode is outer.opcode and other in operands_of(inner):
            return inner
    return None


def _reshape_of_reshape(at: Insertions, outer: HloInstruction) -> HloInstruction | None:
    inner = first_operand(outer)
    if inner.opcode is not RESHAPE:
        return None
    source = inner.operands[0]
    if tuple(source.shape.dimensions) == tuple(outer.shape.dimensions):
        return source
    module = at.module
    assert module is not None
    new = HloInstruction(module.unique_name("reshape"), RESHAPE, outer.shape)
    at.insert_before(outer, new)
    new.operands = (source,)
    return new


def _constant_dynamic_slice(at: Insertions, ds: HloInstruction) -> HloInstruction | None:
    """``dynamic-slice`` at constant starts -> ``slice`` (starts clamped to ``[0, dim - size]``)."""
    operand, starts = ds.operands[0], [_integer_scalar(i) for i in ds.operands[1:]]
    if any(v is None for v in starts) or not ds.shape.is_array:
        return None
    dims, sizes = operand.shape.dimensions, ds.shape.dimensions
    if len(starts) != len(dims) or len(sizes) != len(dims):
        return None
    bounds = []
    for start, dim, size in zip(starts, dims, sizes):
        assert start is not None
        first = min(max(start, 0), dim - size)
        bounds.append(f"[{first}:{first + size}]")
    module = at.module
    assert module is not None
    new = HloInstruction(module.unique_name("slice"), SLICE, ds.shape)
    new.attributes = {"slice": "{" + ", ".join(bounds) + "}"}
    at.insert_before(ds, new)
    new.operands = (operand,)
    return new


def _divisor(divide: HloInstruction) -> tuple[float, bool] | None:
    """The constant :func:`_divide_by_constant` divides by (value, broadcast), where it rewrites."""
    operands = divide._operands  # the stored tuple: no property call
    a, c = operands if type(operands) is tuple else divide.operands
    value = _float_scalar(c)
    if value is None or value[0] == 0 or a.opcode is CONSTANT:
        return None
    return value


def _divide_by_constant(at: Insertions, divide: HloInstruction) -> HloInstruction | None:
    """``A / C`` -> ``A * (1 / C)`` for a non-constant ``A`` and a float constant ``C`` (or a
    broadcast of a scalar one)."""
    value = _divisor(divide)
    if value is None:
        return None
    a, c = divide.operands
    inverse = _new_scalar_operand(at, divide, c, 1.0 / value[0], value[1])
    return _binary(at, divide, MULTIPLY, a, inverse)


def _full_slice(ds: HloInstruction) -> HloInstruction | None:
    """``HandleDynamicSlice``: a slice as large as its operand is the operand."""
    operand = ds.operands[0]
    return operand if _compatible(operand, ds) else None


def _narrowed_compare(compare: HloInstruction) -> bool:
    """``HandleCompare``, in place: ``Gt(Max(a, b), a) -> Gt(b, a)``, ``Gt(Max(a, b), b) -> Gt(a, b)``,
    ``Gt(a, Min(a, b)) -> Gt(a, b)``, ``Gt(b, Min(a, b)) -> Gt(b, a)`` (the gradient of
    ``relu(relu(x))`` compares ``max(y, 0) > 0``: ``remat_grad``)."""
    if compare.attributes.get("direction") != "GT":
        return False
    lhs, rhs = compare.operands
    if lhs.opcode is MAXIMUM:
        a, b = lhs.operands
        if rhs is a or rhs is b:
            compare.replace_operand(0, b if rhs is a else a)
            return True
    if rhs.opcode is MINIMUM:
        a, b = rhs.operands
        if lhs is a or lhs is b:
            compare.replace_operand(1, b if lhs is a else a)
            return True
    return False


def _flattened_concatenate(at: Insertions, concat: HloInstruction) -> HloInstruction | None:
    """``HandleConcatenate``: ``concatenate(concatenate(a, b), c)`` along one dimension is
    ``concatenate(a, b, c)`` (a ``lax.scan(..., unroll=2)`` of odd length, its loop gone)."""
    dims = concat.attributes.get("dimensions")
    inner = [o for o in concat.operands if o.opcode is CONCATENATE and
             o.attributes.get("dimensions") == dims]
    if not inner:
        return None
    operands = [x for o in concat.operands for x in (o.operands if o in inner else (o,))]
    module = at.module
    assert module is not None
    new = HloInstruction(module.unique_name("concatenate"), CONCATENATE, concat.shape)
    new.attributes = {"dimensions": dims or "{0}"}
    at.insert_before(concat, new)
    new.operands = tuple(operands)
    return new


def _concatenate_of_one_row(at: Insertions, concat: HloInstruction) -> HloInstruction | None:
    """``HandleConcatenate``'s last rewrite: more than two operands, all the same instruction,
    of size 1 along the concatenated dimension -> ``broadcast(reshape(x))`` of that dimension
    (the reshape drops it; its ``reshape(reshape)`` folds in the next run).  A scan's ys of
    rows that HloCSE made one value (``relu(relu(x))`` is ``relu(x)``: ``scan_offload``).

    XLA tries it after the flattening (:func:`_flattened_concatenate`) and the merging of
    adjacent slices (no pair of the same non-empty slice merges), and never for two operands:
    a binary concatenate is a ``pad`` when one operand is a broadcast scalar, else left.  A
    concatenate with an empty operand is rewritten before (not modelled: left here)."""
    operands, shape = concat.operands, concat.shape
    dims = concat.attributes.get("dimensions", "{0}").strip("{} ")
    if len(operands) <= 2 or any(o is not operands[0] for o in operands) or not dims.isdigit() or \
            not shape.is_array or not operands[0].shape.is_array:
        return None
    dim, row = int(dims), operands[0].shape.dimensions
    if dim >= len(row) or row[dim] != 1 or 0 in row:
        return None
    module = at.module
    assert module is not None
    kept = [i for i in range(len(row)) if i != dim]
    reshape = HloInstruction(module.unique_name("reshape"), RESHAPE,
                             Shape.array(shape.element_type, [row[i] for i in kept], default_layout(len(kept))))
    at.insert_before(concat, reshape)
    reshape.operands = (operands[0],)
    broadcast = HloInstruction(module.unique_name("broadcast"), BROADCAST, concat.shape)
    broadcast.attributes = {"dimensions": "{" + ",".join(map(str, kept)) + "}"}
    at.insert_before(concat, broadcast)
    broadcast.operands = (reshape,)
    return broadcast


def _full_update(dus: HloInstruction) -> HloInstruction | None:
    """``HandleDynamicUpdateSlice``: an update of the operand's whole shape is the update
    (the start indices clamp to 0): a one-step ``lax.scan``'s stacked ``ys``."""
    update = dus.operands[1]
    return update if _compatible(update, dus) else None


def _add_of_zero(add: HloInstruction) -> HloInstruction | None:
    """``HandleAdd``'s first rewrites: ``A + 0 -> A``, then ``0 + A -> A`` (``IsAll(x, 0)``: a
    scalar zero constant, seen through broadcasts; a one-step ``lax.scan``'s gradient
    accumulator, once WhileLoopSimplifier has inlined the loop)."""
    operands = add._operands  # the stored tuple: no property call
    lhs, rhs = operands if type(operands) is tuple else add.operands
    if _is_all_zero(rhs) and _compatible(lhs, add):
        return lhs
    if _is_all_zero(lhs) and _compatible(rhs, add):
        return rhs
    return None


def _is_all_zero(instr: HloInstruction) -> bool:
    while instr.opcode is BROADCAST:
        instr = first_operand(instr)
    extra = instr._extra  # ``literal`` read from its store, as the property reads it
    literal = None if extra is None else extra.literal
    if instr.opcode is not CONSTANT or literal is None or instr.shape.dimensions:
        return False
    try:
        return float(literal.strip()) == 0.0
    except ValueError:
        return literal.strip() == "false"


def _compatible(a: HloInstruction, b: HloInstruction) -> bool:
    """``ShapeUtil::Compatible`` on arrays: same element type and dimensions, layouts ignored."""
    x, y = a.shape, b.shape
    return x.is_array and y.is_array and x.element_type is y.element_type and \
        tuple(x.dimensions) == tuple(y.dimensions)


def _select_replacement(select: HloInstruction) -> HloInstruction | None:
    """``HandleSelect``: what ``select`` is replaced by, or None."""
    pred, on_true, on_false = select.operands
    if on_true is on_false:
        return on_true
    value = _constant_predicate(pred)
    if value is True:
        return on_true
    if value is False:
        return on_false
    return None


def _constant_predicate(instr: HloInstruction) -> bool | None:
    """``IsAll(pred, true/false)``: a pred constant whose every element is the same, seen
    through broadcasts; None otherwise."""
    while instr.opcode is BROADCAST:
        instr = instr.operands[0]
    if instr.opcode is not CONSTANT or instr.literal is None:
        return None
    words = set(instr.literal.replace("{", " ").replace("}", " ").replace(",", " ").split())
    if words == {"true"}:
        return True
    if words == {"false"}:
        return False
    return None


def _power_of_two(instr: HloInstruction) -> bool:
    """``IsAllFpConstantPowerOf2``: a float scalar constant (or broadcast of one) of ``+-2^k``."""
    import math

    value = _float_scalar(instr)
    return value is not None and abs(math.frexp(value[0])[0]) == 0.5


def _keep_name(comp: HloComputation, old: HloInstruction, new: HloInstruction) -> None:
    """``ReplaceInstruction`` gives ``new`` the name of ``old`` when both have the same opcode
    (``x*2*2``: the folded multiply keeps the outer one's name, in libtpu's and XLA:GPU's dumps);
    ``new``'s own name stays taken, as XLA's NameUniquer never gives one back."""
    module = comp.module
    if new.opcode is not old.opcode or module is None or (
            new.opcode is CUSTOM_CALL and new.custom_call_target != old.custom_call_target):
        return
    module.names.remove(new)
    new.name = old.name
    module.names.add(new)


class AlgebraicSimplifier(HloPassInterface):
    """XLA's ``AlgebraicSimplifier``, the rewrites modelled: :func:`simplify_for_offloading`.

    ``floats_are_real``: libtpu's simplifier treats floats as real numbers (reassociates them);
    XLA:GPU's does not."""

    name = "algsimp"

    def __init__(self, floats_are_real: bool = True):
        self.floats_are_real = floats_are_real

    def run(self, module: HloModule) -> bool:
        replaced, self.left_untouched = _simplify_module(module, self.floats_are_real, self.orders_given)
        return bool(replaced)

    def same_as(self, other: HloPassInterface) -> bool:
        return isinstance(other, AlgebraicSimplifier) and other.floats_are_real == self.floats_are_real

    def __repr__(self) -> str:
        return f"AlgebraicSimplifier(floats_are_real={self.floats_are_real})"
