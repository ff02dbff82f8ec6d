"""The passes skip what they cannot change, and batch their list edits, without changing anything.

Issue 36: AlgebraicSimplifier, HloCSE, the annotation CSE and TupleSimplifier decide per
computation, before any post order, whether anything can happen there (``_may_rewrite``,
``_all_differ``, ``_may_have_duplicates``, ``_may_fold_whole``), whether a tuple folding needs its
post order (``_folds_commute``), and HostOffloader which callees
it visits (``start_discovery._acts_in``); the pipeline skips a pass that repeats one which left
the module untouched (``hlo_pass_pipeline._repeats_untouched``); new instructions go into a
computation's list in one sweep (:class:`~xladoctor.offload.passes.insertions.Insertions`).
Checked here on real artefacts: every pipeline run from the same copy twice -- as shipped, and
with each of those checks answering "maybe" so every computation gets the full visit -- gives
the same module after every pass (text and every instruction's users in order), the same
removals, the same result; and ``Insertions`` leaves a computation as ``insert_before`` one at a
time does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.module import HloModule
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.offload.analysis import private_copy
from xladoctor.offload.passes import algebraic_simplifier, hlo_cse, hlo_pass_pipeline, tuple_simplifier
from xladoctor.offload.passes.hlo_dce import HloDCE
from xladoctor.offload.passes.host_offloader import OffloadOptions, start_discovery
from xladoctor.offload.passes.insertions import Insertions
from xladoctor.offload.passes.sharding_remover import ShardingRemover
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

DATA = Path(__file__).resolve().parent / "data" / "offload"


def _state(module: HloModule) -> str:
    users = "\n".join(f"{i.name}: {[u.name for u in i.users]}" for c in module.computations for i in c.instructions)
    return f"{print_module(module)}\n{users}"


def _run(module: HloModule, config: PipelineConfig) -> tuple[list[str], list[str], str]:
    copy, left_out = private_copy(module, config)
    printed: list[str] = []
    pipeline = offload_pipeline(config, module, left_out, after_each=lambda p, m: printed.append(f"{p.name}\n{_state(m)}"))
    pipeline.run(copy)
    return printed, [i.name for i in pipeline.context.dead], repr(pipeline.context.result)


def _no_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(algebraic_simplifier, "_may_rewrite", lambda instr: True)
    monkeypatch.setattr(algebraic_simplifier, "_any_may_rewrite", lambda instructions: True)
    monkeypatch.setattr(hlo_cse, "_all_differ", lambda keys: False)
    monkeypatch.setattr(hlo_cse, "_may_have_duplicates", lambda instructions: True)
    monkeypatch.setattr(tuple_simplifier, "_may_fold_whole", lambda comp: True)
    monkeypatch.setattr(tuple_simplifier, "_folds_commute", lambda plumbing: False)
    monkeypatch.setattr(start_discovery, "_acts_in", lambda comp: True)
    monkeypatch.setattr(hlo_pass_pipeline, "_repeats_untouched", lambda p, previous: False)


def _modules(jax_hlo_corpus, tmp_path: Path) -> list[tuple[str, str]]:
    """The corpus (examples, tests/data/offload), 60 generated modules, jax's programs lowered and dumped."""
    paths = [*CORPUS, *generated_hlo(tmp_path, 60), *sorted((jax_hlo_corpus.root / "pre").glob("*.txt")),
             *jax_hlo_corpus.hlo_dump_files()[:40]]
    return [(str(p), p.read_text()) for p in paths]


def _outcome(module: HloModule, configs: list[PipelineConfig]) -> list | str:
    """Every config's run, or the error that stopped one (the same error either way, too)."""
    try:
        return [_run(module, config) for config in configs]
    except Exception as e:  # an input the pipeline refuses (InputError, a CHECK the model raises)
        return f"{type(e).__name__}: {e}"


def test_skipping_what_cannot_change_changes_nothing(jax_hlo_corpus, monkeypatch, tmp_path):
    configs = [PipelineConfig(True, True, OffloadOptions("shipped"), "tpu"),
               PipelineConfig(True, True, OffloadOptions("shipped"), "cuda"),
               PipelineConfig(False, True, OffloadOptions("shipped"), "tpu")]
    ran = 0
    for label, text in _modules(jax_hlo_corpus, tmp_path):
        module = parse_module(text, label)
        if module.entry is None or module.entry_computation_layout is None:
            continue
        shipped = _outcome(module, configs)
        with monkeypatch.context() as m:
            _no_skips(m)
            full = _outcome(module, configs)
        assert shipped == full, label
        ran += not isinstance(shipped, str)
    assert ran > 100  # the corpus ran through the pipeline, not only into its refusals


_BINARY_REWRITES = """HloModule m, entry_computation_layout={(f32[4]{0}, f32[4]{0})->(f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0})}

ENTRY e {
  p = f32[4]{0} parameter(0)
  q = f32[4]{0} parameter(1)
  zero = f32[] constant(0)
  z = f32[4]{0} broadcast(zero), dimensions={}
  two = f32[] constant(2)
  b = f32[4]{0} broadcast(two), dimensions={}
  right_zero = f32[4]{0} add(p, z)
  left_zero = f32[4]{0} add(z, q)
  inner = f32[4]{0} add(p, b)
  reassociated = f32[4]{0} add(inner, b)
  m1 = f32[4]{0} multiply(b, p)
  m2 = f32[4]{0} multiply(b, m1)
  x1 = f32[4]{0} multiply(p, b)
  x2 = f32[4]{0} multiply(q, b)
  factored = f32[4]{0} add(x1, x2)
  d = f32[4]{0} divide(q, b)
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(right_zero, left_zero, reassociated, m2, factored, d)
}
"""
"""Each binary rewrite the scan's first test must let through, a constant on either side."""

_OPERAND_REWRITES = """HloModule m, entry_computation_layout={(f32[2,2]{1,0}, s32[])->(s32[], s32[], f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{0,1}, f32[2,2]{0,1})}

ENTRY e {
  p = f32[2,2]{1,0} parameter(0)
  i = s32[] parameter(1)
  three = s32[] constant(3)
  one = s32[] constant(1)
  inner = s32[] subtract(three, i)
  outer = s32[] subtract(inner, one)
  plain = s32[] subtract(i, one)
  m1 = f32[2,2]{1,0} maximum(p, p)
  m2 = f32[2,2]{1,0} maximum(m1, p)
  n1 = f32[2,2]{1,0} minimum(p, m2)
  r1 = f32[4]{0} reshape(p)
  r2 = f32[2,2]{1,0} reshape(r1)
  g1 = f32[2,2]{1,0} negate(p)
  g2 = f32[2,2]{1,0} negate(g1)
  d = f32[2,2]{1,0} dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t1 = f32[2,2]{0,1} transpose(d), dimensions={1,0}
  t2 = f32[2,2]{0,1} transpose(p), dimensions={1,0}
  ROOT t = (s32[], s32[], f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{1,0}, f32[2,2]{0,1}, f32[2,2]{0,1}) tuple(outer, plain, m2, n1, r2, g1, g2, t1, t2)
}
"""
"""The rewrites whose operand's opcode the scan tests itself (an inner subtract and a constant, a
maximum's or minimum's inner one, a reshape's or negate's own opcode, a transpose's dot), each
matched and not."""


def test_the_scans_first_tests_are_may_rewrites(tmp_path):
    """``_any_may_rewrite`` tests the opcode and the operands' opcodes itself before it
    calls ``_may_rewrite_unruled``: for each instruction alone it answers as ``_may_rewrite`` does, after
    every pass of the pipeline (the simplifications make the constants and broadcasts it reads)."""
    seen = {True: 0, False: 0}
    differ: list[tuple[str, str]] = []  # noted, not asserted: the pipeline's refusals are caught below

    def each(p, module: HloModule) -> None:
        for comp in module.computations:
            for instr in comp.instructions:
                answer = algebraic_simplifier._may_rewrite(instr)
                if algebraic_simplifier._any_may_rewrite([instr]) is not answer:
                    differ.append((p.name, instr.name))
                seen[answer] += 1

    config = PipelineConfig(True, True, OffloadOptions("shipped"), "tpu")
    for text in [_BINARY_REWRITES, _OPERAND_REWRITES, *(path.read_text() for path in [*CORPUS, *generated_hlo(tmp_path, 20)])]:
        module = parse_module(text)
        if module.entry is None or module.entry_computation_layout is None:
            continue
        copy, left_out = private_copy(module, config)
        try:
            offload_pipeline(config, module, left_out, after_each=each).run(copy)
        except Exception:  # a module the pipeline refuses: what ran was checked
            continue
    assert not differ
    assert seen[True] > 50 and seen[False] > 1000


def test_a_rewrite_still_happens_where_the_check_lets_it():
    """The checks are not "never": ``x / 2`` becomes ``x * 0.5`` and a duplicate merges."""
    text = """HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

ENTRY e {
  p = f32[4]{0} parameter(0)
  two = f32[] constant(2)
  b = f32[4]{0} broadcast(two), dimensions={}
  d = f32[4]{0} divide(p, b)
  n1 = f32[4]{0} negate(p)
  n2 = f32[4]{0} negate(p)
  a = f32[4]{0} add(n1, n2)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(d, a)
}
"""
    module = parse_module(text)
    assert algebraic_simplifier.simplify_for_offloading(module)
    entry = module.entry_computation()
    assert entry.root is not None and entry.root.operands[0].opcode is HloOpcode.MULTIPLY
    assert hlo_cse.eliminate_common_subexpressions(module) == [("n2", "n1")]


def _fresh(name: str, shape_of: HloInstruction) -> HloInstruction:
    return HloInstruction(name, HloOpcode.NEGATE, shape_of.shape)


@pytest.mark.parametrize("anchors", [[3, 3, 1, 5], [0, "new0", 2, "new2", 7]])
def test_insertions_place_as_insert_before_does(anchors):
    text = (DATA / sorted(p.name for p in DATA.glob("*.hlo"))[0]).read_text()
    one, batched = parse_module(text), parse_module(text)
    placed = []
    for module, batch in ((one, False), (batched, True)):
        comp = max(module.computations, key=lambda c: len(c.instructions))
        listed = list(comp.instructions)
        at = Insertions(comp) if batch else None
        made: dict[str, HloInstruction] = {}
        for k, anchor in enumerate(anchors):
            target = made[anchor] if isinstance(anchor, str) else listed[anchor % len(listed)]
            new = _fresh(module.unique_name("inserted"), target)
            if at is not None:
                at.insert_before(target, new)
            else:
                comp.insert_before(target, new)
            made[f"new{k}"] = new
            new.operands = [listed[0]]
        if at is not None:
            assert {i.name for i in at.inserted()} == {n.name for n in made.values()}
            at.place()
            assert not at.inserted() and all(i.parent is comp for i in comp.instructions)
        placed.append(_state(module))
    assert placed[0] == placed[1]
    assert "inserted" in placed[1]


def test_insertions_refuse_an_anchor_outside_the_computation():
    module = parse_module((DATA / sorted(p.name for p in DATA.glob("*.hlo"))[0]).read_text())
    comp = max(module.computations, key=lambda c: len(c.instructions))
    stranger = HloInstruction("stranger", HloOpcode.NEGATE, comp.instructions[0].shape)
    at = Insertions(comp)
    at.insert_before(stranger, _fresh(module.unique_name("inserted"), stranger))
    with pytest.raises(ValueError, match="stranger is not in"):
        at.place()


_NOTHING_TO_SIMPLIFY = """HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}
"""


class _Counted(algebraic_simplifier.AlgebraicSimplifier):
    """An AlgebraicSimplifier that notes each run it makes."""

    def __init__(self, runs: list[str], floats_are_real: bool = True):
        super().__init__(floats_are_real)
        self.runs = runs

    def run(self, module: HloModule) -> bool:
        self.runs.append(self.name)
        return super().run(module)


@pytest.mark.parametrize("text,second_options,expected_runs", [
    (_NOTHING_TO_SIMPLIFY, True, 1),  # the first found nothing to start on: the second is not run
    (_NOTHING_TO_SIMPLIFY, False, 2),  # other options: another pass
    (_NOTHING_TO_SIMPLIFY.replace("negate(p)", "divide(p, b)").replace(
        "  ROOT", "  two = f32[] constant(2)\n  b = f32[4]{0} broadcast(two), dimensions={}\n  ROOT"), True, 2),
])
def test_a_pass_repeating_one_that_left_the_module_untouched_is_not_run(text, second_options, expected_runs):
    runs: list[str] = []
    pipeline = hlo_pass_pipeline.HloPassPipeline("twice")
    pipeline.add_pass(_Counted(runs))
    pipeline.add_pass(_Counted(runs, second_options))
    module = parse_module(text)
    pipeline.run(module)
    assert len(runs) == expected_runs
    assert [name for name, _ in pipeline.changed] == ["algsimp", "algsimp"]  # recorded either way
    assert pipeline.changed[1] == ("algsimp", False)


@pytest.mark.parametrize("bits", [16, 32, 64, None])
def test_a_remembered_literal_text_is_the_one_computed(bits):
    """AlgebraicSimplifier's folded constants: the text kept for a value is the text the search
    gives, whichever of two equal keys (``0.0``, ``-0.0``) came first."""
    values = [0.0, -0.0, 0.5, 0.1, 1 / 3, 1e-8, 3.0, -2.5, 1e20, 0.00390625, 0.035677406936883926]
    algebraic_simplifier._LITERALS.clear()
    for _ in range(2):  # the second time from what was kept
        for value in values:
            assert algebraic_simplifier._literal_text(value, bits) == \
                algebraic_simplifier._shortest_literal_text(value, bits), (value, bits)
    assert algebraic_simplifier._LITERALS


def test_has_opcode_finds_an_opcode_anywhere_in_the_list():
    """``HloComputation.has_opcode``, the passes' test before a post order (a conditional, a
    concatenate): true for the first, last and only instruction of the opcode, false without one."""
    module = parse_module(_NOTHING_TO_SIMPLIFY)
    entry = module.entry_computation()
    assert entry.has_opcode(HloOpcode.PARAMETER) and entry.has_opcode(HloOpcode.NEGATE)
    assert not entry.has_opcode(HloOpcode.CONDITIONAL) and not entry.has_opcode(HloOpcode.ADD)


class _CountedAnnotationCSE(hlo_cse.AnnotationCSE):
    """An annotation CSE that notes each run it makes."""

    def __init__(self, runs: list[str]):
        self.runs = runs

    def run(self, module: HloModule) -> bool:
        self.runs.append(self.name)
        return super().run(module)


_MARKED = _NOTHING_TO_SIMPLIFY.replace("negate(p)", "negate(s)").replace(
    "  ROOT", '  s = f32[4]{0} custom-call(p), custom_call_target="Sharding"\n  ROOT')
"""A sharding marker for ShardingRemover to remove."""

_TWO_MOVES = """HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

ENTRY e {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
  b = f32[4]{0} custom-call(p), custom_call_target="MoveToHost"
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
}
"""
"""Two equal MoveToHosts for the annotation CSE to merge."""


@pytest.mark.parametrize("passes,text,expected_runs", [
    # the remover found no marker, so the module is the one the first CSE found nothing in: not run again
    (("cse", "remover", "cse"), _NOTHING_TO_SIMPLIFY, 1),
    (("cse", "cse"), _NOTHING_TO_SIMPLIFY, 1),
    (("cse", "remover", "cse"), _MARKED, 2),  # a marker removed: the module changed
    (("cse", "cse"), _TWO_MOVES, 2),  # the first merged: the second looks again
])
def test_a_pass_repeating_one_across_untouched_passes_is_not_run(passes, text, expected_runs):
    runs: list[str] = []
    pipeline = hlo_pass_pipeline.HloPassPipeline("across")
    made = [pipeline.add_pass(_CountedAnnotationCSE(runs) if p == "cse" else ShardingRemover()) for p in passes]
    pipeline.run(parse_module(text))
    assert len(runs) == expected_runs
    assert [name for name, _ in pipeline.changed] == [p.name for p in made]  # recorded either way
    if text is _TWO_MOVES:
        assert pipeline.changed[0] == ("annotation_cse", True) and not made[0].left_untouched
    if "remover" in passes:
        assert made[1].left_untouched is (text is not _MARKED)


class _CountedDCE(HloDCE):
    """An HloDCE that notes each run it makes."""

    def __init__(self, runs: list[str]):
        super().__init__()
        self.runs = runs

    def run(self, module: HloModule) -> bool:
        self.runs.append(self.name)
        return super().run(module)


_DEAD = _TWO_MOVES.replace("  ROOT", "  d = f32[4]{0} negate(p)\n  ROOT")
"""A dead negate for HloDCE, and two equal MoveToHosts for the annotation CSE."""


@pytest.mark.parametrize("middle,expected_runs", [
    (ShardingRemover, 1),  # the first removed all that was dead; the remover left the module alone
    (hlo_cse.AnnotationCSE, 2),  # the CSE merged a MoveToHost away: the second looks again
])
def test_a_dce_after_its_fixed_point_is_not_run_again(middle, expected_runs):
    runs: list[str] = []
    pipeline = hlo_pass_pipeline.HloPassPipeline("dce")
    first = pipeline.add_pass(_CountedDCE(runs))
    pipeline.add_pass(middle())
    pipeline.add_pass(_CountedDCE(runs))
    module = parse_module(_DEAD)
    pipeline.run(module)
    assert pipeline.changed[0] == ("hlo_dce", True) and first.fixed_point and not first.left_untouched
    assert len(runs) == expected_runs
    assert "d" not in [i.name for i in module.entry.instructions]
