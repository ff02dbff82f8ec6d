"""The opcode facts: operand counts, attributes, called computations, side effects, per opcode.

These tables are data; :class:`~.opcodes.HloOpcode` is the one interface to them
(``op.arity``, ``op.required_attributes``, ``op.allowed_attributes``,
``op.called_computations``, ``op.has_side_effect``, ``op.is_pure_memory_move``...), so
no other module keeps a set of opcode names for a fact about the opcode itself.  (Sets of
opcodes one pass lets a value through are that pass' logic and stay with it.)

The parser's operand counts and attributes:
Measured, not transcribed: each opcode was parsed by jaxlib 0.10.2's
``hlo_module_from_text`` with 0 to 4 operands (``bench/fuzz_campaign.py`` keeps
checking the parser against it).  ``FIXED_ARITY`` holds the opcodes for which XLA
answered "expects N operands, but has M operands"; ``REQUIRED_ATTRIBUTES`` the
attributes XLA reported missing ("attribute X is expected but not seen"): the first
one for each opcode, and for while, reduce, sort, fusion and select-and-scatter all of
them (probed one missing at a time); for the others a lower bound of what XLA requires.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

FIXED_ARITY: dict[str, int] = {
    "abs": 1, "acos": 1, "acosh": 1, "add": 2, "add-dependency": 2, "all-gather-done": 1,
    "all-reduce-done": 1, "and": 2, "asin": 1, "asinh": 1, "atan2": 2, "atanh": 1, "batch-norm-grad": 5,
    "batch-norm-inference": 5, "batch-norm-training": 3, "bitcast": 1, "bitcast-convert": 1, "broadcast": 1,
    "cbrt": 1, "ceil": 1, "cholesky": 1, "clamp": 3, "collective-permute-done": 1, "compare": 2,
    "complex": 2, "convert": 1, "convolution": 2, "copy": 1, "copy-done": 1, "copy-start": 1, "cosh": 1,
    "cosine": 1, "count-leading-zeros": 1, "divide": 2, "domain": 1, "erf": 1, "exponential": 1,
    "exponential-minus-one": 1, "fft": 1, "floor": 1, "gather": 2, "get-dimension-size": 1,
    "get-tuple-element": 1, "imag": 1, "infeed": 1, "iota": 0, "is-finite": 1, "log": 1, "log-plus-one": 1,
    "logistic": 1, "maximum": 2, "minimum": 2, "mulhi": 2, "multiply": 2, "negate": 1, "not": 1,
    "opt-barrier": 1, "or": 2, "outfeed": 2, "pad": 2, "partition-id": 0, "popcnt": 1, "power": 2,
    "ragged-dot": 3, "real": 1, "recv": 1, "recv-done": 1, "reduce-precision": 1, "remainder": 2,
    "replica-id": 0, "reshape": 1, "reverse": 1, "rng-get-and-update-state": 0, "round-nearest-afz": 1,
    "round-nearest-even": 1, "rsqrt": 1, "scaled-dot": 4, "select": 3, "select-and-scatter": 3, "send": 2,
    "send-done": 1, "set-dimension-size": 2, "shift-left": 2, "shift-right-arithmetic": 2,
    "shift-right-logical": 2, "sign": 1, "sine": 1, "sinh": 1, "slice": 1, "sqrt": 1,
    "stochastic-convert": 2, "subtract": 2, "tan": 1, "tanh": 1, "topk": 1, "transpose": 1,
    "triangular-solve": 2, "while": 1, "xor": 2,
}

REQUIRED_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "all-gather": ("dimensions",), "all-gather-start": ("dimensions",), "all-reduce": ("to_apply",),
    "all-reduce-start": ("to_apply",), "call": ("to_apply",), "collective-permute": ("source_target_pairs",),
    "collective-permute-start": ("source_target_pairs",), "compare": ("direction",),
    "concatenate": ("dimensions",), "custom-call": ("custom_call_target",), "get-tuple-element": ("index",),
    "dynamic-slice": ("dynamic_slice_sizes",), "fusion": ("kind", "calls"), "map": ("to_apply",),
    "reduce": ("dimensions", "to_apply"), "reduce-scatter": ("dimensions", "to_apply"), "reduce-window": ("to_apply",),
    "rng": ("distribution",), "rng-bit-generator": ("algorithm",), "scan": ("dimensions",),
    "scatter": ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims", "index_vector_dim",
                "to_apply"),
    "gather": ("offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim", "slice_sizes"),
    "sort": ("dimensions", "to_apply"), "while": ("condition", "body"),
    "select-and-scatter": ("select", "scatter"),
    "async-start": ("calls",),  # jaxlib 0.10.2: "attribute calls is expected but not seen" (issue 35)
}


# Attributes each opcode may carry, from the "Allowed attributes: ..." list jaxlib prints for an
# unknown one (every opcode parsed with an attribute zzzq=1).  Opcodes missing here (conditional,
# tuple) could not be probed that way and are not checked.  The async ops were probed on a valid
# chain: written plainly they take calls= (output_to_operand_aliasing only on the start);
# in the sugared form (call-done) update and done take ASYNC_SUGAR_ATTRIBUTES only, and a start
# takes its wrapped op's attributes plus async_execution_thread.
COMMON_ATTRIBUTES: frozenset[str] = frozenset(["backend_config", "control-predecessors",
    "frontend_attributes", "metadata", "origin", "parameter_replication", "sharding", "statistics"])

ALLOWED_ATTRIBUTES: dict[str, frozenset[str]] = {
    "abs": COMMON_ATTRIBUTES,
    "acos": COMMON_ATTRIBUTES | {"result_accuracy"},
    "acosh": COMMON_ATTRIBUTES | {"result_accuracy"},
    "add": COMMON_ATTRIBUTES,
    "add-dependency": COMMON_ATTRIBUTES,
    "after-all": COMMON_ATTRIBUTES,
    "async-done": COMMON_ATTRIBUTES | {"async_execution_thread", "calls"},
    "async-start": COMMON_ATTRIBUTES | {"async_execution_thread", "calls", "output_to_operand_aliasing"},
    "async-update": COMMON_ATTRIBUTES | {"async_execution_thread", "calls"},
    "all-gather": COMMON_ATTRIBUTES | {
        "channel_id", "constrain_layout", "dimensions", "replica_groups", "use_global_device_ids",
    },
    "all-gather-done": COMMON_ATTRIBUTES,
    "all-gather-start": COMMON_ATTRIBUTES | {
        "channel_id", "constrain_layout", "dimensions", "replica_groups", "use_global_device_ids",
    },
    "all-reduce": COMMON_ATTRIBUTES | {
        "channel_id", "constrain_layout", "mode", "replica_groups", "to_apply", "use_global_device_ids",
    },
    "all-reduce-done": COMMON_ATTRIBUTES,
    "all-reduce-start": COMMON_ATTRIBUTES | {
        "channel_id", "constrain_layout", "mode", "replica_groups", "to_apply", "use_global_device_ids",
    },
    "all-to-all": COMMON_ATTRIBUTES | {"channel_id", "constrain_layout", "dimensions", "replica_groups"},
    "and": COMMON_ATTRIBUTES,
    "asin": COMMON_ATTRIBUTES | {"result_accuracy"},
    "asinh": COMMON_ATTRIBUTES | {"result_accuracy"},
    "atan2": COMMON_ATTRIBUTES,
    "atanh": COMMON_ATTRIBUTES | {"result_accuracy"},
    "batch-norm-grad": COMMON_ATTRIBUTES | {"epsilon", "feature_index"},
    "batch-norm-inference": COMMON_ATTRIBUTES | {"epsilon", "feature_index"},
    "batch-norm-training": COMMON_ATTRIBUTES | {"epsilon", "feature_index"},
    "bitcast": COMMON_ATTRIBUTES,
    "bitcast-convert": COMMON_ATTRIBUTES,
    "broadcast": COMMON_ATTRIBUTES | {"dimensions"},
    "call": COMMON_ATTRIBUTES | {"is_composite", "to_apply"},
    "cbrt": COMMON_ATTRIBUTES | {"result_accuracy"},
    "ceil": COMMON_ATTRIBUTES,
    "cholesky": COMMON_ATTRIBUTES | {"lower"},
    "clamp": COMMON_ATTRIBUTES,
    "collective-broadcast": COMMON_ATTRIBUTES | {"channel_id", "replica_groups"},
    "collective-permute": COMMON_ATTRIBUTES | {"channel_id", "slice_sizes", "source_target_pairs"},
    "collective-permute-done": COMMON_ATTRIBUTES,
    "collective-permute-start": COMMON_ATTRIBUTES | {"channel_id", "slice_sizes", "source_target_pairs"},
    "compare": COMMON_ATTRIBUTES | {"direction", "type"},
    "complex": COMMON_ATTRIBUTES,
    "concatenate": COMMON_ATTRIBUTES | {"dimensions"},
    "constant": COMMON_ATTRIBUTES,
    "convert": COMMON_ATTRIBUTES,
    "convolution": COMMON_ATTRIBUTES | {
        "batch_group_count", "convolution_kind", "dim_labels", "feature_group_count", "operand_precision",
        "sparsity_config", "window",
    },
    "copy": COMMON_ATTRIBUTES,
    "copy-done": COMMON_ATTRIBUTES,
    "copy-start": COMMON_ATTRIBUTES | {"cross_program_prefetch_index"},
    "cosh": COMMON_ATTRIBUTES | {"result_accuracy"},
    "cosine": COMMON_ATTRIBUTES | {"result_accuracy"},
    "count-leading-zeros": COMMON_ATTRIBUTES,
    "custom-call": COMMON_ATTRIBUTES | {
        "api_version", "batch_group_count", "called_computations", "custom_call_has_side_effect",
        "custom_call_target", "dim_labels", "feature_group_count", "literal", "operand_layout_constraints",
        "operand_precision", "output_to_operand_aliasing", "padding_type", "schedule", "to_apply", "window",
    },
    "divide": COMMON_ATTRIBUTES,
    "domain": COMMON_ATTRIBUTES | {"domain"},
    "dot": COMMON_ATTRIBUTES | {
        "algorithm", "lhs_batch_dims", "lhs_contracting_dims", "operand_precision", "rhs_batch_dims",
        "rhs_contracting_dims",
    },
    "dynamic-reshape": COMMON_ATTRIBUTES,
    "dynamic-slice": COMMON_ATTRIBUTES | {"dynamic_slice_sizes"},
    "dynamic-update-slice": COMMON_ATTRIBUTES,
    "erf": COMMON_ATTRIBUTES | {"result_accuracy"},
    "exponential": COMMON_ATTRIBUTES | {"result_accuracy"},
    "exponential-minus-one": COMMON_ATTRIBUTES | {"result_accuracy"},
    "fft": COMMON_ATTRIBUTES | {"fft_length", "fft_type"},
    "floor": COMMON_ATTRIBUTES,
    "fusion": COMMON_ATTRIBUTES | {"calls", "kind", "output_to_operand_aliasing"},
    "gather": COMMON_ATTRIBUTES | {
        "collapsed_slice_dims", "index_vector_dim", "indices_are_sorted", "offset_dims",
        "operand_batching_dims", "slice_sizes", "start_index_map", "start_indices_batching_dims",
    },
    "get-dimension-size": COMMON_ATTRIBUTES | {"dimensions"},
    "get-tuple-element": COMMON_ATTRIBUTES | {"index"},
    "tuple": COMMON_ATTRIBUTES,  # jaxlib 0.10.2: 'tuple(p), index=0' -> unexpected attribute "index" (issue 35)
    "imag": COMMON_ATTRIBUTES,
    "infeed": COMMON_ATTRIBUTES | {"infeed_config"},
    "iota": COMMON_ATTRIBUTES | {"iota_dimension"},
    "is-finite": COMMON_ATTRIBUTES,
    "log": COMMON_ATTRIBUTES | {"result_accuracy"},
    "log-plus-one": COMMON_ATTRIBUTES | {"result_accuracy"},
    "logistic": COMMON_ATTRIBUTES | {"result_accuracy"},
    "map": COMMON_ATTRIBUTES | {"dimensions", "to_apply"},
    "maximum": COMMON_ATTRIBUTES,
    "minimum": COMMON_ATTRIBUTES,
    "mulhi": COMMON_ATTRIBUTES,
    "multiply": COMMON_ATTRIBUTES,
    "negate": COMMON_ATTRIBUTES,
    "not": COMMON_ATTRIBUTES,
    "opt-barrier": COMMON_ATTRIBUTES,
    "or": COMMON_ATTRIBUTES,
    "outfeed": COMMON_ATTRIBUTES | {"outfeed_config", "outfeed_shape"},
    "pad": COMMON_ATTRIBUTES | {"padding"},
    "parameter": COMMON_ATTRIBUTES,
    "partition-id": COMMON_ATTRIBUTES,
    "popcnt": COMMON_ATTRIBUTES,
    "power": COMMON_ATTRIBUTES,
    "ragged-all-to-all": COMMON_ATTRIBUTES | {"channel_id", "dimensions", "replica_groups"},
    "ragged-dot": COMMON_ATTRIBUTES | {
        "lhs_batch_dims", "lhs_contracting_dims", "lhs_ragged_dims", "operand_precision", "rhs_batch_dims",
        "rhs_contracting_dims", "rhs_group_dims",
    },
    "real": COMMON_ATTRIBUTES,
    "recv": COMMON_ATTRIBUTES | {"channel_id", "is_host_transfer"},
    "recv-done": COMMON_ATTRIBUTES | {"channel_id", "is_host_transfer"},
    "reduce": COMMON_ATTRIBUTES | {"dimensions", "to_apply"},
    "reduce-precision": COMMON_ATTRIBUTES | {"exponent_bits", "mantissa_bits"},
    "reduce-scatter": COMMON_ATTRIBUTES | {
        "channel_id", "constrain_layout", "dimensions", "mode", "replica_groups", "to_apply",
        "use_global_device_ids",
    },
    "reduce-window": COMMON_ATTRIBUTES | {"to_apply", "window"},
    "remainder": COMMON_ATTRIBUTES,
    "replica-id": COMMON_ATTRIBUTES,
    "reshape": COMMON_ATTRIBUTES | {"inferred_dimension"},
    "reverse": COMMON_ATTRIBUTES | {"dimensions"},
    "rng": COMMON_ATTRIBUTES | {"distribution"},
    "rng-bit-generator": COMMON_ATTRIBUTES | {"algorithm"},
    "rng-get-and-update-state": COMMON_ATTRIBUTES | {"delta"},
    "round-nearest-afz": COMMON_ATTRIBUTES,
    "round-nearest-even": COMMON_ATTRIBUTES,
    "rsqrt": COMMON_ATTRIBUTES | {"result_accuracy"},
    "scaled-dot": COMMON_ATTRIBUTES | {
        "algorithm", "lhs_batch_dims", "lhs_contracting_dims", "operand_precision", "rhs_batch_dims",
        "rhs_contracting_dims",
    },
    "scan": COMMON_ATTRIBUTES | {"dimensions", "is_associative", "is_reverse", "num_carries", "to_apply"},
    "scatter": COMMON_ATTRIBUTES | {
        "index_vector_dim", "indices_are_sorted", "input_batching_dims", "inserted_window_dims",
        "scatter_dims_to_operand_dims", "scatter_indices_batching_dims", "to_apply", "unique_indices",
        "update_window_dims",
    },
    "select": COMMON_ATTRIBUTES,
    "select-and-scatter": COMMON_ATTRIBUTES | {"scatter", "select", "window"},
    "send": COMMON_ATTRIBUTES | {"channel_id", "is_host_transfer"},
    "send-done": COMMON_ATTRIBUTES | {"channel_id", "is_host_transfer"},
    "set-dimension-size": COMMON_ATTRIBUTES | {"dimensions"},
    "shift-left": COMMON_ATTRIBUTES,
    "shift-right-arithmetic": COMMON_ATTRIBUTES,
    "shift-right-logical": COMMON_ATTRIBUTES,
    "sign": COMMON_ATTRIBUTES,
    "sine": COMMON_ATTRIBUTES | {"result_accuracy"},
    "sinh": COMMON_ATTRIBUTES | {"result_accuracy"},
    "slice": COMMON_ATTRIBUTES | {"slice"},
    "sort": COMMON_ATTRIBUTES | {"dimensions", "is_stable", "to_apply"},
    "sqrt": COMMON_ATTRIBUTES | {"result_accuracy"},
    "stochastic-convert": COMMON_ATTRIBUTES,
    "subtract": COMMON_ATTRIBUTES,
    "tan": COMMON_ATTRIBUTES | {"result_accuracy"},
    "tanh": COMMON_ATTRIBUTES | {"result_accuracy"},
    "topk": COMMON_ATTRIBUTES | {"k", "largest"},
    "transpose": COMMON_ATTRIBUTES | {"dimensions"},
    "triangular-solve": COMMON_ATTRIBUTES | {"left_side", "lower", "transpose_a", "unit_diagonal"},
    "while": COMMON_ATTRIBUTES | {"body", "condition"},
    "xor": COMMON_ATTRIBUTES,
}

# Keys of metadata={...}, from the same probe.
METADATA_KEYS: frozenset[str] = frozenset(["deduplicated_name", "metadata_payload", "op_name", "op_type",
    "profile_type", "scheduling_name", "source_column", "source_end_column", "source_end_line", "source_file",
    "source_line", "stack_frame_id"])

ASYNC_SUGAR_ATTRIBUTES: frozenset[str] = COMMON_ATTRIBUTES | {"async_execution_thread"}


# Attribute names that refer to called computations (what the parser resolves to computations,
# and the printer prints as names); ``async_wrapped`` is the sugared async form's wrapped call.
# custom-call's ``called_computations={...}`` stays text: nothing here follows it.
CALLED_COMPUTATION_ROLES: tuple[str, ...] = ("to_apply", "calls", "body", "condition", "branch_computations",
                                             "true_computation", "false_computation", "scatter", "select",
                                             "async_wrapped")

# Called computations each opcode must have, by attribute, and how many: what HloVerifier requires
# (hlo_verifier.cc ``CheckCallableInstructionHasOneComputation`` & co.), checked by verify.py.
REQUIRED_CALLS: dict[str, tuple[tuple[str, int], ...]] = {
    "while": (("body", 1), ("condition", 1)), "call": (("to_apply", 1),), "fusion": (("calls", 1),),
    "async-start": (("calls", 1),), "map": (("to_apply", 1),), "reduce": (("to_apply", 1),),
    "reduce-window": (("to_apply", 1),), "sort": (("to_apply", 1),), "scatter": (("to_apply", 1),),
    "select-and-scatter": (("select", 1), ("scatter", 1)),
}

# Opcodes whose operands become the parameters of their one called computation, by attribute.
PASSES_OPERANDS_TO: dict[str, str] = {"call": "to_apply", "async-start": "calls"}

# ``HloInstruction::HasSideEffectNoRecurse`` (xla/hlo/ir/hlo_instruction.cc): always side-effecting ...
SIDE_EFFECT_OPCODES: frozenset[str] = frozenset([
    "send", "send-done", "recv", "recv-done", "rng", "rng-get-and-update-state", "infeed", "outfeed",
    "all-reduce-start", "all-reduce-done", "all-gather-start", "all-gather-done", "collective-broadcast",
    "collective-permute-start", "collective-permute-done"])
# ... and side-effecting depending on the instruction: collectives with ``constrain_layout`` or (in a
# channel-id-sensitive module) a ``channel_id``; a custom-call with ``custom_call_has_side_effect=true``.
MAYBE_SIDE_EFFECT_OPCODES: frozenset[str] = frozenset([
    "all-to-all", "all-gather", "all-reduce", "reduce-scatter", "collective-permute", "custom-call"])

# ``host_offload_utils::IsValidDuringPureMemoryOffload``: ops host memory passes through unchanged.
PURE_MEMORY_MOVE_OPCODES: frozenset[str] = frozenset([
    "get-tuple-element", "bitcast", "tuple", "call", "while", "conditional", "parameter", "opt-barrier",
    "async-start", "async-done", "custom-call", "send", "recv", "send-done", "recv-done"])


def operand_count_error(opcode: str, operands: Sequence[Any]) -> str | None:
    """XLA's parser's own operand-count checks of ``dynamic-slice`` and ``dynamic-update-slice``
    (``hlo_parser.cc``): the start indices are one vector operand or one scalar per dimension of
    the operand they slice, else "Wrong number of operands." (issue 35: a mutated shape
    ``f32[816]`` for ``f32[8,16]`` left two scalar indices for a rank-1 operand, which jaxlib refuses)."""
    if opcode == "dynamic-slice":
        if not operands:
            return "Expected at least one operand."
        vector = len(operands) == 2 and len(operands[1].shape.dimensions) == 1
        if not vector and len(operands) != 1 + len(operands[0].shape.dimensions):
            return "Wrong number of operands."
    elif opcode == "dynamic-update-slice":
        if len(operands) < 2:
            return "Expected at least two operands."
        vector = len(operands) == 3 and len(operands[2].shape.dimensions) == 1
        if not vector and len(operands) != 2 + len(operands[0].shape.dimensions):
            return "Wrong number of operands."
    return None
