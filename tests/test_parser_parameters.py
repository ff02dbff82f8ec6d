"""The parser stores a computation's parameters and root without :meth:`HloComputation.set_parameters`'
and ``set_root_instruction``'s checks, which hold by construction there (``syntax/computation_reader.
_finish_body``): every parsed computation's list passes those checks, in number order, whatever order the
text gives them in, and its root is the ROOT line's, else its last instruction, one of its own."""

from __future__ import annotations

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.ir.opcodes import PARAMETER
from xladoctor.syntax.hlo_parser import parse_module

TEXT = """HloModule m

r {
  b = f32[] parameter(1)
  a = f32[] parameter(0)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  z = f32[] parameter(2)
  x = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  y = f32[] parameter(1)
  n = f32[] add(f32[] parameter(3), y)
  ROOT t = f32[] reduce(x, c), dimensions={0}, to_apply=r
}
"""


def test_parsed_parameters_are_in_number_order_and_pass_set_parameters_checks():
    module = parse_module(TEXT)
    comps = {c.name: c for c in module.computations}
    assert [p.name for p in comps["r"].parameters] == ["a", "b"]
    assert [p.parameter_number for p in comps["e"].parameters] == [0, 1, 2, 3]
    assert [p.name for p in comps["e"].parameters[:3]] == ["x", "y", "z"]
    for comp in module.computations:
        assert type(comp.parameters) is tuple  # what set_parameters stores (a list was 80 bytes more)
        params = list(comp.parameters)
        assert params == [i for i in sorted((i for i in comp.instructions if i.opcode is PARAMETER),
                                            key=lambda i: i.parameter_number)]
        comp.set_parameters(params)  # the checks the parser leaves out: each holds
        assert comp.parameters == tuple(params)


def test_set_parameters_still_refuses_a_list_out_of_order():
    comp = parse_module(TEXT).entry
    with pytest.raises(ValueError, match="is not parameter"):
        comp.set_parameters(list(reversed(comp.parameters)))


@pytest.mark.parametrize("body, message", [
    ("  a = f32[] parameter(1)\n  ROOT b = f32[] parameter(2)\n", "which has no parameter"),
    ("  a = f32[] parameter(0)\n  ROOT b = f32[] parameter(0)\n", "Duplicate parameter number 0"),
])
def test_gaps_and_duplicates_are_still_refused_before_the_list_is_stored(body, message):
    with pytest.raises(HloParseError, match=message):
        parse_module(f"HloModule m\n\nENTRY e {{\n{body}}}\n")


def test_the_root_is_the_root_line_or_the_last_instruction_and_passes_its_check():
    text = TEXT.replace("  ROOT s = f32[] add(a, b)\n", "  s = f32[] add(a, b)\n").replace(
        "  z = f32[] parameter(2)\n", "  ROOT z = f32[] parameter(2)\n").replace("  ROOT t = ", "  t = ")
    module = parse_module(text)
    comps = {c.name: c for c in module.computations}
    assert comps["r"].root.name == "s" and comps["e"].root.name == "z"  # no ROOT: the last; a ROOT first: it
    for comp in module.computations:
        assert comp.root.parent is comp
        comp.set_root_instruction(comp.root)  # the check the parser leaves out holds
