"""HostOffloadLegalize on its own: the graph it leaves, checked as XLA's host_offload_legalize_test.cc does.

The scenario files (tests/data/offload/L*.hlo, 08_*) check the combined outcome with
HostOffloader; here the rewritten module itself is inspected: who feeds whom, layouts,
names of the clones.
"""

from __future__ import annotations

import json
from pathlib import Path

from xladoctor.offload import analyze_host_offload
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.host_offload_legalize import run_legalize
from xladoctor.offload.report import details_json
from xladoctor.syntax.hlo_parser import parse_module

DATA = Path(__file__).parent / "data" / "offload"


def legalized(stem: str):
    path = next(DATA.glob(stem + "*.hlo"))
    body = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
    module = clone_module(parse_module(body, str(path)))
    return module, run_legalize(module)


def test_copy_moves_after_move_to_device_past_opt_barrier():
    m, res = legalized("L01")
    mtd = m.instruction("mtd18")
    user = next(iter(mtd.users))
    assert res.changed and user.opcode.value == "copy"
    assert str(mtd.shape.layout) == "{0,1}" and str(user.shape.layout) == "{1,0}"
    assert m.get_instruction("cp") is None


def test_dus_operand_and_update_get_one_layout():
    m, _res = legalized("L03")
    dus = m.instruction("dus")
    assert dus.shape.layout.minor_to_major == dus.operands[0].shape.layout.minor_to_major \
        == dus.operands[1].shape.layout.minor_to_major
    mtd = m.entry.root.operands[0]
    assert mtd.custom_call_target == "MoveToDevice" and m.entry.root.opcode.value == "copy"
    assert str(mtd.shape.layout) == "{3,2,1,0}" and str(m.entry.root.shape.layout) == "{2,3,1,0}"


def test_copy_swapped_above_move_to_host_when_it_reaches_the_root():
    m, res = legalized("L07")
    root = m.entry.root
    assert res.changed and root.name == "mth"
    assert root.operands[0].name == "copy" and root.operands[0].operands[0].opcode.value == "parameter"
    assert root.operands[0].shape.layout.memory_space == 0


def test_two_copies_keep_their_order_and_xla_clone_names():
    m, _ = legalized("L12")
    cp2, cp12 = m.instruction("cp.2"), m.instruction("cp1.2")
    assert cp2.parent is m.entry and cp12.operands[0] is cp2
    assert m.instruction("cp.1").parent.name == "consuming_while_body"


def test_unchanged_when_the_copy_feeds_a_host_computation():
    m, res = legalized("L10")
    assert not res.changed and m.get_instruction("xpose") is not None
    assert [mv.action for mv in res.moves] == ["kept"]


def test_loop_root_carries_the_host_value_after_legalize():
    m, res = legalized("08")
    assert res.rerouted == ["next{1}"]
    assert m.instruction("next").operands[1].name == "x"


def test_without_legalize_the_copy_stays_on_host():
    path = next(DATA.glob("08_*.hlo"))
    body = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
    module = parse_module(body, str(path))
    off = analyze_host_offload(module, inline_calls=False, legalize=False)
    on = analyze_host_offload(module, inline_calls=False)
    assert off.legalize is None and "xposed" in off.host_position_names()
    assert "xposed" not in on.host_position_names() and "loop{1}" in on.host_position_names()
    assert module.get_instruction("xposed") is not None, "the caller's module is not modified"


def test_json_reports_the_pre_pass():
    path = next(DATA.glob("L13_*.hlo"))
    body = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
    doc = json.loads(json.dumps(details_json(analyze_host_offload(parse_module(body, "x"), inline_calls=False), [])))
    legal = doc["legalize"]
    assert legal["moves"][0]["copy"] == "xpose" and legal["moves"][0]["action"] == "moved-down"
    assert {n["phase"] for n in legal["notes"]} == {"walk-down", "move-down"}
    assert legal["notes"][0]["message"] == "Unrecognized user name: t"
