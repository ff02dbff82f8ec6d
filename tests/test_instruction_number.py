"""A parameter's number, a get-tuple-element's index and a custom call's target share one slot
(issue 36 item 3): each reads back on its own opcode only, through the parser, a copy and a write
in code, and a ``None`` written to one leaves the others."""

from __future__ import annotations

from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.ir.shape import Shape
from xladoctor.syntax.hlo_parser import parse_module

TEXT = """HloModule m

ENTRY e {
  p = (f32[2]{0}, f32[3]{0}) parameter(0)
  q = f32[2]{0} parameter(1)
  g = f32[3]{0} get-tuple-element(p), index=1
  ROOT t = (f32[3]{0}, f32[2]{0}) tuple(g, q)
}
"""


def test_each_reads_on_its_own_opcode():
    module = parse_module(TEXT)
    i = {x.name: x for x in module.entry.instructions}
    assert (i["p"].parameter_number, i["p"].tuple_index) == (0, None)
    assert (i["q"].parameter_number, i["q"].tuple_index) == (1, None)
    assert (i["g"].parameter_number, i["g"].tuple_index) == (None, 1)
    assert (i["t"].parameter_number, i["t"].tuple_index) == (None, None)
    assert i["g"].gte_index() == 1 and i["q"].param_number() == 1
    copy = i["g"].clone_with_new_operands(i["g"].shape, [i["p"]], "g2")
    assert (copy.parameter_number, copy.tuple_index) == (None, 1)
    copy.tuple_index = 0
    assert copy.tuple_index == 0 and i["g"].tuple_index == 1


def test_set_in_code():
    param = HloInstruction("x", HloOpcode.PARAMETER, Shape.array("f32", (1,)))
    assert param.parameter_number is None
    param.parameter_number = 3
    assert (param.parameter_number, param.tuple_index) == (3, None)
    gte = HloInstruction("y", HloOpcode.GET_TUPLE_ELEMENT, Shape.array("f32", (1,)))
    gte.tuple_index = 2
    assert (gte.parameter_number, gte.tuple_index) == (None, 2)


TARGETS = """HloModule m

ENTRY e {
  p = (f32[2]{0}, f32[3]{0}) parameter(0)
  g = f32[3]{0} get-tuple-element(p), index=1
  ROOT c = f32[3]{0} custom-call(g), custom_call_target="MoveToHost"
}
"""


def test_a_custom_call_target_beside_numbers():
    module = parse_module(TARGETS)
    i = {x.name: x for x in module.entry.instructions}
    assert [(x.parameter_number, x.tuple_index, x.custom_call_target) for x in i.values()] == \
        [(0, None, None), (None, 1, None), (None, None, "MoveToHost")]
    i["c"].tuple_index = None  # a None written to the other kind of field leaves each as it was
    i["c"].parameter_number = None
    i["g"].custom_call_target = None
    i["p"].custom_call_target = None
    assert (i["p"].parameter_number, i["g"].tuple_index, i["c"].custom_call_target) == (0, 1, "MoveToHost")
    copy = i["c"].clone_with_new_operands(i["c"].shape, [i["g"]], "c2")
    assert (copy.custom_call_target, copy.tuple_index) == ("MoveToHost", None)
    copy.custom_call_target = None
    assert copy.custom_call_target is None and i["c"].custom_call_target == "MoveToHost"


def test_a_target_set_in_code():
    call = HloInstruction("m", HloOpcode.CUSTOM_CALL, Shape.array("f32", (1,)))
    assert call.custom_call_target is None
    call.custom_call_target = "MoveToDevice"
    assert (call.custom_call_target, call.tuple_index, call.parameter_number) == ("MoveToDevice", None, None)
