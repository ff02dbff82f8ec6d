"""Operand counts and attributes XLA's HLO parser requires, per opcode.

Measured, not transcribed: each opcode was parsed by jaxlib 0.10.2's
``hlo_module_from_text`` with 0 to 4 operands (``bench/fuzz_campaign.py`` keeps
checking the parser against it).  ``FIXED_ARITY`` holds the opcodes for which XLA
answered "expects N operands, but has M operands"; ``REQUIRED_ATTRIBUTES`` the
attribute XLA reported missing first ("attribute X is expected but not seen"), so
it is a lower bound of what XLA requires, not the whole list.
"""

from __future__ import annotations

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

REQUIRED_ATTRIBUTES: dict[str, str] = {
    "all-gather": "dimensions", "all-gather-start": "dimensions", "all-reduce": "to_apply",
    "all-reduce-start": "to_apply", "call": "to_apply", "collective-permute": "source_target_pairs",
    "collective-permute-start": "source_target_pairs", "compare": "direction", "concatenate": "dimensions",
    "custom-call": "custom_call_target", "dynamic-slice": "dynamic_slice_sizes", "fusion": "calls",
    "map": "to_apply", "reduce": "dimensions", "reduce-scatter": "dimensions", "reduce-window": "to_apply",
    "rng": "distribution", "rng-bit-generator": "algorithm", "scan": "dimensions",
    "scatter": "index_vector_dim", "sort": "dimensions",
}
