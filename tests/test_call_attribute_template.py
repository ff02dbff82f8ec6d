"""A call's attribute text naming its callee is kept as one template for every line that differs
only in that name (issue 36 item 3): each instruction still reads its own ``to_apply``, prints as
read, and a call changed since reads the computation it calls now."""

from __future__ import annotations

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
