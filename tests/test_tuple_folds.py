"""``forward_tuple_elements`` folds in list order only where the order cannot matter.

Issue 36: the fold of ``gte(tuple)`` pairs visits the computation's plumbing in list order, sparing
its post order, where :func:`~xladoctor.offload.passes.tuple_simplifier._folds_commute` says no fold
can change another.  Checked here: what that test answers on the shapes that make order matter
(a value another fold gives too, a value that is itself plumbing, an index out of range), and that
each module folds to the same text, users in the same order, either way.
"""

from __future__ import annotations

import pytest

from xladoctor.ir.module import HloModule
from xladoctor.offload.passes import tuple_simplifier
from xladoctor.offload.passes.tuple_simplifier import forward_tuple_elements
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

_HEAD = "HloModule m\n\nENTRY main {\n  a = f32[4]{0} parameter(0)\n  b = f32[4]{0} parameter(1)\n"

MODULES = {
    # two folds, each its own value, a user listed before the pair it reads
    "commute": (True, _HEAD + """  n0 = f32[4]{0} negate(a)
  t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
  g0 = f32[4]{0} get-tuple-element(t), index=0
  g1 = f32[4]{0} get-tuple-element(t), index=1
  x = f32[4]{0} add(g1, g0)
  y = f32[4]{0} multiply(g0, n0)
  ROOT r = (f32[4]{0}, f32[4]{0}) tuple(x, y)
}
"""),
    # two folds give ``a``: the order of its new users is the folds' order
    "shared value": (False, _HEAD + """  t = (f32[4]{0}, f32[4]{0}) tuple(a, a)
  g1 = f32[4]{0} get-tuple-element(t), index=1
  g0 = f32[4]{0} get-tuple-element(t), index=0
  y = f32[4]{0} multiply(g0, b)
  x = f32[4]{0} add(g1, b)
  ROOT r = (f32[4]{0}, f32[4]{0}) tuple(x, y)
}
"""),
    # a fold gives a tuple: the get-tuple-element reading the outer one becomes a pair itself
    "nested": (False, _HEAD + """  inner = (f32[4]{0}, f32[4]{0}) tuple(a, b)
  outer = ((f32[4]{0}, f32[4]{0}), f32[4]{0}) tuple(inner, a)
  g = (f32[4]{0}, f32[4]{0}) get-tuple-element(outer), index=0
  h = f32[4]{0} get-tuple-element(g), index=1
  ROOT n = f32[4]{0} negate(h)
}
"""),
    # a fold's value is a pair's get-tuple-element: the outer fold's value depends on the inner's
    "chained": (False, _HEAD + """  t1 = (f32[4]{0}, f32[4]{0}) tuple(a, b)
  g1 = f32[4]{0} get-tuple-element(t1), index=1
  t2 = (f32[4]{0}, f32[4]{0}) tuple(g1, a)
  g2 = f32[4]{0} get-tuple-element(t2), index=0
  ROOT n = f32[4]{0} negate(g2)
}
"""),
}


def _state(module: HloModule) -> str:
    users = "\n".join(f"{i.name}: {[u.name for u in i.users]}" for c in module.computations for i in c.instructions)
    return f"{print_module(module)}\n{users}"


def _plumbing(module: HloModule) -> list:
    return [i for i in module.entry_computation().instructions if i.opcode.value in ("get-tuple-element", "tuple")]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_folds_commute_only_where_no_fold_changes_another(name):
    commute, text = MODULES[name]
    assert tuple_simplifier._folds_commute(_plumbing(parse_module(text))) is commute


@pytest.mark.parametrize("name", sorted(MODULES))
def test_list_order_folds_as_the_post_order_does(name, monkeypatch):
    text = MODULES[name][1]
    fast, slow = parse_module(text), parse_module(text)
    folded = forward_tuple_elements(fast)
    with monkeypatch.context() as m:
        m.setattr(tuple_simplifier, "_folds_commute", lambda plumbing: False)
        assert forward_tuple_elements(slow) == folded > 0
    assert _state(fast) == _state(slow)
    assert "get-tuple-element" not in print_module(fast)


def test_an_index_out_of_range_is_left_to_the_post_order():
    text = _HEAD + """  t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
  ROOT g = f32[4]{0} get-tuple-element(t), index=1
}
"""
    plumbing = _plumbing(parse_module(text))
    plumbing[-1].tuple_index = 2  # (the parser refuses it: the IR's field set by hand)
    assert tuple_simplifier._folds_commute(plumbing) is False
