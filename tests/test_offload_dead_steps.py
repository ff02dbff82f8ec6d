"""The entry's dead steps are left out of the analysis' copy without changing anything (``offload/passes/dead_steps.py``).

A dead step is a ``call`` whose result nothing live reads, with what only it reads (jax's repeated
programs: every copy but the last of ``bench/real_modules.py``'s ``jax_entry``).  The copy holds
one stand-in instruction per step; the run must still name every inlined call in its place,
report every dead MoveToHost in the DCE's order, give out the same names, and leave the same
module.  Checked here by running the pipeline twice on each module, from the copy with the
stand-ins and from the whole copy: the same module (text and every instruction's users, in
order) after every pass from the DCE after inlining on, the same removals, inlined calls,
names given afterwards and result; and through the CLI, the same ``offload --json``.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.module import HloModule
from xladoctor.offload import analysis
from xladoctor.offload.analysis import analyze_host_offload, lean_copy
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes import dead_steps as dead_steps_module
from xladoctor.offload.passes.analysis_context import DeadSteps
from xladoctor.offload.passes.dead_steps import find_dead_steps
from xladoctor.offload.passes.hlo_dce import dead_code_counted
from xladoctor.offload.passes.hlo_pass_pipeline import HloPassPipeline
from xladoctor.offload.passes.host_offloader import OffloadOptions
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

BENCH = Path(__file__).resolve().parent.parent / "bench"
CONFIG = PipelineConfig(True, True, OffloadOptions("shipped"))


def _step(k: int, *, live: bool = False, target: str = "annotate") -> tuple[str, str]:
    """A callee and the entry lines of one step: dot, tanh, a host round trip, a call; a dead
    step's result is read only by a negate nothing reads."""
    to_host = ('custom-call(sh{k}), custom_call_target="MoveToHost"' if target == "move" else
               'custom-call(sh{k}), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, '
               'frontend_attributes={{_xla_buffer_placement="pinned_host"}}').format(k=k)
    to_device = ('custom-call(h{k}), custom_call_target="MoveToDevice"' if target == "move" else
                 'custom-call(h{k}), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, '
                 'frontend_attributes={{_xla_buffer_placement="device"}}').format(k=k)
    callee = f"""relu.{k} {{
  a{k} = f32[8,128]{{1,0}} parameter(0)
  z{k} = f32[] constant(0)
  b{k} = f32[8,128]{{1,0}} broadcast(z{k}), dimensions={{}}
  ROOT m{k} = f32[8,128]{{1,0}} maximum(a{k}, b{k})
}}
"""
    lines = f"""  d{k} = f32[8,128]{{1,0}} dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  t{k} = f32[8,128]{{1,0}} tanh(d{k})
  sh{k} = f32[8,128]{{1,0}} custom-call(t{k}), custom_call_target="Sharding", sharding={{replicated}}
  h{k} = f32[8,128]{{1,0}} {to_host}
  g{k} = f32[8,128]{{1,0}} {to_device}
  e{k} = f32[8,128]{{1,0}} dot(g{k}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  {"ROOT " if live else ""}r{k} = f32[8,128]{{1,0}} call(e{k}), to_apply=relu.{k}
"""
    if not live:
        lines += f"  n{k} = f32[8,128]{{1,0}} negate(r{k})\n"
    return callee, lines


def _module(steps: int = 3, *, live_first: bool = False, target: str = "annotate", extra: str = "") -> str:
    """``steps`` steps, the last live (or, with ``live_first``, the first)."""
    live_at = 0 if live_first else steps - 1
    parts = [_step(k, live=k == live_at, target=target) for k in range(steps)]
    callees = "\n".join(c for c, _ in parts)
    body = "".join(lines for _, lines in parts)
    layout = "{(f32[8,128]{1,0}, f32[128,128]{1,0})->f32[8,128]{1,0}}"
    return (f"HloModule dead_steps, entry_computation_layout={layout}\n\n{callees}{extra}\n"
            f"ENTRY main {{\n  x = f32[8,128]{{1,0}} parameter(0)\n  w = f32[128,128]{{1,0}} parameter(1)\n{body}}}\n")


def _state(module: HloModule) -> str:
    users = "\n".join(f"{i.name}: {[u.name for u in i.users]}" for c in module.computations for i in c.instructions)
    return f"{print_module(module)}\n{users}"


def _run(module: HloModule, copy: HloModule, left_out: dict, steps: DeadSteps | None,
         config: PipelineConfig) -> tuple[HloPassPipeline, list[str]]:
    printed: list[str] = []
    pipeline = offload_pipeline(config, module, left_out, dead_steps=steps,
                                after_each=lambda p, m: printed.append(f"{p.name}\n{_state(m)}"))
    pipeline.run(copy)
    return pipeline, printed


def _same_run(label: str, module: HloModule, config: PipelineConfig = CONFIG) -> DeadSteps | None:
    """The run from the copy with stand-ins is the whole copy's; returns the stand-ins' record."""
    copy, left_out, steps = lean_copy(module, config)
    whole = clone_module(module)
    lean, lean_printed = _run(module, copy, left_out, steps, config)
    full, full_printed = _run(module, whole, {}, None, config)
    first_dce = [p.name for p in full.passes].index("hlo_dce")
    assert lean_printed[first_dce:] == full_printed[first_dce:], label
    assert [i.name for i in lean.context.dead] == [i.name for i in full.context.dead], label
    assert lean.context.inlined_calls == full.context.inlined_calls, label
    assert lean.context.result == full.context.result, label
    names = [i.name for c in module.computations for i in c.instructions] + [c.name for c in module.computations]
    names += ["copy", "constant", "broadcast", "maximum"]
    assert [copy.unique_name(n) for n in names] == [whole.unique_name(n) for n in names], label
    return steps


def _offload_json(path: Path, monkeypatch: pytest.MonkeyPatch | None = None) -> str:
    from xladoctor.cli.main import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["offload", str(path), "--json"])
    return f"{rc}\n{out.getvalue()}"


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
@pytest.mark.parametrize("live_first", [False, True])
@pytest.mark.parametrize("target", ["annotate", "move"])
def test_dead_steps_holding_host_moves_run_as_the_whole_copy(live_first, target, platform):
    module = parse_module(_module(4, live_first=live_first, target=target), "dead_steps")
    config = PipelineConfig(True, True, OffloadOptions("shipped"), platform)
    steps = _same_run(f"{target} live_first={live_first} {platform}", module, config)
    assert steps is not None and len(steps.stand_ins) == 3  # every dead step was left out
    result = analyze_host_offload(module)
    assert [d.move_to_host for d in result.dropped_offloads] == [f"h{k}" for k in range(4) if k != (0 if live_first else 3)]
    assert result.inlined_calls == [f"r{k}" for k in range(4)]


def test_the_report_is_the_whole_copys(tmp_path, monkeypatch):
    """Text in, text out: ``offload --json`` with the dead steps left out and with the whole copy."""
    path = tmp_path / "dead_steps.hlo"
    path.write_text(_module(5))
    lean = _offload_json(path)
    monkeypatch.setattr(analysis, "find_dead_steps", lambda *args: None)
    assert _offload_json(path) == lean
    assert '"move_to_host": "h0"' in lean and '"r3"' in lean


def test_other_dead_code_in_the_same_removal_runs_the_whole_copy(monkeypatch):
    """A live call whose callee ignores an argument leaves that argument dead in the DCE after
    inlining, beside the stand-ins: their order is not modelled there, so the analysis runs
    again on the whole copy, with the same result."""
    extra = """first {
  p0 = f32[8,128]{1,0} parameter(0)
  p1 = f32[8,128]{1,0} parameter(1)
  ROOT q = f32[8,128]{1,0} add(p0, p0)
}
"""
    text = _module(3, extra=extra).replace(
        "  ROOT r2 = f32[8,128]{1,0} call(e2), to_apply=relu.2\n",
        "  r2 = f32[8,128]{1,0} call(e2), to_apply=relu.2\n  v2 = f32[8,128]{1,0} negate(x)\n"
        "  ROOT o2 = f32[8,128]{1,0} call(r2, v2), to_apply=first\n")
    module = parse_module(text, "dead_steps")
    assert lean_copy(module, CONFIG)[2] is not None
    whole_copies = []
    original = analysis.private_copy
    monkeypatch.setattr(analysis, "private_copy", lambda *a: whole_copies.append(1) or original(*a))
    result = analyze_host_offload(module)
    assert whole_copies == [1]  # the stand-ins' run gave up, the whole copy's answered
    monkeypatch.setattr(analysis, "find_dead_steps", lambda *args: None)
    assert analyze_host_offload(module) == result


def test_steps_the_model_does_not_cover_are_copied():
    """A dead call reading a live value directly (its inlining reorders that value's users), or a
    callee with a custom call: the module is copied whole, as before (one such step is enough)."""
    direct = _module(3).replace("r0 = f32[8,128]{1,0} call(e0)", "r0 = f32[8,128]{1,0} call(x)")
    module = parse_module(direct, "direct")
    assert _same_run("direct", module) is None
    custom = _module(2).replace("ROOT m0 = f32[8,128]{1,0} maximum(a0, b0)",
                                'ROOT m0 = f32[8,128]{1,0} custom-call(a0, b0), custom_call_target="foo"')
    module = parse_module(custom, "custom")
    assert _same_run("custom", module) is None


def _repeated_step(copies: int) -> HloModule:
    code = f"import sys; sys.path.insert(0, {str(BENCH)!r}); from real_modules import module; " \
           f"print(module('jax_entry', {19 * copies}), end='')"
    text = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return parse_module(text, "jax_entry")


def test_the_inline_bound_counts_what_was_left_out(monkeypatch):
    """What the stand-ins leave out is counted on top of the copy: the same size and module
    size as the whole copy's, where CallInliner checks its bound."""
    from xladoctor.offload.passes import call_inliner
    seen: list[tuple[int, int]] = []
    check = call_inliner.check_inlined_size

    def counting(module, *args, **kwargs):
        total = check(module, *args, **kwargs)
        seen.append((total, module.instruction_count()))
        return total
    monkeypatch.setattr(call_inliner, "check_inlined_size", counting)
    module = parse_module(_module(4, extra=_UNCALLED).replace(
        "n0 = f32[8,128]{1,0} negate(r0)", "zz = f32[] constant(0)\n  n0 = f32[] reduce(r0, zz), dimensions={0,1}, to_apply=add.0"), "dead_steps")
    steps = _same_run("bound", module)
    assert steps is not None and len(steps.computations) == 4  # three callees, the dead reduce's reducer
    (lean_total, lean_count), (full_total, full_count) = seen  # the run from the stand-ins is first
    assert (full_total, full_count) == (lean_total + steps.extra_size[0], lean_count + steps.extra_size[1])


_UNCALLED = """add.0 {
  l = f32[] parameter(0)
  k = f32[] parameter(1)
  ROOT j = f32[] add(l, k)
}
"""


def test_a_repeated_jax_step_runs_as_the_whole_copy():
    pytest.importorskip("jax")
    module = _repeated_step(4)
    steps = _same_run("jax_entry x4", module)
    assert steps is not None and len(steps.stand_ins) == 3
    assert len(steps.computations) == 6  # each dead copy's relu, and its reducer only dead code calls


def test_every_corpus_module_runs_as_the_whole_copy(jax_hlo_corpus, tmp_path):
    paths = [*CORPUS, *generated_hlo(tmp_path, 40), *sorted((jax_hlo_corpus.root / "pre").glob("*.txt")),
             *jax_hlo_corpus.hlo_dump_files()[:40]]
    """Where none has a dead step the copy is the one without the rebuild's dead code, as before."""
    ran = 0
    for p in paths:
        module = parse_module(p.read_text(), str(p))
        if module.entry is None or module.entry_computation_layout is None:
            continue
        _same_run(str(p), module)
        ran += 1
    assert ran > 100


def test_no_dead_step_without_a_dead_call():
    module = parse_module(_module(1), "one step")
    _, left_out, steps = lean_copy(module, CONFIG)
    assert steps is None and find_dead_steps(module, left_out, {}, lambda c: left_out.get(c.name, [])) is None


def _two_reads(root: str) -> str:
    return f"""HloModule two_reads, entry_computation_layout={{(f32[8,128]{{1,0}}, f32[8,128]{{1,0}})->(f32[8,128]{{1,0}}, f32[8,128]{{1,0}})}}

both {{
  p0 = f32[8,128]{{1,0}} parameter(0)
  p1 = f32[8,128]{{1,0}} parameter(1)
  ROOT sum = f32[8,128]{{1,0}} {root}
}}

ENTRY main {{
  x = f32[8,128]{{1,0}} parameter(0)
  y = f32[8,128]{{1,0}} parameter(1)
  a = f32[8,128]{{1,0}} negate(x)
  b = f32[8,128]{{1,0}} exponential(y)
  r = f32[8,128]{{1,0}} call(a, b), to_apply=both
  n = f32[8,128]{{1,0}} negate(r)
  c = f32[8,128]{{1,0}} sine(y)
  h = f32[8,128]{{1,0}} custom-call(c), custom_call_target="MoveToHost"
  k = f32[8,128]{{1,0}} custom-call(h), custom_call_target="MoveToDevice"
  ROOT out = (f32[8,128]{{1,0}}, f32[8,128]{{1,0}}) tuple(x, k)
}}
"""


def test_a_callee_reading_its_parameters_in_another_order_is_copied():
    """After inlining, the walk from the callee's root reaches ``y`` before ``x`` where the
    rebuild's walk from the call reached ``x`` first: one stand-in cannot be both, so the step is
    copied; reading them in the call's order, it is left out (a ROOT tuple reading ``x`` is no obstacle,
    a MoveToHost reading ``y`` would be: the annotation passes may take it off ``y``'s users)."""
    assert _same_run("swapped", parse_module(_two_reads("add(p1, p0)"), "swapped")) is None
    in_order = parse_module(_two_reads("add(p0, p1)"), "in order")
    steps = lean_copy(in_order, CONFIG)[2]  # (CallInliner empties ``calls`` once read)
    assert steps is not None and list(steps.calls.values()) == ["r"]
    assert _same_run("in order", in_order) is not None
    moved = _two_reads("add(p0, p1)").replace("custom-call(c), custom_call_target", "custom-call(y), custom_call_target")
    assert _same_run("host move of y", parse_module(moved, "moved")) is None


def _with_dead_steps(text: str, module: HloModule, seed: int) -> str | None:
    """``text`` with three dead steps added to its entry, each after a random live instruction
    it reads (through a copy, sometimes a MoveToHost), calling a callee of its own; None where
    the entry has nothing to read."""
    import random
    rng = random.Random(seed)
    entry = module.entry
    if entry is None:
        return None
    values = [i for i in entry.instructions if i.line and i.opcode.value not in ("after-all", "token")
              and "token" not in str(i.shape)]
    if not values:
        return None
    lines = text.split("\n")
    callees: list[str] = []
    inserts: dict[int, list[str]] = {}
    for k in range(3):
        v = rng.choice(values)
        shape = str(v.shape)
        read = f"dstep{k}.a"
        step = [f"  dstep{k}.a = {shape} copy({v.name})"]
        if "(" not in shape and rng.random() < 0.5:
            step.append(f'  dstep{k}.h = {shape} custom-call(dstep{k}.a), custom_call_target="MoveToHost"')
            read = f"dstep{k}.h"
        step += [f"  dstep{k}.r = {shape} call({read}), to_apply=dstep{k}.f",
                 f"  dstep{k}.n = {shape} copy(dstep{k}.r)"]
        inserts.setdefault(v.line, []).extend(step)
        callees.append(f"dstep{k}.f {{\n  dstep{k}.p = {shape} parameter(0)\n  ROOT dstep{k}.c = {shape} copy(dstep{k}.p)\n}}\n")
    at = next(n for n, line in enumerate(lines) if line.startswith("ENTRY"))
    out: list[str] = []
    for n, line in enumerate(lines, start=1):
        if n - 1 == at:
            out.extend(callees)
        out.append(line)
        out.extend(inserts.get(n, []))
    return "\n".join(out)


def test_dead_steps_added_to_every_corpus_module_run_as_the_whole_copy(tmp_path, monkeypatch):
    """Dead steps reading random live values of each corpus module's entry (the model leaves
    them out where it covers them, copies the module whole where it does not): the same run,
    and the same analysis as with the whole copy (the fallback included)."""
    left = tried = 0
    for p, seed, text in corpus_with_dead_steps(tmp_path):
        module = parse_module(text, str(p))
        tried += 1
        left += _same_run(f"{p} seed {seed}", module) is not None
        result = analyze_host_offload(module)
        with monkeypatch.context() as m:
            m.setattr(analysis, "find_dead_steps", lambda *args: None)
            assert analyze_host_offload(module) == result, f"{p} seed {seed}"
    assert tried > 100 and left > 20, (tried, left)


def corpus_with_dead_steps(tmp_path: Path) -> Iterator[tuple[Path, int, str]]:
    """Each corpus module with an entry layout, and 40 generated ones, with dead steps added
    (:func:`_with_dead_steps`, two seeds each): (path, seed, text)."""
    for n, p in enumerate([*CORPUS, *generated_hlo(tmp_path, 40)]):
        base = parse_module(p.read_text(), str(p))
        if base.entry_computation_layout is None:
            continue
        for seed in (n, n + 1000):
            text = _with_dead_steps(p.read_text(), base, seed)
            if text is not None:
                yield p, seed, text


def test_a_value_only_dead_steps_read_dies_after_the_walk_reached_it():
    """``sx`` is read by the first two (dead) steps only: the one walk that finds the closure as it
    goes reaches it from the first step while the second still reads it, takes it as live, and
    must give way to the closure found first (the counts as they were); the run is the whole copy's."""
    text = _module(3).replace("d0 = f32[8,128]{1,0} dot(x, w)", "sx = f32[8,128]{1,0} negate(x)\n"
                              "  d0 = f32[8,128]{1,0} dot(sx, w)").replace("dot(x, w), lhs_contracting_dims={1}, "
                                                                          "rhs_contracting_dims={0}\n  t1",
                                                                          "dot(sx, w), lhs_contracting_dims={1}, "
                                                                          "rhs_contracting_dims={0}\n  t1")
    module = parse_module(text, "shared")
    entry = module.entry
    sx = next(i for i in entry.instructions if i.name == "sx")
    assert sorted(u.name for u in sx.users) == ["d0", "d1"]
    calls = [i for i in entry.instructions if i.name in ("r0", "r1")]
    counts: dict = {}
    assert dead_steps_module._closure_walks(calls, counts, entry.root, set()) is None
    assert counts[sx] == 2  # not given back: the finder counts anew (its closure from them would miss sx)
    left, counts = dead_code_counted(entry)
    found = dead_steps_module._steps_dead_code(calls, set(left), left, counts, entry, False)
    assert found is not None and sx in found[0] and found[3] is None  # the closure, found from the counts anew
    steps = _same_run("shared", module)
    assert steps is not None and len(steps.stand_ins) == 2
    assert steps.stand_ins[calls[0]][1] == (entry.parameters[0], entry.parameters[1])  # x, w: sx died with the steps


@pytest.mark.parametrize("live_first", [False, True])
def test_left_out_names_claimed_one_by_one_are_the_whole_copys(live_first, monkeypatch):
    """Where the copy's uniquer cannot take the input's table at once (a full uniquer, names with
    entries of their own), the names the copy leaves out -- the entry's beside what it keeps, the
    stand-ins' calls, the callees' and uncalled computations' instructions -- are claimed one by
    one: the copy then gives every name as the whole copy does."""
    from xladoctor.ir.instruction_names import InstructionNames
    monkeypatch.setattr(InstructionNames, "claim_all_of", lambda self, other: False)
    module = parse_module(_module(4, live_first=live_first), "dead_steps")
    steps = _same_run(f"one by one, live_first={live_first}", module)
    assert steps is not None and len(steps.stand_ins) == 3 and steps.computations
