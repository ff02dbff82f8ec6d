"""Python call stacks of HLO instructions, from the module's StackFrames table.

jaxlib 0.10.2 prints ``parent_frame_id`` one higher than the frame it points to
(``0``+1 = no parent): for ``f`` calling ``g`` calling ``h``, frame 4 (``h``) prints
``parent_frame_id=4`` and its caller ``g`` is frame 3; every outermost frame prints
its own id... checked on ``Lowered.as_text("hlo", debug_info=True)``.  Reading the
printed value as the parent itself stops every walk at the first frame, so this
module follows ``printed - 1``.
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction, SourceLocation
from ..ir.module import HloModule


def python_stack(module: HloModule, instr: HloInstruction) -> list[SourceLocation]:
    """Innermost frame first; falls back to the instruction's own location."""
    md = instr.metadata
    tables = module.source_tables
    if md is None or not md.stack_frame_id or not tables.stack_frames:
        loc = instr.source_location()
        return [loc] if loc else []
    out: list[SourceLocation] = []
    seen: set[int] = set()
    fid = md.stack_frame_id
    while fid and fid not in seen:
        seen.add(fid)
        frame = tables.stack_frames.get(fid)
        if frame is None:
            break
        loc = tables.file_locations.get(frame.file_location_id)
        if loc is not None:
            out.append(SourceLocation(tables.file_names.get(loc.file_name_id, "?"), loc.line,
                                      tables.function_names.get(loc.function_name_id), loc.column))
        fid = frame.parent_frame_id - 1
    return out
