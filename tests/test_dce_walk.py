"""Dead-code elimination's one walk (``hlo_dce._walk_dead``) finds what the closure and XLA's post
order find, or gives way to them.

Why: the walk decides each value dead when it reaches it from its last user and goes on into it
there, which is XLA's post order only where no dead value has two dead users; elsewhere it must
give up (and the closure runs as before).  Checked against the closure (``close_dead``) and the
computation's whole post order restricted to the dead code, on every corpus module and on a
dead value with two dead users."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.computation import HloComputation
from xladoctor.ir.instruction import HloInstruction
from xladoctor.offload.passes import hlo_dce
from xladoctor.offload.passes.hlo_dce import close_dead, dead_code_counted, removable
from xladoctor.syntax.hlo_parser import parse_module


def _reference(comp: HloComputation) -> tuple[list[HloInstruction], dict[HloInstruction, int]]:
    root = comp.root
    starts = [i for i in comp.instructions if not i.users and i is not root and removable(i)]
    dead = set(starts)
    counts: dict[HloInstruction, int] = {}
    close_dead(list(starts), dead, counts, root)
    return [i for i in reversed(comp.post_order()) if i in dead], counts


def _same(comp: HloComputation, label: str) -> None:
    order, counts = dead_code_counted(comp)
    want_order, want_counts = _reference(comp)
    assert order == want_order, label
    assert {k: v for k, v in counts.items() if v} == {k: v for k, v in want_counts.items() if v}, label


DIAMOND = """HloModule diamond, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  p = f32[4]{0} parameter(0)
  t = f32[4]{0} tanh(p)
  s = f32[4]{0} exponential(p)
  u = f32[4]{0} multiply(s, t)
  v = f32[4]{0} add(t, u)
  w = f32[4]{0} sine(p)
  ROOT r = f32[4]{0} negate(p)
}
"""


def test_a_dead_value_with_two_dead_users_is_found_by_the_closure(monkeypatch):
    module = parse_module(DIAMOND, "diamond")
    entry = module.entry
    assert entry is not None
    starts = [i for i in entry.instructions if i.name in ("v", "w")]
    assert hlo_dce._walk_dead(starts, set(starts), {}, entry.root) is None  # t: passed by from v, dead from u
    _same(entry, "diamond")
    assert [i.name for i in dead_code_counted(entry)[0]] == ["w", "v", "u", "s", "t"]  # XLA's: t before s


@pytest.mark.parametrize("compiled", [False, True])
def test_the_walk_finds_the_closure_and_post_order_on_the_corpus(tmp_path: Path, compiled: bool,
                                                                 monkeypatch: pytest.MonkeyPatch):
    """Both spellings of an operand list's distinct values (a comprehension compiled, dict.fromkeys
    in pure Python) walk alike."""
    monkeypatch.setattr(hlo_dce, "COMPILED", compiled)
    walked = 0
    original = hlo_dce._walk_dead

    def counting(*args):  # type: ignore[no-untyped-def]
        nonlocal walked
        out = original(*args)
        walked += out is not None
        return out

    hlo_dce._walk_dead = counting
    try:
        for path in [*CORPUS, *generated_hlo(tmp_path, 60)]:
            module = parse_module(path.read_text(), str(path))
            for comp in module.computations:
                if not hlo_dce.has_control_edges(comp):
                    _same(comp, f"{path.name} {comp.name}")
    finally:
        hlo_dce._walk_dead = original
    assert walked > 20  # the walk itself answered on many, not only the closure


def test_control_edges_found_alike_by_the_compiled_loop_and_the_map(monkeypatch):
    """has_control_edges: the native loop the compiled core runs and the C-level ``map`` pure
    Python runs say the same, on a computation with control edges and one without."""
    module = parse_module("""HloModule m

e {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  ROOT b = f32[] negate(p), control-predecessors={a}
}

ENTRY plain {
  q = f32[] parameter(0)
  ROOT n = f32[] negate(q), metadata={op_name="x"}
}
""")
    both = [module.computation("e"), module.entry_computation()]
    answers = []
    for compiled in (False, True):
        monkeypatch.setattr(hlo_dce, "COMPILED", compiled)
        answers.append([hlo_dce.has_control_edges(c) for c in both])
    assert answers == [[True, False], [True, False]]
