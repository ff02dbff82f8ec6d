"""An instruction's calls (:class:`~xladoctor.ir.calls.Calls`) read as the ``dict`` they were: one role
kept as its two fields (a reduce's ``to_apply``), several in a dict (a while's ``condition`` and
``body``); both answer the mapping's reads alike and compare equal to the dict of the same calls."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import pytest

from xladoctor.ir.calls import Calls
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

TEXT = """HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

cond {
  c = (s32[]) parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  ROOT b = (s32[]) parameter(0)
}

ENTRY e {
  p = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  q = f32[] reduce(p, z), dimensions={0}, to_apply=add
  k = s32[] constant(0)
  w0 = (s32[]) tuple(k)
  w = (s32[]) while(w0), condition=cond, body=body
  ROOT r = (f32[], (s32[])) tuple(q, w)
}
"""


def _calls():
    module = parse_module(TEXT)
    comps = {c.name: c for c in module.computations}
    entry = {i.name: i for i in module.entry.instructions}
    return module, comps, entry["q"].called, entry["w"].called


def test_one_role_reads_as_a_dict_of_one_key():
    _, comps, one, _ = _calls()
    assert type(one) is Calls and isinstance(one, Mapping) and len(one) == 1 and bool(one)
    assert one == {"to_apply": [comps["add"]]} and {"to_apply": [comps["add"]]} == one
    assert one != {"to_apply": [comps["cond"]]} and one != {"body": [comps["add"]]}
    assert list(one) == ["to_apply"] and list(one.keys()) == ["to_apply"] and "to_apply" in one and "body" not in one
    assert one["to_apply"] == [comps["add"]] == one.get("to_apply")
    assert one.get("body") is None and one.get("body", []) == [] and list(one.values()) == [[comps["add"]]]
    assert dict(one) == dict(one.items()) == {"to_apply": [comps["add"]]}
    with pytest.raises(KeyError):
        one["body"]
    assert sys.getsizeof(one) < sys.getsizeof({"to_apply": None})  # why it is not a dict
    with pytest.raises(ValueError):
        Calls({})  # never empty: so true without asking its length


def test_truth_asks_no_length(monkeypatch):
    _, _, one, both = _calls()
    monkeypatch.setattr(Calls, "__len__", lambda self: 1 // 0)  # a Python call per truth test was the cost
    assert bool(one) and bool(both) and list(filter(None, [None, one, None])) == [one]


def test_several_roles_read_in_their_order():
    _, comps, _, both = _calls()
    assert type(both) is Calls and len(both) == 2
    assert list(both) == ["condition", "body"] and list(both.keys()) == ["condition", "body"]
    assert both == {"condition": [comps["cond"]], "body": [comps["body"]]}
    assert both["body"] == [comps["body"]] and both.get("to_apply") is None and "condition" in both
    assert [list(cs) for cs in both.values()] == [[comps["cond"]], [comps["body"]]]
    assert repr(both).startswith("Calls({'condition': [")


def test_one_role_of_several_computations_keeps_its_list():
    _, comps, _, _ = _calls()
    listed = Calls({"branch_computations": [comps["add"], comps["body"]]})
    assert listed["branch_computations"] == [comps["add"], comps["body"]] and len(listed) == 1
    assert list(listed.items()) == [("branch_computations", [comps["add"], comps["body"]])]


def test_called_computations_flatten_each_form_in_role_order():
    module, comps, one, both = _calls()
    entry = {i.name: i for i in module.entry.instructions}
    assert entry["q"].called_computations == one.computations() == [comps["add"]]
    assert entry["w"].called_computations == both.computations() == [comps["cond"], comps["body"]]
    listed = Calls({"branch_computations": [comps["add"], comps["body"]]})
    assert listed.computations() == [comps["add"], comps["body"]] and listed.computations() is not listed["branch_computations"]
    assert module.callers_of(comps["add"]) == [entry["q"]] and module.callers_of(comps["body"]) == [entry["w"]]


def test_calls_print_back_and_a_copy_compares_equal():
    module, comps, one, both = _calls()
    assert print_module(parse_module(print_module(module))) == print_module(module)
    assert Calls(one) == one and Calls(both) == both and Calls(one) != both
    assert Calls({"to_apply": [comps["add"]], "calls": [comps["body"]]}) == {"to_apply": [comps["add"]], "calls": [comps["body"]]}


def test_identity_is_the_sorted_roles_and_ids_of_each_form():
    """``Calls.identity`` (HloCSE's key of the calls) is what the mapping's items give sorted, on the
    one role of one computation, of several, and several roles; a dict of the same calls gives it too."""
    _, comps, one, both = _calls()
    listed = Calls({"branch_computations": [comps["add"], comps["body"]]})
    for calls in (one, both, listed):
        generic = tuple(sorted((r, tuple(map(id, cs))) for r, cs in calls.items()))
        assert calls.identity() == generic == tuple(sorted((r, tuple(map(id, cs))) for r, cs in dict(calls).items()))
    assert one.identity() == (("to_apply", (id(comps["add"]),)),)
    assert both.identity()[0][0] == "body"  # sorted by role, not in the roles' order
