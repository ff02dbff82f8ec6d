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

from .opcodes import HloOpcode
from .shape import HOST_MEMORY_SPACE, Layout, Shape, ShapeIndex, SplitConfig, Tile

__all__ = ["HloOpcode", "HOST_MEMORY_SPACE", "Layout", "Shape", "ShapeIndex", "SplitConfig", "Tile"]
