"""HLO opcodes, spelled exactly as XLA prints them.

The list is jaxlib 0.10.2's ``HloOpcode`` enum (133 opcodes), each spelling checked
by parsing it with jaxlib's own HLO parser.  An opcode outside this list is a parse
error, as it is for XLA ("Unknown opcode").

``HloOpcode`` mixes in ``str``, so ``op == "tuple"`` works, and ``str(op)`` is the spelling.

A member read through the class (``HloOpcode.ADD``) is slow on Python 3.10 and 3.11: ``EnumType``
defines ``__getattr__`` there, and CPython sends every attribute read of a class whose metaclass
has one through a Python-level ``type.__getattribute__`` call (~65 ns more than a module global;
3.12 dropped the hook, ~15 ns more).  No definition of the enum avoids it on 3.11 short of leaving
``Enum`` (identity, ``HloOpcode(spelling)``, iteration, pickling and mypy's typing all rest on
it), so code that tests opcodes per instruction reads module constants (the constants at the end of this module).
"""

from __future__ import annotations

from enum import Enum

from . import opcode_rules as _rules

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final


class HloOpcode(str, Enum):
    """One HLO opcode; the value is its text spelling."""

    ABS = "abs"
    ACOS = "acos"
    ACOSH = "acosh"
    ADD = "add"
    ADD_DEPENDENCY = "add-dependency"
    AFTER_ALL = "after-all"
    ALL_GATHER = "all-gather"
    ALL_GATHER_DONE = "all-gather-done"
    ALL_GATHER_START = "all-gather-start"
    ALL_REDUCE = "all-reduce"
    ALL_REDUCE_DONE = "all-reduce-done"
    ALL_REDUCE_START = "all-reduce-start"
    ALL_TO_ALL = "all-to-all"
    AND = "and"
    ASIN = "asin"
    ASINH = "asinh"
    ASYNC_DONE = "async-done"
    ASYNC_START = "async-start"
    ASYNC_UPDATE = "async-update"
    ATAN2 = "atan2"
    ATANH = "atanh"
    BATCH_NORM_GRAD = "batch-norm-grad"
    BATCH_NORM_INFERENCE = "batch-norm-inference"
    BATCH_NORM_TRAINING = "batch-norm-training"
    BITCAST = "bitcast"
    BITCAST_CONVERT = "bitcast-convert"
    BROADCAST = "broadcast"
    CALL = "call"
    CBRT = "cbrt"
    CEIL = "ceil"
    CHOLESKY = "cholesky"
    CLAMP = "clamp"
    COLLECTIVE_BROADCAST = "collective-broadcast"
    COLLECTIVE_PERMUTE = "collective-permute"
    COLLECTIVE_PERMUTE_DONE = "collective-permute-done"
    COLLECTIVE_PERMUTE_START = "collective-permute-start"
    COMPARE = "compare"
    COMPLEX = "complex"
    CONCATENATE = "concatenate"
    CONDITIONAL = "conditional"
    CONSTANT = "constant"
    CONVERT = "convert"
    CONVOLUTION = "convolution"
    COPY = "copy"
    COPY_DONE = "copy-done"
    COPY_START = "copy-start"
    COSH = "cosh"
    COSINE = "cosine"
    COUNT_LEADING_ZEROS = "count-leading-zeros"
    CUSTOM_CALL = "custom-call"
    DIVIDE = "divide"
    DOMAIN = "domain"
    DOT = "dot"
    DYNAMIC_RESHAPE = "dynamic-reshape"
    DYNAMIC_SLICE = "dynamic-slice"
    DYNAMIC_UPDATE_SLICE = "dynamic-update-slice"
    ERF = "erf"
    EXPONENTIAL = "exponential"
    EXPONENTIAL_MINUS_ONE = "exponential-minus-one"
    FFT = "fft"
    FLOOR = "floor"
    FUSION = "fusion"
    GATHER = "gather"
    GET_DIMENSION_SIZE = "get-dimension-size"
    GET_TUPLE_ELEMENT = "get-tuple-element"
    IMAG = "imag"
    INFEED = "infeed"
    IOTA = "iota"
    IS_FINITE = "is-finite"
    LOG = "log"
    LOG_PLUS_ONE = "log-plus-one"
    LOGISTIC = "logistic"
    MAP = "map"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    MULHI = "mulhi"
    MULTIPLY = "multiply"
    NEGATE = "negate"
    NOT = "not"
    OPT_BARRIER = "opt-barrier"
    OR = "or"
    OUTFEED = "outfeed"
    PAD = "pad"
    PARAMETER = "parameter"
    PARTITION_ID = "partition-id"
    POPCNT = "popcnt"
    POWER = "power"
    RAGGED_ALL_TO_ALL = "ragged-all-to-all"
    RAGGED_DOT = "ragged-dot"
    REAL = "real"
    RECV = "recv"
    RECV_DONE = "recv-done"
    REDUCE = "reduce"
    REDUCE_PRECISION = "reduce-precision"
    REDUCE_SCATTER = "reduce-scatter"
    REDUCE_WINDOW = "reduce-window"
    REMAINDER = "remainder"
    REPLICA_ID = "replica-id"
    RESHAPE = "reshape"
    REVERSE = "reverse"
    RNG = "rng"
    RNG_BIT_GENERATOR = "rng-bit-generator"
    RNG_GET_AND_UPDATE_STATE = "rng-get-and-update-state"
    ROUND_NEAREST_AFZ = "round-nearest-afz"
    ROUND_NEAREST_EVEN = "round-nearest-even"
    RSQRT = "rsqrt"
    SCALED_DOT = "scaled-dot"
    SCAN = "scan"
    SCATTER = "scatter"
    SELECT = "select"
    SELECT_AND_SCATTER = "select-and-scatter"
    SEND = "send"
    SEND_DONE = "send-done"
    SET_DIMENSION_SIZE = "set-dimension-size"
    SHIFT_LEFT = "shift-left"
    SHIFT_RIGHT_ARITHMETIC = "shift-right-arithmetic"
    SHIFT_RIGHT_LOGICAL = "shift-right-logical"
    SIGN = "sign"
    SINE = "sine"
    SINH = "sinh"
    SLICE = "slice"
    SORT = "sort"
    SQRT = "sqrt"
    STOCHASTIC_CONVERT = "stochastic-convert"
    SUBTRACT = "subtract"
    TAN = "tan"
    TANH = "tanh"
    TOPK = "topk"
    TRANSPOSE = "transpose"
    TRIANGULAR_SOLVE = "triangular-solve"
    TUPLE = "tuple"
    WHILE = "while"
    XOR = "xor"

    # ``self._value_`` (the member's own attribute), not ``self.value``: ``value`` is an
    # ``enum.property``, a Python-level descriptor call, ~0.1 us per read on 3.10-3.13.

    def __str__(self) -> str:
        return self._value_

    # The opcode facts (data in :mod:`.opcode_rules`); every module asks these, none keeps a copy.

    @property
    def arity(self) -> int | None:
        """The operand count XLA's parser requires; None where it takes any number (variadic)."""
        return _rules.FIXED_ARITY.get(self._value_)

    @property
    def required_attributes(self) -> tuple[str, ...]:
        """Attributes the parser reports missing when absent."""
        return _rules.REQUIRED_ATTRIBUTES.get(self._value_, ())

    @property
    def allowed_attributes(self) -> frozenset[str] | None:
        """Attributes the parser accepts; None where unprobed (conditional, tuple: not checked)."""
        return _rules.ALLOWED_ATTRIBUTES.get(self._value_)

    @property
    def called_computations(self) -> tuple[tuple[str, int], ...]:
        """``(attribute, count)`` of the computations this opcode must call (HloVerifier's rule)."""
        return _rules.REQUIRED_CALLS.get(self._value_, ())

    @property
    def passes_operands_to(self) -> str | None:
        """The attribute of the one computation this opcode's operands become the parameters of."""
        return _rules.PASSES_OPERANDS_TO.get(self._value_)

    @property
    def has_side_effect(self) -> bool:
        """Side-effecting whatever its attributes (``HasSideEffectNoRecurse``'s unconditional cases)."""
        return self._value_ in _rules.SIDE_EFFECT_OPCODES

    @property
    def may_have_side_effect(self) -> bool:
        """Side-effecting for some instructions: collectives (layout, channel), flagged custom calls."""
        return self._value_ in _rules.MAYBE_SIDE_EFFECT_OPCODES

    @property
    def is_pure_memory_move(self) -> bool:
        """Moves no data, so host memory passes through (``IsValidDuringPureMemoryOffload``)."""
        return self._value_ in _rules.PURE_MEMORY_MOVE_OPCODES


OPCODES_BY_SPELLING: dict[str, HloOpcode] = {op.value: op for op in HloOpcode}


# The members read per instruction, as module constants (see the module doc): a hot module
# imports them under its own private names (``from ..ir.opcodes import WHILE``), a global of
# that module, and never reads ``HloOpcode.X`` in a loop (issue 36).  ``Final``: in the compiled
# core (setup.py) a compiled module reads a final of another compiled module from a C static, not
# through its globals dict (~400 opcode reads in the core's functions).
ADD: Final = HloOpcode.ADD
ADD_DEPENDENCY: Final = HloOpcode.ADD_DEPENDENCY
AFTER_ALL: Final = HloOpcode.AFTER_ALL
ALL_REDUCE: Final = HloOpcode.ALL_REDUCE
AND: Final = HloOpcode.AND
ASYNC_DONE: Final = HloOpcode.ASYNC_DONE
ASYNC_START: Final = HloOpcode.ASYNC_START
ASYNC_UPDATE: Final = HloOpcode.ASYNC_UPDATE
BITCAST: Final = HloOpcode.BITCAST
BROADCAST: Final = HloOpcode.BROADCAST
CALL: Final = HloOpcode.CALL
CLAMP: Final = HloOpcode.CLAMP
COMPARE: Final = HloOpcode.COMPARE
CONCATENATE: Final = HloOpcode.CONCATENATE
CONDITIONAL: Final = HloOpcode.CONDITIONAL
CONSTANT: Final = HloOpcode.CONSTANT
CONVERT: Final = HloOpcode.CONVERT
CONVOLUTION: Final = HloOpcode.CONVOLUTION
COPY: Final = HloOpcode.COPY
CUSTOM_CALL: Final = HloOpcode.CUSTOM_CALL
DIVIDE: Final = HloOpcode.DIVIDE
DOMAIN: Final = HloOpcode.DOMAIN
DOT: Final = HloOpcode.DOT
DYNAMIC_SLICE: Final = HloOpcode.DYNAMIC_SLICE
DYNAMIC_UPDATE_SLICE: Final = HloOpcode.DYNAMIC_UPDATE_SLICE
FUSION: Final = HloOpcode.FUSION
GET_TUPLE_ELEMENT: Final = HloOpcode.GET_TUPLE_ELEMENT
MAXIMUM: Final = HloOpcode.MAXIMUM
MINIMUM: Final = HloOpcode.MINIMUM
MULTIPLY: Final = HloOpcode.MULTIPLY
NEGATE: Final = HloOpcode.NEGATE
OPT_BARRIER: Final = HloOpcode.OPT_BARRIER
OR: Final = HloOpcode.OR
OUTFEED: Final = HloOpcode.OUTFEED
PAD: Final = HloOpcode.PAD
PARAMETER: Final = HloOpcode.PARAMETER
RECV: Final = HloOpcode.RECV
RECV_DONE: Final = HloOpcode.RECV_DONE
REDUCE: Final = HloOpcode.REDUCE
RESHAPE: Final = HloOpcode.RESHAPE
SCATTER: Final = HloOpcode.SCATTER
SELECT: Final = HloOpcode.SELECT
SEND: Final = HloOpcode.SEND
SEND_DONE: Final = HloOpcode.SEND_DONE
SLICE: Final = HloOpcode.SLICE
SUBTRACT: Final = HloOpcode.SUBTRACT
TRANSPOSE: Final = HloOpcode.TRANSPOSE
TUPLE: Final = HloOpcode.TUPLE
WHILE: Final = HloOpcode.WHILE
XOR: Final = HloOpcode.XOR
