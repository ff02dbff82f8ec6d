"""The dead steps found in one walk are those found the long way (``offload/passes/dead_steps.py``).

:func:`~xladoctor.offload.passes.dead_steps._closure_walks` checks, as it finds the dead code,
what the model covers (no second look at the dead code), and gives its post order, from which a
one-parameter step's removal order is read (no second walk through the entry).  The long way is
the one the module takes where that walk gives up: the closure first (``close_dead``), the
coverage check over it (``_covered``), the rebuild's walks, and each removal walk from the
callee's root with the stand-in's operands checked.  Both must give the same record (stand-ins,
removals, names, bound) and the same copy, or both none, on every module: steps the model covers
(markers and annotations, a marker as the call's operand, a callee reading its parameter twice
or after a constant, many copies of one step), steps it does not (each check's case), and dead
steps added at random to the corpus.
"""

from __future__ import annotations

import pytest

from test_offload_dead_steps import CONFIG, _module, _two_reads, corpus_with_dead_steps
from xladoctor.ir.module import HloModule
from xladoctor.offload.analysis import lean_copy
from xladoctor.offload.passes import dead_steps as dead_steps_module
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module


def _record(module: HloModule) -> object:
    """What the copy and the pipeline read of the dead steps, by name, and the copy's text."""
    copy, left_out, steps = lean_copy(module, CONFIG)
    if steps is None:
        return None
    names = lambda instrs: [i.name for i in instrs]  # noqa: E731
    return ({call.name: (stand_in.name, names(operands)) for call, (stand_in, operands) in steps.stand_ins.items()},
            {root: names(order) for root, order in steps.removals.items()}, dict(steps.calls), list(steps.released),
            steps.extra_size, sorted(c.name for c in steps.computations), print_module(copy),
            {name: names(instrs) for name, instrs in left_out.items()})


def _both_ways(text: str, monkeypatch: pytest.MonkeyPatch, walks: list[object] | None = None) -> object:
    """The record found in one walk, asserted equal to the one found the long way; ``walks``:
    what each call of the one walk gave (None where it gave way), appended."""
    walk = dead_steps_module._closure_walks

    def kept(*args: object) -> object:
        found = walk(*args)  # type: ignore[arg-type]
        if walks is not None:
            walks.append(found if found is None or found is dead_steps_module._UNCOVERED else "walked")
        return found
    with monkeypatch.context() as m:
        m.setattr(dead_steps_module, "_closure_walks", kept)
        walked = _record(parse_module(text, "one walk"))
    with monkeypatch.context() as m:
        m.setattr(dead_steps_module, "_closure_walks", lambda *args: None)
        long_way = _record(parse_module(text, "long way"))
    assert walked == long_way
    return walked


def _replace(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new)
    return text


COVERED = {
    "annotations": _module(4),
    "host moves, live first": _module(4, target="move", live_first=True),
    "many copies of one step": _module(40),
    "a constant before the parameter": _replace(_module(3), ("maximum(a0, b0)", "maximum(b0, a0)")),
    "the parameter read twice": _replace(_module(3), ("maximum(a1, b1)", "maximum(a1, a1)"),
                                         ("  z1 = f32[] constant(0)\n  b1 = f32[8,128]{1,0} broadcast(z1), dimensions={}\n", "")),
    "a marker as the call's operand": _replace(
        _module(3), ("r1 = f32[8,128]{1,0} call(e1)", 'm1 = f32[8,128]{1,0} custom-call(e1), custom_call_target="Sharding"\n'
                     '  mm1 = f32[8,128]{1,0} custom-call(m1), custom_call_target="Sharding"\n'
                     "  r1 = f32[8,128]{1,0} call(mm1)")),
    "a value read twice in one step (the walk gives way)": _replace(_module(3), ("e0 = f32[8,128]{1,0} dot(g0, w)", "e0 = f32[8,128]{1,0} dot(g0, t0)")),
    "two parameters in order": _two_reads("add(p0, p1)"),
}

NOT_COVERED = {
    "a call reading a live value": _replace(_module(3), ("r0 = f32[8,128]{1,0} call(e0)", "r0 = f32[8,128]{1,0} call(x)")),
    "another custom call": _replace(_module(3), ("t1 = f32[8,128]{1,0} tanh(d1)",
                                                 't1 = f32[8,128]{1,0} custom-call(d1), custom_call_target="foo"')),
    "a dead tuple under a marker": _replace(_module(3), ("t1 = f32[8,128]{1,0} tanh(d1)", "tt1 = (f32[8,128]{1,0}) tuple(d1)\n"
                                                         '  st1 = (f32[8,128]{1,0}) custom-call(tt1), custom_call_target="Sharding"\n'
                                                         "  t1 = f32[8,128]{1,0} get-tuple-element(st1), index=0")),
    "an annotation of a live value": _replace(_module(3), ("custom-call(sh0), custom_call_target=\"annotate_device_placement\"",
                                                           "custom-call(x), custom_call_target=\"annotate_device_placement\"")),
    "two annotations of one value": _replace(_module(3), ("g1 = f32[8,128]{1,0} custom-call(h1)", "g1 = f32[8,128]{1,0} custom-call(sh1)"),
                                             ("e1 = f32[8,128]{1,0} dot(g1, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                                              "e1 = f32[8,128]{1,0} add(g1, h1)")),
    "an annotation reading one value twice": _replace(_module(3), ("h0 = f32[8,128]{1,0} custom-call(sh0)",
                                                                   "h0 = f32[8,128]{1,0} custom-call(sh0, sh0)")),
    "a dead value calling a computation": _replace(_module(3, extra="neg.0 {\n  q = f32[] parameter(0)\n"
                                                           "  ROOT nq = f32[] negate(q)\n}\n"),
                                                   ("t1 = f32[8,128]{1,0} tanh(d1)", "t1 = f32[8,128]{1,0} map(d1), dimensions={0,1}, to_apply=neg.0")),
    "a live value a host move reads": _replace(_two_reads("add(p0, p1)"), ("custom-call(c), custom_call_target", "custom-call(y), custom_call_target")),
    "parameters out of order": _two_reads("add(p1, p0)"),
    # A call (no step: its user is read by one) of one user, read by a step's dead code: kept, so live.
    "a call read by a step": _replace(_module(3), ("d1 = f32[8,128]{1,0} dot(x, w)", "d1 = f32[8,128]{1,0} dot(n0, w)")),
    # The root of one user, reached by a step's walk: kept as live whatever its users (the edge's check).
    "the root read by a step": _replace(_module(3, live_first=True), ("d1 = f32[8,128]{1,0} dot(x, w)", "d1 = f32[8,128]{1,0} dot(r0, w)")),
    "a marker flagged with a side effect (kept)": _replace(_module(3), (
        'sh1 = f32[8,128]{1,0} custom-call(t1), custom_call_target="Sharding"',
        'sh1 = f32[8,128]{1,0} custom-call(t1), custom_call_target="Sharding", custom_call_has_side_effect=true')),
}


@pytest.mark.parametrize("name", sorted(COVERED))
def test_covered_steps_are_the_same_either_way(name, monkeypatch):
    walks: list[object] = []
    assert _both_ways(COVERED[name], monkeypatch, walks) is not None
    assert walks == [None if "gives way" in name else "walked"]


@pytest.mark.parametrize("name", sorted(NOT_COVERED))
def test_steps_not_covered_are_copied_either_way(name, monkeypatch):
    """Each found so by the one walk (no second look), but where the callee reads its parameters
    in another order than the call (the removal walk finds it), and by the long way."""
    walks: list[object] = []
    assert _both_ways(NOT_COVERED[name], monkeypatch, walks) is None
    assert walks == ["walked" if "order" in name else dead_steps_module._UNCOVERED]


def test_each_copy_of_a_step_is_removed_in_its_own_order(monkeypatch):
    """Forty copies of one step, one with a second marker (read through: not removed) and one
    with one more instruction between its dot and its tanh: each removal order is its own step's."""
    text = _replace(_module(40), ("h7 = f32[8,128]{1,0} custom-call(sh7)", "s7 = f32[8,128]{1,0} custom-call(sh7), "
                                  'custom_call_target="Sharding"\n  h7 = f32[8,128]{1,0} custom-call(s7)'),
                    ("t9 = f32[8,128]{1,0} tanh(d9)", "u9 = f32[8,128]{1,0} negate(d9)\n  t9 = f32[8,128]{1,0} tanh(u9)"))
    record = _both_ways(text, monkeypatch)
    assert record is not None
    removals = record[1]
    one = ["d", "t", "h", "g", "e", "z", "b", "m"]
    assert len(removals) == 39 and removals["m9"] == ["d9", "u9", "t9", "h9", "g9", "e9", "z9", "b9", "m9"]
    assert all(removals[f"m{k}"] == [f"{name}{k}" for name in one] for k in range(39) if k != 9)


def test_dead_steps_added_to_the_corpus_are_the_same_either_way(tmp_path, monkeypatch):
    """Dead steps reading random live values of each corpus module's entry (some covered, some not)."""
    found = tried = 0
    for _, _, text in corpus_with_dead_steps(tmp_path):
        tried += 1
        found += _both_ways(text, monkeypatch) is not None
    assert tried > 100 and found > 20, (tried, found)


def test_a_custom_calls_removable_is_its_flags_test():
    """The one walk asks a custom call :func:`~xladoctor.offload.passes.hlo_dce.removable_custom_call`
    (no custom call is of the side-effecting opcodes): what :func:`removable` answers, on every
    custom call of the covered and uncovered modules (markers flagged or not, annotations, others)."""
    from xladoctor.ir.opcodes import CUSTOM_CALL
    from xladoctor.offload.passes.hlo_dce import SIDE_EFFECTING, removable, removable_custom_call

    assert CUSTOM_CALL not in SIDE_EFFECTING
    answers = set()
    for text in [*COVERED.values(), *NOT_COVERED.values()]:
        for comp in parse_module(text).computations:
            for instr in comp.instructions:
                if instr.opcode is CUSTOM_CALL:
                    assert removable_custom_call(instr) == removable(instr), instr.name
                    answers.add(removable(instr))
    assert answers == {True, False}
