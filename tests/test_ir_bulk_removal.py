"""Removing instructions and computations in bulk gives what removing them one by one gives.

The pre-passes take out many instructions at once (two ``Sharding`` markers per host move,
CSE'd annotations, every inlined callee) in one sweep of the list, so that a large module
stays linear; the order of every value's users (which decides which E1200 XLA reports), the
instruction order and the names must be exactly what XLA's one-at-a-time
``RemoveInstruction`` leaves.  Checked on HLO that jax produced (``jax_programs.py``).
"""

from __future__ import annotations

import pytest

from xladoctor.ir.instruction import _COPIED_SLOTS, _GRAPH_SLOTS, COPIED_FIELDS, INSTRUCTION_SLOTS
from xladoctor.ir.module import HloModule
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.host_offload_utils import is_sharding_annotation
from xladoctor.offload.passes.sharding_remover import _COPIED_MARKERS, _dead_copy, remove_sharding_markers
from xladoctor.syntax.hlo_parser import parse_module


@pytest.fixture(scope="module")
def jax_modules(jax_hlo_corpus) -> list[tuple[str, HloModule]]:
    out = []
    for form in ("pre", "post"):
        for path in sorted((jax_hlo_corpus.root / form).glob("*.txt")):
            out.append((f"{path.stem}/{form}", parse_module(path.read_text(), str(path))))
    return out


def _one_by_one(module: HloModule) -> list[str]:
    """The markers removed with ``remove_instruction`` each, as XLA's ShardingRemover does: in
    reverse post order, a ``Sharding``/``FuncResultSharding`` marker leaving a dead ``copy`` of its
    operand that the next HloDCE removes, copies in creation order."""
    removed = []
    for comp in module.computations:
        markers = {i for i in comp.instructions if i.opcode is HloOpcode.CUSTOM_CALL and is_sharding_annotation(i)}
        copies = []
        for instr in reversed([i for i in comp.post_order() if i in markers]):
            if instr.parent is comp:
                instr.replace_all_uses_with(instr.operands[0])
                if instr.custom_call_target in _COPIED_MARKERS:
                    copies.append(_dead_copy(instr))
                comp.remove_instruction(instr)
                removed.append(instr.name)
        for copy in copies:
            copy.operands = ()
    return removed


def _graph(module: HloModule) -> list[tuple[str, list[tuple[str, list[str], list[str]]]]]:
    return [(c.name, [(i.name, [o.name for o in i.operands], [u.name for u in i.users]) for i in c.instructions])
            for c in module.computations]


def test_markers_removed_in_one_sweep_leave_what_one_by_one_removal_leaves(jax_modules):
    total = 0
    for label, module in jax_modules:
        bulk, single = clone_module(module), clone_module(module)
        names = remove_sharding_markers(bulk)
        assert names == _one_by_one(single), label
        assert _graph(bulk) == _graph(single), f"users or order differ after removing markers of {label}"
        for name in names:  # gone, and the name stays reserved as XLA's uniquer keeps it
            assert bulk.get_instruction(name) is None
            assert bulk.unique_name(name) == single.unique_name(name) != name
        total += len(names)
    assert total, "no jax program had a sharding marker: the bulk removal went unchecked"


def test_removing_many_computations_at_once_forgets_their_names(jax_modules):
    label, module = next((label, m) for label, m in jax_modules if len(m.computations) > 2)
    work = clone_module(module)
    dead = [c for c in work.computations if c is not work.entry and not c.callers][:2] \
        or [c for c in work.computations if c is not work.entry][:1]
    for comp in dead:
        for caller in list(comp.callers):
            caller.set_called_computations({})
    kept = [c.name for c in work.computations if c not in dead]
    work.remove_computations(dead)
    assert [c.name for c in work.computations] == kept, label
    for comp in dead:
        assert all(work.get_instruction(i.name) is None for i in comp.instructions)


def test_a_detached_copy_has_every_field_and_shares_no_container(jax_modules):
    for label, module in jax_modules[:4]:
        for instr in (i for c in module.computations for i in c.instructions):
            copy = instr.detached_copy()
            for slot in _COPIED_SLOTS:
                value = getattr(instr, slot)
                assert getattr(copy, slot) == value, f"{slot} of {instr.name} in {label}"
                if isinstance(value, (dict, list)):
                    assert getattr(copy, slot) is not value
            assert copy.operands == () and not copy.users and copy.parent is None and not copy.called


def test_the_detached_copy_names_every_slot_but_the_graph_links():
    """``_copy_fields_to`` is written out field by field (native code in the compiled core): a slot
    added to the instruction must be added there too, or its copies would lose it."""
    assert sorted(COPIED_FIELDS) == sorted(s for s in INSTRUCTION_SLOTS if s not in _GRAPH_SLOTS)


_LINKS = """HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY e {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} negate(p)
  b = f32[4]{0} add(a, a)
  c = f32[4]{0} multiply(p, a)
  d = f32[4]{0} sine(p)
  t = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(b, c, d)
  ROOT r = f32[4]{0} get-tuple-element(t), index=0
}
"""


def _links(module: HloModule) -> list[tuple[str, list[str], list[str]]]:
    return [(i.name, [o.name for o in i.operands], [u.name for u in i.users])
            for c in module.computations for i in c.instructions]


def test_a_copy_links_operands_and_users_as_the_original():
    """``clone_module`` links a copy's operands in place (a bare operand, one used twice, a tuple):
    every operand list and every user list, in order, as the original's."""
    module = parse_module(_LINKS)
    copy = clone_module(module)
    assert _links(copy) == _links(module)
    assert type(copy.entry_computation().get("a")._operands).__name__ == "ParsedInstruction"  # still bare


@pytest.mark.parametrize("name", ["a", "b", "c", "d", "t"])
def test_dropping_operands_is_setting_none(name):
    """``drop_operands`` (every removal's unhook) leaves each operand's users as ``operands = ()`` does:
    the last user moved into the slot freed, an operand used twice losing its user once."""
    left = []
    for drop in (True, False):
        module = parse_module(_LINKS)
        instr = module.entry_computation().get(name)
        assert instr is not None
        if drop:
            instr.drop_operands()
        else:
            instr.operands = ()
        left.append(_links(module))
    assert left[0] == left[1]
    assert (name, [], left[0][[n for n, _, _ in left[0]].index(name)][2]) in left[0]
