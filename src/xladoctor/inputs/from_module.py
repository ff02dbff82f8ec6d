"""Expected parameters (or supplied buffers) read from a compiled HLO module.

The caller-visible shapes are the ``entry_computation_layout`` (with the layouts
the compiler chose, TPU tiles included), not the parameter instructions' shapes;
when a module prints no entry layout, the parameters' own shapes stand in.
"""

from __future__ import annotations

from ..ir.module import HloModule
from .compare import ExpectedParameter, SuppliedBuffer
from .param_names import parameter_names


def _shapes(module: HloModule):
    if module.entry_computation_layout is not None:
        return list(module.entry_computation_layout.parameters)
    return [p.shape for p in module.entry.parameters] if module.entry is not None else []


def expected_from_module(module: HloModule) -> list[ExpectedParameter]:
    """One :class:`ExpectedParameter` per entry parameter, named from its metadata."""
    names = {n.index: n for n in parameter_names(module)}
    out = []
    for i, shape in enumerate(_shapes(module)):
        n = names.get(i)
        out.append(ExpectedParameter(i, shape, n.path if n else None, n.instruction if n else None))
    return out


def supplied_from_module(module: HloModule) -> list[SuppliedBuffer]:
    """The entry parameters of another compile, as the buffers it would have produced."""
    return [SuppliedBuffer(e.shape, e.name, None, e.index) for e in expected_from_module(module)]


def names_are_metadata(module: HloModule) -> bool:
    """True when every parameter's name came from metadata (safe to pair compiles by name)."""
    names = parameter_names(module)
    return bool(names) and all(n.source == "metadata" for n in names)
