"""A call's attribute text naming its callee is kept as one template for every line that differs
only in that name (issue 36 item 3): each instruction still reads its own ``to_apply``, prints as
read, and a call changed since reads the computation it calls now."""

from __future__ import annotations

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

TEXT = """HloModule m

r0 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

r1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}

r2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] minimum(a, b)
}

ENTRY e {
  p = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  q0 = f32[] reduce(p, z), dimensions={0}, to_apply=r0
  q1 = f32[] reduce(p, z), dimensions={0}, to_apply=r1
  q2 = f32[] reduce(p, z), dimensions={0}, to_apply=r2
  ROOT t = (f32[], f32[], f32[]) tuple(q0, q1, q2)
}
"""


def _entry(module):
    return {i.name: i for i in module.entry.instructions}


def test_lines_differing_in_the_callee_share_one_text_and_read_their_own():
    module = parse_module(TEXT)
    q = _entry(module)
    assert q["q1"]._attributes is q["q2"]._attributes and "\n" in q["q1"]._attributes  # the template, shared
    assert [q[n].attributes for n in ("q0", "q1", "q2")] == [
        {"dimensions": "{0}", "to_apply": f"r{k}"} for k in range(3)]
    assert q["q2"].may_have_attribute("to_apply") and not q["q2"].may_have_attribute("r2")
    assert q["q1"]._attribute_value("to_apply") == "r1" and q["q1"]._attribute_value("dimensions") == "{0}"
    assert print_module(module) == print_module(parse_module(print_module(module)))
    assert "to_apply=r1\n" in print_module(module) and "to_apply=r2\n" in print_module(module)


def test_a_call_changed_before_its_text_is_read_reads_its_new_callee():
    module = parse_module(TEXT)
    q = _entry(module)
    comps = {c.name: c for c in module.computations}
    copy = q["q1"].detached_copy()  # no calls yet: no callee to name, so no to_apply read
    q["q2"].set_called_computations({"to_apply": [comps["r0"]]})
    assert q["q2"].attributes["to_apply"] == "r0" and "to_apply=r0\n" in print_module(module)
    assert copy.attributes == {"dimensions": "{0}"}
    again = q["q1"].clone_with_new_operands(q["q1"].shape, q["q1"].operands, "q1.copy")  # its calls set with it
    assert again.called == {"to_apply": [comps["r1"]]} and again.attributes["to_apply"] == "r1"


# Lines whose template verdict is reused: q1 and q2 call a defined computation (set as the line is read),
# f1 and f2 hold frontend attributes too (their rare fields are set first: the queue merges the calls in).
BOTH_PATHS = TEXT.replace("  ROOT t = (f32[], f32[], f32[]) tuple(q0, q1, q2)\n", """\
  f0 = f32[] reduce(p, z), dimensions={0}, to_apply=r0, frontend_attributes={k="v"}
  f1 = f32[] reduce(p, z), dimensions={0}, to_apply=r1, frontend_attributes={k="v"}
  f2 = f32[] reduce(p, z), dimensions={0}, to_apply=r2, frontend_attributes={k="v"}
  ROOT t = (f32[], f32[], f32[], f32[], f32[], f32[]) tuple(q0, q1, q2, f0, f1, f2)
""")


def test_a_reused_call_is_set_as_read_or_queued_alike(monkeypatch):
    def fields(module):
        return [(i.name, type(i._extra).__name__, {r: [c.name for c in cs] for r, cs in i.called.items()},
                 dict(i.frontend_attributes)) for i in module.entry.instructions if i.called]

    fast = parse_module(BOTH_PATHS)
    q = _entry(fast)
    assert type(q["q2"]._extra).__name__ == "Calls" and q["q2"].called == {"to_apply": [_comps(fast)["r2"]]}
    role = next(iter(q["q2"].called))
    assert role is next(iter(q["q1"].called)) and role is next(iter(q["q0"].called))  # one interned role
    assert q["f2"].frontend_attributes == {"k": "v"} and q["f2"].called == {"to_apply": [_comps(fast)["r2"]]}
    # Every line by the full reader (its calls queued and resolved at the line's end): the same fields.
    monkeypatch.setattr("xladoctor.syntax.computation_reader.read_fast", lambda *args: None)
    slow = parse_module(BOTH_PATHS)
    assert fields(slow) == fields(fast) and len(fields(fast)) == 6
    assert print_module(slow) == print_module(fast)


def test_a_reused_call_to_an_undefined_computation_is_still_refused_where_it_stands():
    """q2's verdict is q1's, reused; its callee undefined, the call is queued and refused as before."""
    with pytest.raises(HloParseError, match="computation does not exist: r9"):
        parse_module(TEXT.replace("to_apply=r2", "to_apply=r9"))


def _comps(module):
    return {c.name: c for c in module.computations}
