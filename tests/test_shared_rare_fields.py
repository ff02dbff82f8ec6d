"""The parser gives instructions with the same scalar literal, or the same frontend attributes
from the same attribute text, one shared set of rare fields (issue 36 item 3): each still reads
its own values, and a write through one instruction (or its copy) changes that one only."""

from __future__ import annotations

from xladoctor.ir.calls import Calls
from xladoctor.ir.clone import clone_module
from xladoctor.ir.instruction import OpMetadata
from xladoctor.ir.rare_fields import NO_CALLS, RareFields, SharedRareFields, calls_anything, calls_in, shared_number
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

TEXT = """HloModule m

ENTRY e {
  p = f32[8]{0} parameter(0)
  c1 = f32[] constant(0)
  c2 = f32[] constant(0)
  c3 = f32[] constant(1)
  a = f32[8]{0} custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  b = f32[8]{0} custom-call(a), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  d = f32[8]{0} custom-call(b), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  ROOT t = (f32[8]{0}, f32[], f32[], f32[]) tuple(d, c1, c2, c3)
}
"""


def _by_name(module):
    return {i.name: i for c in module.computations for i in c.instructions}


def test_equal_literals_and_frontend_attributes_share_their_fields():
    i = _by_name(parse_module(TEXT))
    assert i["c1"]._extra is i["c2"]._extra and type(i["c1"]._extra) is SharedRareFields
    assert i["c3"]._extra is not i["c1"]._extra and (i["c1"].literal, i["c3"].literal) == ("0", "1")
    assert i["a"]._extra is i["b"]._extra and type(i["a"]._extra) is SharedRareFields
    assert i["d"]._extra is not i["a"]._extra
    assert dict(i["b"].frontend_attributes) == {"_xla_buffer_placement": "pinned_host"}
    assert i["p"]._extra is shared_number(0) and i["t"]._extra is None  # a number is a rare field too
    assert i["a"]._extra.number == "annotate_device_placement" and i["d"].custom_call_target == "annotate_device_placement"


def test_a_write_through_one_instruction_changes_that_one_only():
    module = parse_module(TEXT)
    before = print_module(module)
    i = _by_name(module)
    i["c1"].literal = "7"
    i["a"].frontend_attributes = {"_xla_buffer_placement": "device"}
    i["b"].metadata = OpMetadata(op_name="x")
    i["c2"].control_predecessors = [i["p"]]
    assert (i["c1"].literal, i["c2"].literal) == ("7", "0")
    assert type(i["c1"]._extra) is RareFields and type(i["c2"]._extra) is RareFields
    assert dict(i["b"].frontend_attributes) == {"_xla_buffer_placement": "pinned_host"}
    assert i["b"].metadata == OpMetadata(op_name="x") and i["a"].metadata is None
    assert list(i["c2"].control_predecessors) == [i["p"]] and not i["c1"].control_predecessors
    fresh = _by_name(parse_module(TEXT))
    assert i["c3"].literal == fresh["c3"].literal and before != print_module(module)


def test_a_copy_shares_until_written_and_leaves_the_original_alone():
    module = parse_module(TEXT)
    before = print_module(module)
    copy = clone_module(module)
    original, copied = _by_name(module), _by_name(copy)
    assert copied["c1"]._extra is original["c1"]._extra  # never written: nothing to copy
    copied["c1"].literal = "3"
    copied["a"].frontend_attributes = {}
    copied["b"].control_predecessors = ()  # nothing to record: stays shared
    assert copied["b"]._extra is original["b"]._extra
    assert original["c1"].literal == original["c2"].literal == "0"
    assert dict(original["a"].frontend_attributes) == {"_xla_buffer_placement": "pinned_host"}
    assert print_module(module) == before


CALLS_TEXT = """HloModule m

r {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[8]{0} parameter(0)
  g = (f32[8]{0}, f32[8]{0}) tuple(p, p)
  i = f32[8]{0} get-tuple-element(g), index=1
  z = f32[] constant(0)
  ROOT q = f32[] reduce(i, z), dimensions={0}, to_apply=r
}
"""


def test_calls_alone_live_in_the_rare_fields_slot_and_read_as_empty_rare_fields():
    module = parse_module(CALLS_TEXT)
    i = _by_name(module)
    q = i["q"]
    assert type(q._extra) is Calls and dict(q.called) == {"to_apply": [module.computations[0]]}
    assert (q.literal, q.control_predecessors, q.custom_call_target, q.tuple_index) == (None, (), None, None)
    assert q._extra.control_predecessors == () and not q._extra.frontend_attributes  # what the walks read
    assert i["i"]._extra is shared_number(1) and i["i"].tuple_index == 1 and i["p"].parameter_number == 0
    assert "called" not in type(q).__slots__ and "_number" not in type(q).__mro__[1].__slots__


def test_a_caller_written_keeps_its_calls_and_a_copy_leaves_them():
    module = parse_module(CALLS_TEXT)
    before = print_module(module)
    q = _by_name(module)["q"]
    calls = dict(q.called)
    q.control_predecessors = [_by_name(module)["z"]]
    assert type(q._extra) is RareFields and dict(q.called) == calls
    q.control_predecessors = []
    copy = q.detached_copy()
    assert not copy.called and copy._extra is not q._extra and dict(q.called) == calls
    q.set_called_computations({})
    assert not q.called and type(q._extra) is RareFields
    fresh = parse_module(CALLS_TEXT)
    assert print_module(fresh) == before and _by_name(fresh)["q"].detached_copy()._extra is None


def test_the_store_helpers_read_calls_in_each_of_the_slots_forms():
    """``calls_in``/``calls_anything`` (what the walks read instead of ``called``) give the
    property's answer for the slot's four forms: empty, a Calls alone, own fields, shared fields."""
    module = parse_module(CALLS_TEXT)
    i = _by_name(module)
    q = i["q"]
    calls = dict(q.called)
    assert type(q._extra) is Calls and calls_in(q._extra) is q._extra and calls_anything(q._extra)
    assert i["i"]._extra is shared_number(1) and calls_in(i["i"]._extra) is NO_CALLS and not calls_anything(i["i"]._extra)
    assert calls_in(None) is NO_CALLS and not calls_anything(None)
    q.control_predecessors = [i["z"]]  # the calls now beside another field, in q's own RareFields
    assert type(q._extra) is RareFields and dict(calls_in(q._extra)) == calls and calls_anything(q._extra)
    q.set_called_computations({})
    assert calls_in(q._extra) is NO_CALLS and not calls_anything(q._extra) and q.called is NO_CALLS


def test_numbers_set_in_code_are_shared_and_a_write_leaves_the_others():
    module = parse_module(CALLS_TEXT)
    i = _by_name(module)
    i["i"].tuple_index = 0
    assert i["i"]._extra is shared_number(0) and i["p"]._extra is shared_number(0)
    i["i"].tuple_index = None
    assert i["i"]._extra is None and i["p"].parameter_number == 0
    i["p"].frontend_attributes = {"k": "v"}
    assert type(i["p"]._extra) is RareFields and i["p"].parameter_number == 0 and shared_number(0).frontend_attributes == {}


def test_a_parsed_instruction_is_a_112_byte_object():
    """Ten slots: the calls and the number live in the rare fields (issue 36 item 3).  A slot added
    later makes every instruction a 128-byte block again (pymalloc rounds to 16 bytes); compiled
    (mypyc), an instruction also holds a vtable pointer, so this holds only for the pure tree."""
    import sys

    from xladoctor.ir.instruction import COMPILED, INSTRUCTION_SLOTS

    q = _by_name(parse_module(CALLS_TEXT))["q"]
    assert len(INSTRUCTION_SLOTS) == 10
    if not COMPILED:
        assert sys.getsizeof(q) == 112
