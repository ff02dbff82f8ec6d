"""The IR core: ``Users`` keeps XLA's order, every write keeps users and operands each other's
reverse, ``HloModule.lint()`` catches a module whose links are broken, and each pre-pass of the
offload analysis leaves a module that lints clean; a call graph that inlines past the bound is
refused in one line.

User order decides which walk HostOffloader takes first, so ``Users`` is checked against a
model of ``HloInstruction::Users`` written here (a plain list: append, and the last user into
the removed one's slot), on random edit sequences long enough to cross the size at which
``Users`` starts keeping an index.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.lint import LintError
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.ir.shape import Shape
from xladoctor.ir.users import NO_USERS, Users, users_of
from xladoctor.offload import analyze_host_offload
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.call_inliner import inline_calls
from xladoctor.offload.passes.hlo_cse import merge_duplicate_annotations
from xladoctor.offload.passes.hlo_dce import remove_dead_code
from xladoctor.offload.passes.host_offload_legalize import run_legalize
from xladoctor.offload.passes.host_offloader import OffloadOptions, run_host_offloader
from xladoctor.offload.passes.host_offloading_prepare import elide_moves_into_host_calls
from xladoctor.offload.passes.sharding_remover import remove_sharding_markers
from xladoctor.offload.passes.stablehlo_rebuild import rebuild_as_compiled
from xladoctor.syntax.hlo_parser import parse_module

F32 = Shape.array("f32", [4])


def _instr(name: str) -> HloInstruction:
    return HloInstruction(name, HloOpcode.ADD, F32)


def _model_remove(order: list[HloInstruction], user: HloInstruction) -> None:
    """XLA's ``Users::RemoveUser``: the last user takes the removed one's slot."""
    if user in order:
        k = order.index(user)
        last = order.pop()
        if last is not user:
            order[k] = last


@pytest.mark.parametrize("seed", range(6))
def test_users_follow_xla_order_on_random_edits(seed):
    rng = random.Random(seed)
    pool = [_instr(f"u{i}") for i in range(60)]
    users, model = Users(), []
    for _ in range(2_000):
        u = rng.choice(pool)
        if rng.random() < 0.6:
            users.add(u)
            if u not in model:
                model.append(u)
        else:
            users.swap_remove(u)
            _model_remove(model, u)
        assert list(users) == model and len(users) == len(model) and users.consistent()
        assert all((x in users) == (x in model) for x in pool[:5])
    gone = set(rng.sample(pool, 20))
    users.remove_stable(gone)
    assert list(users) == [u for u in model if u not in gone] and users.consistent()
    users.sort(lambda u: -int(u.name[1:]))
    assert [u.name for u in users] == sorted((u.name for u in model if u not in gone), key=lambda n: -int(n[1:]))


@pytest.mark.parametrize("seed", range(4))
def test_users_linked_as_made_keep_xla_order_without_an_index(seed):
    """Users linked as new instructions are made (``link_operands``: the parser's and the copy's
    way, an operand read twice among them) are appended with no index; one is made when a slot or
    a member is first asked, and the edits after that follow the model as before."""
    rng = random.Random(seed)
    value = _instr("v")
    other = _instr("w")
    model: list[HloInstruction] = []
    made: list[HloInstruction] = []
    for k in range(40):
        u = _instr(f"u{k}")
        u.link_operands(rng.choice([(value,), (value, value), (other, value, other, value)]))
        model.append(u)
        made.append(u)
    users = value._users
    assert type(users) is Users and list(users) == model and users._index is None and users.consistent()
    for _ in range(300):
        u = rng.choice(made)
        if rng.random() < 0.5:
            value._gain_user(u)
            if u not in model:
                model.append(u)
        else:
            value._lose_user(u)
            _model_remove(model, u)
        assert list(value._users) == model and value._users.consistent()
        assert all((x in value._users) == (x in model) for x in made[:6])


def test_parsed_value_of_many_users_has_no_index_until_asked():
    lines = "\n".join(f"  a{k} = f32[4]{{0}} negate(p)" for k in range(40))
    module = parse_module("HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n" + lines
                          + "\n  ROOT t = (" + ", ".join("f32[4]{0}" for _ in range(40)) + ") tuple("
                          + ", ".join(f"a{k}" for k in range(40)) + ")\n}\n", "m")
    p = module.entry.instructions[0]
    users = p._users
    assert [u.name for u in users] == [f"a{k}" for k in range(40)] and users._index is None
    assert users.slot(module.entry.instructions[5]) == 4 and users._index is not None and users.consistent()


def _naive_set(instr: HloInstruction, new: list[HloInstruction], model: dict[HloInstruction, list]) -> None:
    """What assigning ``operands`` does to the users, as the dict-based IR did it."""
    for old in instr.operands:
        if old not in new:
            _model_remove(model[old], instr)
    for op in new:
        if instr not in model[op]:
            model[op].append(instr)


def test_replacing_uses_of_a_wide_instruction_matches_assigning_its_operands():
    """A ROOT tuple of 40 values behind markers: replace_all_uses_with (O(1) per slot through
    the wide index) leaves the same operands and user orders as rewriting the list would."""
    rng = random.Random(7)
    values = [_instr(f"v{i}") for i in range(40)]
    markers = [_instr(f"m{i}") for i in range(40)]
    model: dict[HloInstruction, list] = {i: [] for i in values + markers}
    for m, v in zip(markers, values):
        _naive_set(m, [v], model)
        m.operands = [v]
    root = _instr("root")
    slots = [rng.choice(markers) for _ in range(60)]
    _naive_set(root, slots, model)
    root.operands = slots
    expected = list(slots)
    for m in rng.sample(markers, 30):
        target = m.operands[0]
        for user in list(model[m]):
            _naive_set(user, [target if o is m else o for o in user.operands], model)
        m.replace_all_uses_with(target)
        expected = [target if o is m else o for o in expected]
        assert root.operand_indices(target) == [k for k, o in enumerate(expected) if o is target]
    assert list(root.operands) == expected
    for instr in values + markers:
        assert list(instr.users) == model[instr], instr.name


def test_replacing_one_operand_of_a_wide_instruction_matches_assigning_its_operands():
    """A ROOT tuple returning one of 8 values in each of its 60 slots (a pytree whose leaves share
    a tensor): replace_operand (O(1) per slot through the wide index, issue 36) leaves the same
    operands, slots and user orders as rewriting the whole list, XLA's ``ReplaceOperandWith``."""
    rng = random.Random(11)
    values = [_instr(f"v{i}") for i in range(8)]
    fresh = [_instr(f"c{i}") for i in range(8)]
    model: dict[HloInstruction, list] = {i: [] for i in values + fresh}
    root = _instr("root")
    expected = [rng.choice(values) for _ in range(60)]
    _naive_set(root, expected, model)
    root.operands = expected
    expected = list(expected)
    for step in range(200):
        k = rng.randrange(60)
        new = rng.choice(values + fresh)
        after = list(expected)
        after[k] = new
        _naive_set(root, after, model)
        root.replace_operand(k, new)
        expected = after
        if step % 7 == 0:  # read back in between, as the walks do
            assert root.operand(k) is new and root.operand_indices(new) == [j for j, o in enumerate(expected) if o is new]
    assert list(root.operands) == expected
    for instr in values + fresh:
        assert list(instr.users) == model[instr], instr.name
        assert (root in instr.users) == (instr in expected)


def _corrupt_cases():
    def user_without_operand(m):
        a, b, c = m.instruction("a"), m.instruction("b"), m.instruction("c")
        a._users = users_of(b, c)  # a link written behind the methods' back (a's one user, b, was kept bare)
        return "lists 'c' as a user, which does not use it"

    def operand_without_user(m):
        b = m.instruction("b")
        b.operands[0]._users = NO_USERS  # its one user, kept bare, dropped behind the methods' back
        return "which does not list it as a user"

    def duplicate_name(m):
        m.instruction("b").name = "a"
        return "name 'a' is used twice"

    def parameter_slot(m):
        m.entry.parameters[0].parameter_number = 3
        return "is parameter(3) at slot 0"

    def stale_callers(m):
        m.callers_of(m.entry)  # builds the index
        m.entry.instructions[-1].called = {"to_apply": [m.entry]}
        return "the caller index is stale"

    return [user_without_operand, operand_without_user, duplicate_name, parameter_slot, stale_callers]


@pytest.mark.parametrize("corrupt", _corrupt_cases(), ids=lambda f: f.__name__)
def test_lint_catches_a_corrupted_module(corrupt):
    m = parse_module("HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  a = f32[4]{0} sine(p)\n"
                     "  b = f32[4]{0} add(a, p)\n  ROOT c = f32[4]{0} negate(b)\n}\n")
    m.lint()
    expected = corrupt(m)
    with pytest.raises(LintError, match=re.escape(expected)):
        m.lint()


def _corpus_modules(tmp_path: Path) -> list[Path]:
    return [*CORPUS, *generated_hlo(tmp_path, 40)]


def test_every_pre_pass_leaves_the_corpus_lint_clean(tmp_path):
    """The passes ``analyze_host_offload`` runs, in its order (HostOffloader's rewrites last),
    each followed by ``lint()``; and the analysis leaves its input as it found it."""
    for path in _corpus_modules(tmp_path):
        module = parse_module(path.read_text(), str(path))
        module.lint()
        work = clone_module(module)
        work.lint()
        steps = [rebuild_as_compiled, remove_sharding_markers, merge_duplicate_annotations, inline_calls,
                 merge_duplicate_annotations, elide_moves_into_host_calls, remove_dead_code, run_legalize]
        for step in steps:
            step(work)
            try:
                work.lint()
            except LintError as e:
                raise AssertionError(f"{path.name}: after {step.__name__}: {e}") from None
        run_host_offloader(work, module, OffloadOptions("shipped", False, False))  # rewrites work
        try:
            work.lint()
        except LintError as e:
            raise AssertionError(f"{path.name}: after run_host_offloader: {e}") from None
        analyze_host_offload(module)
        module.lint()


def _deep_calls(levels: int) -> str:
    t = "f32[8,128]{1,0}"
    lines = ["HloModule deep", "", "c0 {", f"  c0.p = {t} parameter(0)", f"  ROOT c0.r = {t} sine(c0.p)", "}"]
    for k in range(1, levels):
        lines += [f"c{k} {{", f"  c{k}.p = {t} parameter(0)", f"  c{k}.a = {t} call(c{k}.p), to_apply=c{k - 1}",
                  f"  c{k}.b = {t} call(c{k}.a), to_apply=c{k - 1}", f"  ROOT c{k}.r = {t} add(c{k}.a, c{k}.b)", "}"]
    lines += ["ENTRY main {", f"  p = {t} parameter(0)",
              f'  h = {t} custom-call(p), custom_call_target="annotate_device_placement", '
              'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}',
              f'  d = {t} custom-call(h), custom_call_target="annotate_device_placement", '
              'custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="device"}',
              f"  ROOT r = {t} call(d), to_apply=c{levels - 1}", "}"]
    return "\n".join(lines) + "\n"


def test_a_call_graph_past_the_inlining_bound_is_refused_in_one_line(tmp_path):
    """20 computations each calling the next twice: 3 kB that inline to 2 million instructions."""
    path = tmp_path / "deep.hlo"
    path.write_text(_deep_calls(20))
    for command in ("offload", "check"):
        done = subprocess.run([sys.executable, "-m", "xladoctor", command, str(path)], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        line = done.stderr.strip().splitlines()[-1]
        # c18's second call is where the running size passes 1,000,000 (each level doubles it);
        # c0 takes lines 3-6 and each c{k} six lines from line 7: c18.b is on 7 + 6 * 17 + 3
        assert line == (f"{path}:112:3: inlining call 'c18.b' takes the module past 1,000,000 instructions, "
                        "the most xladoctor inlines (its call graph multiplies: computations called from several "
                        "places call others from several places); XLA's compiler would build them all too")
        assert "Traceback" not in done.stderr


def test_a_call_graph_below_the_bound_is_inlined_and_analysed():
    module = parse_module(_deep_calls(10))
    result = analyze_host_offload(module)
    calls = {i.name for i in module.instructions() if i.opcode is HloOpcode.CALL}
    assert result.outcome == "ok" and len(calls) == 19 and set(result.inlined_calls) == calls


def test_columns_on_a_one_line_module_and_after_it():
    """Columns are counted from the line's start, kept as the reader goes (not searched back
    for per instruction: on a one-line module of 200,000 parameters that was quadratic)."""
    head = "HloModule m\nc { x = f32[4]{0} parameter(0) ROOT y = f32[4]{0} sine(x) }\nENTRY e { "
    text = head + "p = f32[4]{0} parameter(0) ROOT n = f32[4]{0} call(p), to_apply=c\n  }\n"
    m = parse_module(text)
    for name in ("x", "y", "p", "n"):
        instr = m.instruction(name)
        at = text.index(f" {name} = ") + 1 if name in ("x", "p") else text.index(f"ROOT {name} ")
        assert (instr.line, instr.col) == (text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)), name


def test_clone_is_independent_and_replace_instruction_keeps_links(tmp_path):
    from xladoctor.syntax.hlo_printer import print_module
    for path in _corpus_modules(tmp_path)[:30]:
        module = parse_module(path.read_text(), str(path))
        before = print_module(module)
        copy = module.clone()
        copy.lint()
        assert print_module(copy) == before
        assert not {id(i) for i in copy.instructions()} & {id(i) for i in module.instructions()}
        comp = copy.entry_computation()
        victim = next((i for i in comp.instructions if i.users and i.opcode is not HloOpcode.PARAMETER), None)
        if victim is None:
            continue
        users = list(victim.users)
        stand_in = HloInstruction(copy.unique_name("stand_in"), victim.opcode, victim.shape)
        comp.insert_before(victim, stand_in)
        stand_in.operands = victim.operands
        comp.replace_instruction(victim, stand_in)
        copy.lint()
        assert list(stand_in.users) == users and victim.parent is None and not victim.operands
        assert print_module(module) == before  # the original is untouched
