"""``HloComputation.drop_removed``: its batched path (names kept) leaves what ``_removed`` of each does.

Without ``release_names`` the removals are batched (``NameTable.remove_each``, the caller index
forgotten once); with it, or outside a module, each goes through ``_removed`` as before.  Both are
compared here with ``_removed`` of each instruction, on a computation whose removed instructions
include a call (the caller index must be forgotten) and a name the uniquer must keep taken.
"""

from __future__ import annotations

import pytest

from xladoctor.ir.module import HloModule
from xladoctor.syntax.hlo_parser import parse_module

TEXT = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p)
  r = f32[] reduce(b, z), dimensions={0}, to_apply=add
  ROOT n = f32[4] negate(a)
}
"""


def _state(module: HloModule) -> tuple:
    entry = module.entry_computation()
    names = ("a", "b", "r", "n", "p")
    return ([i.name for i in entry.instructions], [module.get_instruction(n) is not None for n in names],
            [module.instruction_names.taken(n) for n in names], [c.name for c in module.callers_of(module.computation("add"))],
            module.unique_name("b"), module.unique_name("r"))


@pytest.mark.parametrize("release", [False, True])
def test_drop_removed_leaves_what_removing_each_leaves(release: bool) -> None:
    states = []
    for batched in (True, False):
        module = parse_module(TEXT)
        entry = module.entry_computation()
        assert module.callers_of(module.computation("add"))  # the caller index built: to be forgotten
        gone = {entry.get("r"), entry.get("b")}
        for instr in (entry.get("r"), entry.get("b")):
            entry.unhook(instr)
        if batched:
            entry.drop_removed(gone, release_names=release)  # type: ignore[arg-type]
        else:
            entry.instructions = [i for i in entry.instructions if i not in gone]
            for instr in gone:
                entry._removed(instr, release_name=release)  # type: ignore[arg-type]
        assert all(i.parent is None for i in gone)  # type: ignore[union-attr]
        states.append(_state(module))
    assert states[0] == states[1]
    kept_names = states[0][2]
    assert kept_names[:2] == [True, not release]  # 'a' live; 'b' stays taken unless released
