"""``is_annotation`` (one read of the placement) answers as ``is_move_to_host or is_move_to_device``."""

from __future__ import annotations

from hlo_corpus import CORPUS
from xladoctor.offload.annotations import is_annotation, is_move_to_device, is_move_to_host
from xladoctor.syntax.hlo_parser import parse_module

_EDGES = """HloModule edges, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  p = f32[4]{0} parameter(0)
  h = f32[4]{0} custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  u = f32[4]{0} custom-call(h), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="unpinned_host"}
  d = f32[4]{0} custom-call(u), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  o = f32[4]{0} custom-call(d), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="other"}
  n = f32[4]{0} custom-call(o), custom_call_target="annotate_device_placement"
  m = f32[4]{0} custom-call(n), custom_call_target="MoveToHost"
  v = f32[4]{0} custom-call(m), custom_call_target="MoveToDevice"
  s = f32[4]{0} custom-call(v), custom_call_target="Sharding", frontend_attributes={_xla_buffer_placement="device"}
  ROOT c = f32[4]{0} copy(s), frontend_attributes={_xla_buffer_placement="pinned_host"}
}
"""


def test_is_annotation_is_a_move_either_way():
    module = parse_module(_EDGES, "edges")
    got = {i.name: is_annotation(i) for i in module.entry_computation().instructions}
    assert got == {"p": False, "h": True, "u": True, "d": True, "o": False, "n": False, "m": True, "v": True,
                   "s": False, "c": False}
    for path in CORPUS:
        for comp in parse_module(path.read_text(), str(path)).computations:
            for instr in comp.instructions:
                assert is_annotation(instr) == (is_move_to_host(instr) or is_move_to_device(instr)), (path, instr.name)


def _by_properties(instr, target, placements):
    """``is_move_to_host`` / ``is_move_to_device`` as written through the properties (the target and
    the frontend attributes), before they read the rare fields' store."""
    if instr.opcode.value != "custom-call":
        return False
    where = (instr.frontend_attributes.get("_xla_buffer_placement")
             if instr.custom_call_target == "annotate_device_placement" else None)
    return instr.custom_call_target == target or where in placements


def test_the_moves_read_from_the_store_answer_as_the_properties():
    module = parse_module(_EDGES, "edges")
    hosts = {i.name for i in module.entry_computation().instructions if is_move_to_host(i)}
    devices = {i.name for i in module.entry_computation().instructions if is_move_to_device(i)}
    assert (hosts, devices) == ({"h", "u", "m"}, {"d", "v"})
    for path in [None, *CORPUS]:
        text = _EDGES if path is None else path.read_text()
        for comp in parse_module(text, str(path)).computations:
            for instr in comp.instructions:
                assert is_move_to_host(instr) == _by_properties(instr, "MoveToHost", {"pinned_host", "unpinned_host"})
                assert is_move_to_device(instr) == _by_properties(instr, "MoveToDevice", {"device"})
