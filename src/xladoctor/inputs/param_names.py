"""Names for an executable's parameters: "parameter 2482" -> ``params['embed']['w']``.

What jax 0.10.2 records (checked by the tests on real jax output):

* **Compiled (post-optimization) HLO**: every entry parameter carries
  ``metadata={op_name="params['w']"}``, the argument's pytree path spelled as
  Python (keyword arguments by name: ``op_name="scale"``).
* **Lowered (pre-optimization) HLO**: no parameter metadata, but the instruction
  name is derived from the same path with every non-identifier character turned
  into ``_`` (``params['c'][0]`` -> ``params__c___0_.1``); not invertible, so it is
  reported as a hint only.
* Neither carries frontend attributes on parameters; any ``frontend_attributes``
  a frontend does put there are passed through.

Parameter numbers are positions among the *kept* arguments: jax drops unused
arguments unless ``keep_unused=True``, so number N is not the N-th Python leaf.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..ir.module import HloModule

_GENERIC_NAME = re.compile(r"^(Arg_\d+|arg\d+|p\d+|param(_\d+)?|parameter(\.\d+)?)$")
_SUFFIX = re.compile(r"\.\d+$")


@dataclass(frozen=True)
class ParameterName:
    """What is known about the name of one entry parameter."""

    index: int
    instruction: str | None = None
    """The ``parameter(N)`` instruction's name, e.g. ``params__w__.1``."""
    path: str | None = None
    """The argument path as the frontend recorded it, e.g. ``params['w']``."""
    source: str = "none"
    """Where ``path`` came from: ``metadata`` (op_name), ``instruction_name`` (a hint), ``none``."""
    frontend_attributes: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """Best short name: the path, else the instruction name, else ``parameter N``."""
        return self.path or self.instruction or f"parameter {self.index}"


def _path_from_instruction_name(name: str) -> str | None:
    base = _SUFFIX.sub("", name)
    if not base or _GENERIC_NAME.match(base):
        return None
    return base


def parameter_names(module: HloModule) -> list[ParameterName]:
    """One :class:`ParameterName` per entry parameter, in parameter-number order."""
    if module.entry is None:
        return []
    out = []
    for n, instr in enumerate(module.entry.parameters):
        if instr is None:
            out.append(ParameterName(n))
            continue
        md = instr.metadata
        op_name = md.op_name if md is not None else None
        attrs = dict(instr.frontend_attributes)
        if op_name and not op_name.startswith(("jit(", "pjit(")):
            out.append(ParameterName(n, instr.name, op_name, "metadata", attrs))
            continue
        hint = _path_from_instruction_name(instr.name)
        out.append(ParameterName(n, instr.name, hint, "instruction_name" if hint else "none", attrs))
    return out
