"""When does a predicted instruction name stand for the one the real compiler names?

XLA's compile path renames instructions before HostOffloader runs: the module goes
HLO -> StableHLO -> HLO, so every instruction gets a fresh unique name built from its
opcode or its old name plus a ``.N`` suffix (``neg`` -> ``neg.1``,
``dynamic-update-slice.5`` -> ``dynamic_update_slice.0``), and tuples are rebuilt
(``tuple.64`` -> ``tuple.1``).  The rule, applied to both names:

1. strip one trailing ``.N`` suffix (``sin.1`` -> ``sin``);
2. treat ``-`` and ``_`` as the same character (HLO opcode spelling vs MLIR op names);
3. the names match when the stems are equal, or when both stems are ``tuple``;
   a stem that is a *known opcode* also matches the other side's opcode when given.

The differential campaign and ``--confirm`` both decide "same start instruction" with
:func:`same_instruction`, so a change to the rule changes both.
"""

from __future__ import annotations

import re

_SUFFIX = re.compile(r"\.\d+$")


def stem(name: str) -> str:
    """``dynamic-update-slice.5`` -> ``dynamic_update_slice``; ``%`` prefixes dropped."""
    s = name.lstrip("%")
    s = _SUFFIX.sub("", s)
    return s.replace("-", "_")


def same_instruction(predicted: str | None, actual: str | None,
                     predicted_opcode: str | None = None) -> bool:
    """True when ``predicted`` (our name, from the input module) and ``actual`` (XLA's name,
    from the compiled module) denote the same start instruction under the renaming rule."""
    if predicted is None or actual is None:
        return predicted is None and actual is None
    a, b = stem(predicted), stem(actual)
    if a == b:
        return True
    if predicted_opcode is not None and stem(predicted_opcode) == b:
        return True
    return False
