"""The IR keeps its one name table and its caller index in step by itself.

Checked on HLO that jax produced (every program of ``jax_programs.py``, lowered and
compiled, and the dump files) after parsing, copying and each pre-pass the offload
analysis runs (tuple folding, CSE of annotations, call inlining, dead-code
elimination, HostOffloadLegalize): the table holds exactly the instructions listed
in the module's computations, and every computation's callers are what a fresh scan
of the module finds, in module order.  No pass registers anything by hand.
"""

from __future__ import annotations

import pytest

from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.module import HloModule
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload.clone import clone_module
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline
from xladoctor.syntax.hlo_parser import parse_module


def _jax_modules(corpus) -> list[tuple[str, HloModule]]:
    out = []
    for form in ("pre", "post"):  # (programs lowered for TPU have no compiled form)
        for path in sorted((corpus.root / form).glob("*.txt")):
            out.append((f"{path.stem}/{form}", parse_module(path.read_text(), str(path))))
    for path in corpus.hlo_dump_files()[:40]:
        out.append((path.name, parse_module(path.read_text(), str(path))))
    return out


def _assert_in_step(module: HloModule, where: str) -> None:
    listed = {i.name: i for c in module.computations for i in c.instructions if i.parent is c}
    table = {name: module.names[name] for name in listed if name in module.names}
    assert len(module.names) == len(listed) and table == listed, f"name table out of step after {where}"
    fresh: dict = {}
    for comp in module.computations:
        for instr in comp.instructions:
            for called in instr.called_computations:
                fresh.setdefault(called, []).append(instr)
    for comp in module.computations:
        assert comp.callers == fresh.get(comp, []), f"callers of {comp.name} out of step after {where}"
        for instr in comp.instructions[:3]:
            assert comp.get(instr.name) is instr
    if len(module.computations) > 1:  # a computation does not find another's instructions
        a, b = module.computations[0], module.computations[-1]
        assert all(b.get(i.name) is None for i in a.instructions)


@pytest.fixture(scope="module")
def jax_modules(jax_hlo_corpus):
    return _jax_modules(jax_hlo_corpus)


def test_parsed_and_copied_modules_index_every_instruction_and_caller(jax_modules):
    assert any(c.callers for _, m in jax_modules for c in m.computations)  # calls are exercised
    for label, module in jax_modules:
        _assert_in_step(module, f"parsing {label}")
        _assert_in_step(clone_module(module), f"copying {label}")


def test_every_pre_pass_keeps_the_table_and_the_callers_in_step(jax_modules):
    """Every pass of the declared pipeline up to HostOffloadLegalize, as the analysis runs them."""
    inlined = 0
    for label, module in jax_modules:
        pipeline = offload_pipeline(PipelineConfig(inline_calls=True), module,
                                    after_each=lambda p, m, label=label: _assert_in_step(m, f"{p.name} on {label}"))
        pipeline.run(clone_module(module))
        assert [name for name, _ in pipeline.changed][-1] == "host_offload_legalize"
        inlined += len(pipeline.context.inlined_calls or ())
    assert inlined, "no jax program had a call to inline: the inliner's bookkeeping went unchecked"


def test_add_and_remove_keep_the_table_and_the_uniquer_honest(jax_modules):
    """Adding makes an instruction findable; removing forgets it but keeps its name taken
    (XLA's NameUniquer never gives a name back); a pass' numbered names skip live names."""
    _, module = next((label, m) for label, m in jax_modules if label.endswith("/pre"))
    work = clone_module(module)
    entry = work.entry_computation()
    operand = entry.parameters[0]
    added = HloInstruction(work.unique_name(operand.name), HloOpcode.COPY, operand.shape)
    entry.insert_before(entry.root_instruction(), added)
    added.operands = [operand]
    assert work.get_instruction(added.name) is added and entry.get(added.name) is added
    _assert_in_step(work, "adding a copy")
    entry.remove_instruction(added)
    assert work.get_instruction(added.name) is None and entry.get(added.name) is None
    assert work.unique_name(added.name) != added.name
    _assert_in_step(work, "removing it")
    live = entry.root_instruction().name
    base, _, _ = live.rpartition(".")
    if base:
        assert work.numbered_name(base) != live


def test_a_calling_instruction_joins_and_leaves_its_callees_callers(jax_modules):
    """What the inliner's clones and dead-code elimination do to a caller: the index follows."""
    module = next(m for _, m in jax_modules
                  if any(i.called for i in m.entry_computation().instructions))
    work = clone_module(module)
    entry = work.entry_computation()
    caller = next(i for i in entry.instructions if i.called)
    callee = caller.called_computations[0]
    before = list(callee.callers)
    assert caller in before
    twin = caller.clone_with_new_operands(caller.shape, caller.operands, work.unique_name(caller.name))
    entry.insert_before(entry.root_instruction(), twin)
    assert callee.callers == before + [twin]
    _assert_in_step(work, f"adding a second {caller.opcode.value}")
    entry.remove_instruction(twin)
    assert callee.callers == before
    _assert_in_step(work, "removing it")


def test_a_computations_one_caller_is_held_bare_and_read_as_a_list():
    """The index holds a computation's one caller itself (no list each: issue 36 item 3) and a
    list from the second; ``callers`` reads both as lists, in module order."""
    module = parse_module("HloModule m\n\nf {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n}\n\n"
                          "g {\n  a.1 = f32[] parameter(0)\n  ROOT n.1 = f32[] negate(a.1)\n}\n\nENTRY main {\n"
                          "  p = f32[] parameter(0)\n  c = f32[] call(p), to_apply=f\n  d = f32[] call(c), to_apply=g\n"
                          "  ROOT e = f32[] call(d), to_apply=f\n}\n")
    f, g = module.computation("f"), module.computation("g")
    c, d, e = (module.instruction(n) for n in ("c", "d", "e"))
    assert f.callers == [c, e] and g.callers == [d] and module.entry_computation().callers == []
    assert module._callers is not None and module._callers[g] is d and module._callers[f] == [c, e]
    module.lint()
