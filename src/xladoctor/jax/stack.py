"""Python call stacks of HLO instructions, from the module's StackFrames table.

The table and its off-by-one ``parent_frame_id`` convention are handled in
:meth:`xladoctor.ir.module.HloModule.stack_frames_for`; this module only adds the
fallback to an instruction's own ``source_file``/``source_line``.
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction, SourceLocation
from ..ir.module import HloModule


def python_stack(module: HloModule, instr: HloInstruction) -> list[SourceLocation]:
    """Innermost frame first; falls back to the instruction's own location."""
    md = instr.metadata
    if md is None or not md.stack_frame_id or not module.source_tables.stack_frames:
        loc = instr.source_location()
        return [loc] if loc else []
    return module.stack_frames_for(md.stack_frame_id)
