"""Whole visits the passes skip where they would find nothing (issue 36, the train steps' reducers).

HloCSE asks a computation of up to three instructions whether two of them may merge at all
(``hlo_cse._two_may_merge``) before making its keys, the dead-code elimination whether all but the
root are used (``hlo_dce._all_used``) before its search; ConditionalCodeMotion makes the computations'
order only where one holds a conditional.  Both paths of each, and the skip's answer against the
work it stands for, on the corpus and generated modules.
"""

from __future__ import annotations

from pathlib import Path

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.opcodes import CONDITIONAL
from xladoctor.offload.passes import conditional_code_motion as ccm
from xladoctor.offload.passes import hlo_dce
from xladoctor.offload.passes.hlo_cse import _merge_by_cheap_key, _two_may_merge, eliminate_common_subexpressions
from xladoctor.syntax.hlo_parser import parse_module

SMALL = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

twice {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  ROOT b = f32[4] negate(p)
}

ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  c = f32[4] call(p), to_apply=twice
  ROOT t = (f32[], f32[4]) tuple(r, c)
}
"""


def test_a_small_computation_merges_only_where_two_may() -> None:
    module = parse_module(SMALL)
    assert not _two_may_merge(module.computation("add").instructions)  # two parameters and an add
    assert _two_may_merge(module.computation("twice").instructions)
    merged = eliminate_common_subexpressions(module)
    assert ("b", "a") in merged or ("a", "b") in merged  # the small computation that may merge did
    assert [i.name for i in module.computation("add").instructions] == ["x", "y", "s"]


def _modules(tmp_path: Path) -> list:
    modules = [parse_module(SMALL)]
    for path in [*CORPUS, *generated_hlo(tmp_path, 40)]:
        try:
            modules.append(parse_module(path.read_text()))
        except Exception:  # input errors are not this test's
            continue
    return modules


def test_a_skipped_computation_is_one_the_keys_merge_nothing_in(tmp_path: Path) -> None:
    skipped = 0
    for module in _modules(tmp_path):
        for comp in module.computations:
            if len(comp.instructions) <= 3 and not _two_may_merge(comp.instructions):
                skipped += 1
                names = [i.name for i in comp.instructions]
                assert _merge_by_cheap_key(comp) == [] and [i.name for i in comp.instructions] == names
    assert skipped > 10


def test_conditionals_found_as_the_full_order_finds_them(tmp_path: Path) -> None:
    with_conditionals = 0
    for module in _modules(tmp_path):
        found = ccm._conditionals(module)
        every = [i for c in module.computations for i in c.instructions if i.opcode is CONDITIONAL]
        assert sorted(i.name for i in found) == sorted(i.name for i in every)
        with_conditionals += bool(every)
    assert with_conditionals >= 1  # both paths: modules with a conditional and without


DEAD_SMALL = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

one_dead {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  ROOT b = f32[4] exponential(p)
}

ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  c = f32[4] call(p), to_apply=one_dead
  ROOT t = (f32[], f32[4]) tuple(r, c)
}
"""


def test_a_small_computation_is_searched_for_dead_code_only_where_one_is_unused() -> None:
    module = parse_module(DEAD_SMALL)
    add, one_dead = module.computation("add"), module.computation("one_dead")
    assert hlo_dce._all_used(add.instructions, add.root)
    assert not hlo_dce._all_used(one_dead.instructions, one_dead.root)
    assert [i.name for i in hlo_dce.remove_dead_code(module)] == ["a"]  # the small one with dead code
    assert [i.name for i in add.instructions] == ["x", "y", "s"]


def test_a_skipped_computation_has_no_dead_code(tmp_path: Path) -> None:
    skipped = 0
    for module in _modules(tmp_path):
        for comp in module.computations:
            if len(comp.instructions) <= 3 and hlo_dce._all_used(comp.instructions, comp.root):
                skipped += 1
                assert hlo_dce.dead_code(comp) == []
    assert skipped > 10


SHAPES = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

swapped {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(y, x)
}

twice {
  x = f32[] parameter(0)
  ROOT s = f32[] add(x, x)
}

one {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}

alone {
  ROOT c = f32[] constant(1)
}

ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add
  r2 = f32[] reduce(p, z), dimensions={0}, to_apply=swapped
  r3 = f32[] reduce(p, z), dimensions={0}, to_apply=twice
  c1 = f32[] call(z), to_apply=one
  c2 = f32[] call(), to_apply=alone
  ROOT t = (f32[], f32[], f32[], f32[], f32[]) tuple(r1, r2, r3, c1, c2)
}
"""


def test_the_rebuild_skips_a_computation_only_where_its_list_is_its_post_order(tmp_path: Path) -> None:
    """``stablehlo_rebuild._leaves_then_root``: where it holds, the list is the post order and no
    instruction has two users (nothing to sort); ``swapped`` (its post order is y, x) and ``twice``
    (a leaf used twice) are walked."""
    from xladoctor.ir.users import Users
    from xladoctor.offload.passes.stablehlo_rebuild import _leaves_then_root

    module = parse_module(SHAPES)
    asked = {c.name: _leaves_then_root(c.instructions, c.root) for c in module.computations}
    assert asked == {"add": True, "swapped": False, "twice": False, "one": True, "alone": True, "main": False}
    held = 0
    for module in [parse_module(SHAPES), *_modules(tmp_path)]:
        for comp in module.computations:
            if _leaves_then_root(comp.instructions, comp.root):
                held += 1
                assert comp.post_order() == comp.instructions
                assert not any(type(i._users) is Users and len(i._users) > 1 for i in comp.instructions)
    assert held > 10


UNSETTLED = """HloModule m

gte_of_tuple {
  x = (f32[], f32[]) parameter(0)
  ROOT g = f32[] get-tuple-element(x), index=0
}

ordered {
  x = f32[] parameter(0)
  y = f32[] negate(x)
  ROOT z = f32[] exponential(x), control-predecessors={y}
}

unused {
  x = f32[] parameter(0)
  y = f32[] negate(x)
  ROOT z = f32[] exponential(x)
}

ENTRY main {
  p = f32[] parameter(0)
  t = (f32[], f32[]) tuple(p, p)
  a = f32[] call(t), to_apply=gte_of_tuple
  b = f32[] call(p), to_apply=ordered
  c = f32[] call(p), to_apply=unused
  ROOT r = (f32[], f32[], f32[]) tuple(a, b, c)
}
"""


def test_the_copys_search_skips_only_settled_small_computations(tmp_path: Path) -> None:
    """``hlo_dce.small_and_settled``: where it holds, nothing folds, no control edge and no dead code
    (what the copy's search would have found); a get-tuple-element, a control edge or an unused
    instruction but the root each rule it out."""
    from xladoctor.offload.passes.tuple_simplifier import folds_tuples

    module = parse_module(UNSETTLED)
    assert not any(hlo_dce.small_and_settled(module.computation(n)) for n in ("gte_of_tuple", "ordered", "unused"))
    assert hlo_dce.small_and_settled(parse_module(SHAPES).computation("add"))
    held = 0
    for module in [parse_module(SHAPES), *_modules(tmp_path)]:
        for comp in module.computations:
            if hlo_dce.small_and_settled(comp):
                held += 1
                assert not folds_tuples(comp) and not hlo_dce.has_control_edges(comp) and hlo_dce.dead_code(comp) == []
    assert held > 10


def test_folds_tuples_answers_on_each_form() -> None:
    """``tuple_simplifier.folds_tuples`` (a loop over the get-tuple-elements, no generator): a
    ``gte(tuple)`` folds, a ``gte`` of a parameter does not, a computation without one does not."""
    from xladoctor.offload.passes.tuple_simplifier import folds_tuples

    module = parse_module(UNSETTLED)
    assert not folds_tuples(module.computation("gte_of_tuple"))  # a gte of a parameter
    assert not folds_tuples(module.computation("unused"))  # no gte
    folding = parse_module(UNSETTLED.replace("ROOT g = f32[] get-tuple-element(x), index=0",
                                             "t = (f32[], f32[]) tuple(x, x)\n  ROOT g = f32[] get-tuple-element(t), index=0")
                           .replace("x = (f32[], f32[]) parameter(0)", "x = f32[] parameter(0)")
                           .replace("a = f32[] call(t), to_apply=gte_of_tuple", "a = f32[] call(p), to_apply=gte_of_tuple"))
    assert folds_tuples(folding.computation("gte_of_tuple"))
