"""When does a predicted instruction name stand for the one the real compiler names?

XLA's compile path renames instructions before HostOffloader runs: the module goes
HLO -> StableHLO -> HLO, so every instruction gets a fresh unique name built from its old
name (HLO route) or from its op (StableHLO from ``Lowered.as_text()``: ``sine.1``,
``dynamic-update-slice.0``, ``Arg_0.5`` for parameter 0), plus a ``.N`` suffix; tuples are
rebuilt (``tuple.64`` -> ``tuple.1``).  The rule, applied to both names:

1. drop a ``%`` prefix and one trailing ``.N`` suffix (``neg.7`` -> ``neg``);
2. treat ``-`` and ``_`` as the same character (HLO spelling vs MLIR op names);
3. the names match when the stems are equal (so ``tuple.7`` ~ ``tuple.1``), or when XLA's
   stem is the predicted instruction's opcode (``sin.5`` of opcode ``sine`` ~ ``sine.1``),
   or when XLA's stem is ``Arg_N`` and the predicted instruction is parameter N;
4. XLA:TPU rewrites every ``dot`` as a ``convolution`` before HostOffloader runs, so a
   predicted ``dot`` matches XLA's ``convolution`` (``dot_general.5`` ~ ``convolution``);
5. XLA:GPU's GemmFusion wraps a ``dot`` in a fusion named ``gemm_fusion_<dot's name>``
   before HostOffloader, so a predicted ``dot`` matches ``gemm_fusion_dot.5`` (the stem after
   the prefix is the dot's own or its opcode).

The differential campaign and ``--confirm`` both decide "same start instruction" with
:func:`same_instruction`, so a change to the rule changes both.
"""

from __future__ import annotations

import re

_SUFFIX = re.compile(r"\.\d+$")
_ARG = re.compile(r"^Arg_(\d+)$")


def stem(name: str) -> str:
    """``%dynamic-update-slice.5`` -> ``dynamic_update_slice``."""
    s = _SUFFIX.sub("", name.lstrip("%"))
    return s.replace("-", "_")


def same_instruction(predicted: str | None, actual: str | None, predicted_opcode: str | None = None,
                     parameter_number: int | None = None) -> bool:
    """True when ``predicted`` (a name in the input module, with its opcode and, for a
    parameter, its number when known) and ``actual`` (XLA's name in the compiled module)
    denote the same start instruction under the renaming rule above."""
    if predicted is None or actual is None:
        return predicted is None and actual is None
    a, b = stem(predicted), stem(actual)
    if a == b:
        return True
    if predicted_opcode is not None and stem(predicted_opcode) == b:
        return True
    if predicted_opcode == "dot" and b == "convolution":
        return True
    if predicted_opcode == "dot" and b.startswith("gemm_fusion_"):
        return same_instruction(predicted, actual.lstrip("%")[len("gemm_fusion_"):], predicted_opcode)
    arg = _ARG.match(b)
    if arg and predicted_opcode == "parameter":
        return parameter_number is None or int(arg.group(1)) == parameter_number
    return False
