"""``Insertions.place(removed)``: the removed left out as the insertions go in, one sweep not two.

ReshapeMover and AlgebraicSimplifier place their new instructions and then took the replaced ones
out by a sweep of their own (``drop_removed``).  ``place`` now leaves out the removed that are
anchors as it places (ReshapeMover's are all anchors) and sweeps only where one is not; the
caller then forgets them (``forget_removed``).  Compared with ``place()`` + ``drop_removed`` on
every path: all removed anchors, one removed that is no anchor, removed and nothing inserted.
"""

from __future__ import annotations

import pytest

from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload.passes.insertions import Insertions
from xladoctor.syntax.hlo_parser import parse_module

TEXT = """HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p)
  c = f32[4] sine(p)
  d = f32[4] cosine(p)
  ROOT t = (f32[4], f32[4]) tuple(a, d)
}
"""


def _run(anchors: list[str], removed: list[str], batched: bool) -> tuple:
    module = parse_module(TEXT)
    comp = module.entry_computation()
    at = Insertions(comp)
    for name in anchors:
        anchor = comp.get(name)
        assert anchor is not None
        new = HloInstruction(module.unique_name("inserted"), HloOpcode.NEGATE, anchor.shape)
        at.insert_before(anchor, new)
        new.operands = [comp.get("p")]
    gone = {comp.get(n) for n in removed}
    for instr in gone:
        instr.drop_operands()  # type: ignore[union-attr]  # unhooked, as the passes' replaced are
    if batched:
        at.place(gone)  # type: ignore[arg-type]
        comp.forget_removed(gone, release_names=False)  # type: ignore[arg-type]
    else:
        at.place()
        comp.drop_removed(gone, release_names=False)  # type: ignore[arg-type]
    return ([i.name for i in comp.instructions], [module.get_instruction(n) is None for n in removed],
            [i.parent is None for i in gone], [module.instruction_names.taken(n) for n in removed])  # type: ignore[union-attr]


@pytest.mark.parametrize("anchors,removed", [
    (["b", "c", "c"], ["b", "c"]),  # every removed an anchor: no sweep
    (["b"], ["b", "c"]),  # ``c`` no anchor: the sweep
    ([], ["b"]),  # nothing inserted
    (["c"], []),  # nothing removed
])
def test_place_leaving_out_the_removed_is_place_then_drop(anchors: list[str], removed: list[str]) -> None:
    batched, plain = _run(anchors, removed, True), _run(anchors, removed, False)
    assert batched == plain
    assert not set(removed) & set(batched[0]) and batched[0].count("p") == 1
