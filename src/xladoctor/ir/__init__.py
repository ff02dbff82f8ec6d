"""XLA's IR in Python: Shape/Layout/Tile values, HloInstruction, HloComputation, HloModule.

>>> from xladoctor.syntax.hlo_parser import parse_module
>>> m = parse_module('''HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0:S(5)}}
... ENTRY main {
...   p = f32[4]{0} parameter(0)
...   ROOT mth = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
... }''')
>>> root = m.entry.root
>>> root.custom_call_target, [o.name for o in root.operands], str(m.entry_computation_layout.result)
('MoveToHost', ['p'], 'f32[4]{0:S(5)}')
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `xladoctor shape` imports this package (issue 36, start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["HloOpcode", "HOST_MEMORY_SPACE", "Layout", "Shape", "ShapeIndex", "SplitConfig", "Tile"]

# Re-exported on first use: importing ``xladoctor.ir.shape`` runs this package first, and
# ``xladoctor shape`` has no use for the opcode enum (130-odd members built at import).
_FROM_SHAPE = frozenset(__all__) - {"HloOpcode"}


def __getattr__(name: str) -> Any:
    if name == "HloOpcode":
        from .opcodes import HloOpcode

        return HloOpcode
    if name in _FROM_SHAPE:
        from . import shape

        return getattr(shape, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
