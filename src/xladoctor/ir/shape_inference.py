"""The shape of an instruction written without one, as XLA's parser infers it.

XLA's ``ParseInstructionRhs`` takes the shape as optional for the opcodes of its
``CanInferShape`` (:data:`CAN_INFER`) and asks ``ShapeInference`` for it
(xla/service/shape_inference.cc).  What comes out keeps the layout of the
operand it is derived from (``add(p, q)`` has ``p``'s layout, ``select`` its
predicate's, ``transpose`` the permuted layout) and gets the default layout when
the shape is new (``dot``, ``pad``, a broadcasting ``add``): XLA's
``ChangeElementType`` vs ``MakeShape``.  Each rule here is the one of that file;
a rule's failure raises :class:`ShapeInferenceError` with XLA's message.

A few opcodes of ``CanInferShape`` are not inferred here (:data:`NOT_INFERRED`):
the parser refuses them with a message that says so (a named divergence).
"""

from __future__ import annotations

import re

from .opcodes import ADD_DEPENDENCY, AFTER_ALL, CONSTANT, COPY, DOMAIN, OUTFEED, RECV, RECV_DONE, SEND, SEND_DONE
from .opcodes import HloOpcode as Op
from .primitive import PRIMITIVE_TYPES, PrimitiveType
from .shape import Layout, Shape, default_layout

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

    from .instruction import HloInstruction


class ShapeInferenceError(ValueError):
    """XLA's "failed to infer shape for opcode" (the message is ShapeInference's)."""


_SPELLINGS = (
    "abs acos acosh asin asinh add add-dependency after-all atan2 atanh batch-norm-grad batch-norm-inference "
    "batch-norm-training broadcast call ceil cholesky clamp count-leading-zeros compare complex concatenate "
    "conditional convolution copy cosine cosh opt-barrier divide domain dot erf exponential "
    "exponential-minus-one fft floor gather get-dimension-size set-dimension-size get-tuple-element imag "
    "is-finite log log-plus-one logistic and not or xor map maximum minimum multiply mulhi negate pad "
    "partition-id popcnt power ragged-dot real reduce remainder replica-id reverse round-nearest-afz "
    "round-nearest-even rsqrt scan scaled-dot scatter select shift-left shift-right-arithmetic "
    "shift-right-logical sign sine sinh sqrt cbrt reduce-window select-and-scatter sort subtract tan tanh "
    "transpose triangular-solve tuple while topk")
CAN_INFER: frozenset[Op] = frozenset(Op(s) for s in _SPELLINGS.split() if s in Op._value2member_map_)
"""XLA's ``CanInferShape``: the opcodes whose shape the text may leave out."""

_FLOAT_OR_COMPLEX = frozenset(["acos", "acosh", "asin", "asinh", "atanh", "cosh", "cosine", "sinh", "sine", "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "rsqrt", "sqrt", "tan", "tanh"])
_FLOAT_ONLY = frozenset(["floor", "cbrt", "ceil", "erf", "round-nearest-afz", "round-nearest-even"])
_BINARY = frozenset(["add", "divide", "multiply", "mulhi", "subtract", "atan2", "complex", "maximum", "minimum", "power", "remainder", "and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "compare"])
_U32 = PRIMITIVE_TYPES["u32"]
_TUPLE: Final = PRIMITIVE_TYPES["tuple"]  # ``Shape.is_tuple``'s type (compiled: a C static)
_PRED = PRIMITIVE_TYPES["pred"]
_TOKEN = Shape.array("token", ())


def infer_shape(instr: HloInstruction) -> Shape:
    """The shape XLA's parser gives ``instr`` (its operands and called computations set)."""
    op, ops = instr.opcode, [o.shape for o in instr.operands]
    spelling = op.value
    if op in _UNARY_OPS or spelling in _BINARY or op in (COPY, DOMAIN):
        want = 2 if spelling in _BINARY else 1
        if len(ops) != want:
            raise ShapeInferenceError(f"expects {want} operands, but has {len(ops)} operands")
    if op in (COPY, DOMAIN):
        return ops[0]
    if op in _UNARY_OPS:
        return _unary(spelling, ops[0])
    if spelling in _BINARY:
        return _binary(spelling, ops[0], ops[1])
    rule = _RULES.get(op)
    if rule is None:
        raise ShapeInferenceError(f"xladoctor does not infer the shape of '{spelling}'")
    try:
        return rule(instr, ops)
    except ShapeInferenceError:
        raise
    except (IndexError, KeyError, ValueError) as e:  # too few operands, a malformed attribute
        raise ShapeInferenceError(f"{spelling} with {len(ops)} operands and these attributes: {e}") from None


# -- element types -----------------------------------------------------------------

def _is_float(t: PrimitiveType) -> bool:
    return t.kind == "float"


def _is_signed(t: PrimitiveType) -> bool:
    return t.kind in ("signed", "float", "complex")


def _higher(a: PrimitiveType, b: PrimitiveType) -> PrimitiveType:
    """``primitive_util::HigherPrecisionType`` for the types one elementwise op may mix."""
    if a is b or not (_is_float(a) and _is_float(b)):
        return a
    return b if (b.bits or 0) > (a.bits or 0) else a


def _same_type_ignoring_fp(a: Shape, b: Shape) -> bool:
    return a.element_type is b.element_type or (_is_float(a.element_type) and _is_float(b.element_type))


def _retyped(shape: Shape, t: PrimitiveType) -> Shape:
    """``ShapeUtil::ChangeElementType``: the layout stays (its ``E(n)`` is the old type's and goes)."""
    layout = shape.layout
    if layout is not None and layout.element_size_in_bits and t is not shape.element_type:
        layout = _replace(layout, element_size_in_bits=0)
    return Shape(t, shape.dimensions, shape.dynamic, (), layout)


def _replace(layout: Layout, **fields: object) -> Layout:
    return layout.replace(**fields)


def _new(t: PrimitiveType, dims: list[int] | tuple[int, ...], dynamic: tuple[bool, ...] | None = None) -> Shape:
    """``ShapeUtil::MakeShape``: a new array, in the default layout."""
    return Shape.array(t, tuple(dims), default_layout(len(dims)), dynamic)


def _expect_array(shape: Shape, what: str) -> None:
    if not shape.is_array or shape.element_type.name in ("token", "opaque"):
        raise ShapeInferenceError(f"Expected array argument for {what}, but got {shape.human_string()}.")


# -- elementwise -------------------------------------------------------------------

def _unary(op: str, shape: Shape) -> Shape:
    """``InferUnaryOpShape``."""
    _expect_array(shape, "operand of unary operation")
    t = shape.element_type
    complex_ = t.kind == "complex"
    if (op in _FLOAT_ONLY and not _is_float(t)) or (op in _FLOAT_OR_COMPLEX and not (_is_float(t) or complex_)):
        raise ShapeInferenceError(f"Expected element type in shape to be floating for {op} operation; got {t}.")
    if op in ("real", "imag", "abs"):
        if complex_:
            return _retyped(shape, PRIMITIVE_TYPES["f32" if t.name == "c64" else "f64"])
        if not (_is_float(t) if op != "abs" else _is_signed(t)):
            raise ShapeInferenceError(f"Expected element type in shape to be floating or complex for {op} "
                                      f"operation; got {t}.")
        return shape
    if (op in ("count-leading-zeros", "popcnt") and not t.is_integral) \
            or (op == "negate" and t.kind not in ("signed", "unsigned", "float", "complex")) \
            or (op == "sign" and not _is_signed(t)) \
            or (op == "not" and not (t is _PRED or t.is_integral)) \
            or (op == "is-finite" and not _is_float(t)):
        raise ShapeInferenceError(f"Expected another element type for {op} operation; got {t}.")
    if op == "is-finite":
        return _retyped(shape, _PRED)
    return shape


def _binary(op: str, lhs: Shape, rhs: Shape) -> Shape:
    """``InferBinaryOpShape`` without broadcast dimensions (the parser passes none)."""
    _expect_array(lhs, "lhs of elementwise binary operation")
    _expect_array(rhs, "rhs of elementwise binary operation")
    if not _same_type_ignoring_fp(lhs, rhs):
        raise ShapeInferenceError(f"Binary op {op} with different element types: {lhs.human_string()} and "
                                  f"{rhs.human_string()}.")
    t = _higher(lhs.element_type, rhs.element_type)
    if lhs.dimensions == rhs.dimensions:
        result = _retyped(lhs, t)
        if any(rhs.dynamic):
            result = Shape(t, result.dimensions, tuple(a or b for a, b in zip(lhs.dynamic, rhs.dynamic)), (),
                           result.layout)
    elif lhs.rank == rhs.rank:
        dims = []
        for a, b in zip(lhs.dimensions, rhs.dimensions):
            if a != 1 and b != 1 and a != b:
                raise ShapeInferenceError(f"Binary op with incompatible shapes: {lhs.human_string()} and "
                                          f"{rhs.human_string()}.")
            dims.append(b if a == 1 else a)
        result = _new(t, dims)
    else:
        small, large = (lhs, rhs) if lhs.rank < rhs.rank else (rhs, lhs)
        if small.rank:
            raise ShapeInferenceError(f"Shapes must be equal rank, but are {lhs.human_string()} and "
                                      f"{rhs.human_string()}")
        result = _new(t, large.dimensions, large.dynamic)
    if op == "compare":
        return _retyped(result, _PRED)
    if op == "complex":
        return _retyped(result, PRIMITIVE_TYPES["c128" if t.name == "f64" else "c64"])
    return result


def _select(_instr: HloInstruction, ops: list[Shape]) -> Shape:
    """``InferSelectShape``: the predicate's layout when it is not a scalar, else on_true's."""
    pred, on_true, on_false = ops
    for s, what in ((pred, "select pred"), (on_true, "select on-true"), (on_false, "select on-false")):
        _expect_array(s, what)
    if on_true.dimensions != on_false.dimensions or not _same_type_ignoring_fp(on_true, on_false):
        raise ShapeInferenceError(f"Operands to select must be the same shape; got {on_true.human_string()} "
                                  f"and {on_false.human_string()}.")
    if pred.element_type is not _PRED:
        raise ShapeInferenceError(f"Select's pred operand must have PRED element type; got {pred.human_string()}.")
    if pred.rank and pred.dimensions != on_true.dimensions:
        raise ShapeInferenceError("Operands to select and predicate must be the same shape.")
    full = on_true if not pred.rank else pred
    result = _retyped(full, _higher(on_true.element_type, on_false.element_type))
    if result.layout is not None:
        bits = on_true.effective_layout.element_size_in_bits
        result = Shape(result.element_type, result.dimensions, result.dynamic, (),
                       _replace(result.layout, element_size_in_bits=bits))
    return result


def _clamp(_instr: HloInstruction, ops: list[Shape]) -> Shape:
    low, operand, high = ops
    for s in ops:
        _expect_array(s, "clamp")
    if not (_same_type_ignoring_fp(low, operand) and _same_type_ignoring_fp(high, operand)):
        raise ShapeInferenceError("Clamp with incompatible element types.")
    for s in (low, high):
        if s.rank and s.dimensions != operand.dimensions:
            raise ShapeInferenceError("Clamp with incompatible shapes.")
    return operand


_UNARY_OPS = frozenset(Op(s) for s in (_FLOAT_OR_COMPLEX | _FLOAT_ONLY | {
    "real", "imag", "abs", "count-leading-zeros", "popcnt", "negate", "sign", "not", "is-finite"})
    if s in Op._value2member_map_)


# -- structural --------------------------------------------------------------------

_INTS = re.compile(r"-?\d+")


def _ints(instr: HloInstruction, key: str) -> list[int]:
    raw = instr.attributes.get(key)
    if raw is None:
        raise ShapeInferenceError(f"attribute {key} is expected but not seen")
    return [int(x) for x in _INTS.findall(raw)]


def _tuple(_instr: HloInstruction, ops: list[Shape]) -> Shape:
    return Shape.tuple(ops)


def _get_tuple_element(instr: HloInstruction, ops: list[Shape]) -> Shape:
    (arg,) = ops
    index = instr.tuple_index if instr.tuple_index is not None else _ints(instr, "index")[0]
    if not arg.is_tuple:
        raise ShapeInferenceError(f"Cannot infer shape: attempting to index into non-tuple: {arg.human_string()}.")
    if not 0 <= index < len(arg.tuple_shapes):
        raise ShapeInferenceError(f"Cannot infer shape: attempt to index out of tuple bounds: {index} >= "
                                  f"{len(arg.tuple_shapes)} in shape {arg.human_string()}.")
    return arg.tuple_shapes[index]


def _transpose(instr: HloInstruction, ops: list[Shape]) -> Shape:
    """``ShapeUtil::PermuteDimensions``: dimensions and layout permuted together."""
    (operand,) = ops
    _expect_array(operand, "transpose")
    perm = _ints(instr, "dimensions")
    if sorted(perm) != list(range(operand.rank)):
        raise ShapeInferenceError(f"Transpose dimensions [{','.join(map(str, perm))}] are not a permutation of "
                                  f"the operand dimensions (operand shape is {operand.human_string()}).")
    dims = tuple(operand.dimensions[p] for p in perm)
    dyn = tuple(operand.dynamic[p] for p in perm)
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    layout = operand.effective_layout
    layout = _replace(layout, minor_to_major=tuple(inverse[d] for d in layout.minor_to_major))
    return Shape(operand.element_type, dims, dyn, (), layout)


def _dot(instr: HloInstruction, ops: list[Shape]) -> Shape:
    """``InferDotOpShape``: batch, then lhs' free, then rhs' free dimensions."""
    lhs, rhs = ops[0], ops[1]
    attrs = instr.attributes

    def dims(key: str) -> list[int]:
        return _ints(instr, key) if key in attrs else []
    lb, lc, rb, rc = (dims(k) for k in ("lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
                                        "rhs_contracting_dims"))
    if len(lb) != len(rb) or len(lc) != len(rc) \
            or any(lhs.dimensions[a] != rhs.dimensions[b] for a, b in zip(lc + lb, rc + rb)):
        raise ShapeInferenceError("Dimensions of the dot operands do not match.")
    out = [lhs.dimensions[d] for d in lb]
    out += [n for i, n in enumerate(lhs.dimensions) if i not in lb and i not in lc]
    out += [n for i, n in enumerate(rhs.dimensions) if i not in rb and i not in rc]
    return _new(_higher(lhs.element_type, rhs.element_type), out)


def _pad(instr: HloInstruction, ops: list[Shape]) -> Shape:
    operand, value = ops
    raw = instr.attributes.get("padding", "")
    parts = [p.split("_") for p in raw.split("x")] if raw else []
    if len(parts) != operand.rank or value.rank:
        raise ShapeInferenceError("The rank of the operand and the padding configuration do not match.")
    out = []
    for d, part in zip(operand.dimensions, parts):
        low, high, interior = (int(x) for x in (part + ["0"])[:3])
        out.append(d + low + high + max(d - 1, 0) * interior)
    return _new(operand.element_type, out)


def _reduce_window(instr: HloInstruction, ops: list[Shape]) -> Shape:
    """``InferReduceWindowShape``: one window per output element, the reducer's element type."""
    n = len(ops) // 2
    window = _window(instr.attributes.get("window", "{}"), ops[0].rank)
    out = []
    for d, (size, stride, low, high, base, win) in zip(ops[0].dimensions, window):
        padded = (d - 1) * base + 1 + low + high if d else low + high
        dilated = (size - 1) * win + 1
        out.append(0 if padded < dilated else (padded - dilated) // stride + 1)
    results = [_new(init.element_type, out) for init in ops[n:]]  # the init values give the types
    return results[0] if n == 1 else Shape.tuple(results)


def _window(raw: str, rank: int) -> list[tuple[int, int, int, int, int, int]]:
    fields = dict(kv.split("=", 1) for kv in raw.strip("{} ").split() if "=" in kv)

    def per_dim(key: str, default: int) -> list[int]:
        text = fields.get(key)
        return [int(x) for x in text.split("x")] if text else [default] * rank
    pads = [p.split("_") for p in fields["pad"].split("x")] if "pad" in fields else [["0", "0"]] * rank
    size = per_dim("size", 1)
    if len(size) != rank:
        raise ShapeInferenceError("Window has a different number of dimensions than the operand.")
    return [(s, st, int(p[0]), int(p[1]), b, w) for s, st, p, b, w in
            zip(size, per_dim("stride", 1), pads, per_dim("lhs_dilate", 1), per_dim("rhs_dilate", 1))]


def _called_root(instr: HloInstruction, role: str) -> Shape:
    comps = instr.called.get(role)
    if not comps or comps[0].root is None:
        raise ShapeInferenceError(f"attribute {role} is expected but not seen")
    return comps[0].root.shape


def _call(instr: HloInstruction, ops: list[Shape]) -> Shape:
    comp = instr.called.get("to_apply", [None])[0]
    if comp is not None and len(comp.parameters) != len(ops):
        raise ShapeInferenceError(f"Call applied function arity must match number of arguments; got: arity: "
                                  f"{len(comp.parameters)}, arguments: {len(ops)}")
    return _called_root(instr, "to_apply")


def _while(instr: HloInstruction, ops: list[Shape]) -> Shape:
    body = _called_root(instr, "body")
    if not body.compatible(ops[0]):
        raise ShapeInferenceError("The parameter of condition and body, the result of the body, and init must "
                                  "all have the same shape.")
    return ops[0]


def _conditional(instr: HloInstruction, _ops: list[Shape]) -> Shape:
    """``InferConditionalShape``: the branches' common result (the first branch's root shape)."""
    branches = instr.called.get("branch_computations") or instr.called.get("true_computation") or []
    roots = [c.root.shape for c in branches if c.root is not None]
    if not roots:
        raise ShapeInferenceError("conditional has no branch computation")
    if any(not r.compatible(roots[0]) for r in roots[1:]):
        raise ShapeInferenceError("the branch computations of a conditional must return the same shape")
    return roots[0]


def _reverse(_instr: HloInstruction, ops: list[Shape]) -> Shape:
    return ops[0]


def _after_all(_instr: HloInstruction, _ops: list[Shape]) -> Shape:
    return _TOKEN


def _add_dependency(_instr: HloInstruction, ops: list[Shape]) -> Shape:
    return ops[0]


def _id(_instr: HloInstruction, _ops: list[Shape]) -> Shape:
    return Shape.array(_U32, (), default_layout(0))


_RULES = {
    Op.SELECT: _select, Op.CLAMP: _clamp, Op.TUPLE: _tuple, Op.GET_TUPLE_ELEMENT: _get_tuple_element,
    Op.TRANSPOSE: _transpose, Op.DOT: _dot, Op.PAD: _pad, Op.REDUCE_WINDOW: _reduce_window, Op.CALL: _call,
    Op.WHILE: _while, Op.REVERSE: _reverse, Op.AFTER_ALL: _after_all, Op.ADD_DEPENDENCY: _add_dependency,
    Op.PARTITION_ID: _id, Op.REPLICA_ID: _id, Op.CONDITIONAL: _conditional,
}

# frozenset(_RULES), not .keys(): ``frozenset - dict_keys`` is a set at run time, not the frozenset
# typeshed says, and the compiled core (setup.py) checks the declared type.
NOT_INFERRED: frozenset[Op] = frozenset(CAN_INFER - frozenset(_RULES) - _UNARY_OPS - {Op.COPY, Op.DOMAIN}
                                        - {o for o in CAN_INFER if o.value in _BINARY})
"""Opcodes XLA infers a shape for and xladoctor does not (refused with a message that says so)."""


SHAPE_REPLACED: frozenset[Op] = frozenset({Op.AFTER_ALL, Op.SEND_DONE, Op.OUTFEED, Op.ADD_DEPENDENCY, Op.SEND,
                                          Op.RECV_DONE, Op.RECV, Op.CONSTANT})
"""Opcodes whose parsed shape :func:`replaced_shape` gives, whatever the text wrote."""


def replaced_shape(instr: HloInstruction) -> Shape | None:
    """The shape XLA's parser gives an instruction whatever shape the text wrote, or None.

    A constant's shape is its literal's, whose layout has no ``E(n)`` (the rest stays).
    ``HloInstruction::CreateToken``/``CreateAfterAll``, ``CreateAddDependency``, ``CreateSend``,
    ``CreateSendDone``, ``CreateRecvDone`` and ``CreateOutfeed`` compute their own shape; the
    written one is read and dropped."""
    op, ops = instr.opcode, instr.operands
    if op is CONSTANT:
        return _without_element_size(instr.shape) if instr.shape is not None else None
    if op in (AFTER_ALL, SEND_DONE, OUTFEED):
        return _TOKEN
    if op is ADD_DEPENDENCY and ops:
        return ops[0].shape
    if op is SEND and ops:
        return Shape.tuple([ops[0].shape, Shape.array(_U32, ()), _TOKEN])
    if op is RECV_DONE and ops and ops[0].shape.is_tuple and ops[0].shape.tuple_shapes:
        return Shape.tuple([ops[0].shape.tuple_shapes[0], _TOKEN])
    written = instr.shape
    if op is RECV and written is not None and written.is_tuple and written.tuple_shapes:
        return Shape.tuple([written.tuple_shapes[0], Shape.array(_U32, ()), _TOKEN])
    return None


def _without_element_size(shape: Shape) -> Shape | None:
    """``shape`` with every ``E(n)`` dropped, or None when it has none (asked of every constant:
    ``is_tuple`` read as its field's test, no property call on the interpreted ``Shape``)."""
    if shape.element_type is _TUPLE:
        parts = [_without_element_size(s) for s in shape.tuple_shapes]
        if all(p is None for p in parts):
            return None
        return Shape.tuple([p if p is not None else s for p, s in zip(parts, shape.tuple_shapes)])
    layout = shape.layout
    if layout is None or not layout.element_size_in_bits:
        return None
    return Shape(shape.element_type, shape.dimensions, shape.dynamic, (), _replace(layout, element_size_in_bits=0))
