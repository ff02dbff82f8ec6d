"""The CallInliner pre-pass: pre-optimisation HLO is analysed as XLA's HostOffloader sees it.

XLA inlines plain ``call``s (CallInliner, right after the memory annotations are
converted) long before HostOffloader runs.  Without that, a MoveToHost inside a
callee meets the callee's root tuple first, the walk starts there and a DMA into
a host buffer is misread as host compute.
"""

from __future__ import annotations

import pytest

from xladoctor.offload import analyze_host_offload
from xladoctor.offload.clone import clone_module
from xladoctor.offload.passes.call_inliner import inline_calls, looks_pre_optimization
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

# A MoveToHost inside a callee whose result reaches a DUS through another callee: the
# scan-with-remat-offload shape, by hand.  ``update_row`` is called from two places.
TWO_CALLEES = """HloModule m, entry_computation_layout={(f32[4,8]{1,0}, s32[])->f32[3,4,8]{2,1,0}}
produce {
  px = f32[4,8] parameter(0)
  s = f32[4,8] sine(px), metadata={op_name="sin" source_file="model.py" source_line=12}
  s_host = f32[4,8] custom-call(s), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT pair = (f32[4,8], f32[4,8]) tuple(s, s_host)
}
update_row {
  buf = f32[3,4,8] parameter(0)
  row = f32[4,8] parameter(1)
  at = s32[] parameter(2)
  row3 = f32[1,4,8] reshape(row)
  zero = s32[] constant(0)
  ROOT dus = f32[3,4,8] dynamic-update-slice(buf, row3, at, zero, zero), metadata={op_name="dus" source_file="model.py" source_line=20}
}
ENTRY main {
  x = f32[4,8] parameter(0)
  c0 = f32[] constant(0)
  acts = f32[3,4,8] broadcast(c0), dimensions={}
  i = s32[] parameter(1)
  produced = (f32[4,8], f32[4,8]) call(x), to_apply=produce
  host_row = f32[4,8] get-tuple-element(produced), index=1
  dev_row = f32[4,8] get-tuple-element(produced), index=0
  first = f32[3,4,8] call(acts, host_row, i), to_apply=update_row
  ROOT second = f32[3,4,8] call(first, dev_row, i), to_apply=update_row
}
"""


def test_pre_optimization_module_is_inlined_by_default():
    module = parse_module(TWO_CALLEES)
    assert looks_pre_optimization(module)
    before = print_module(module)
    result = analyze_host_offload(module)
    assert print_module(module) == before, "the caller's module is not modified"
    assert sorted(result.inlined_calls) == ["first", "produced", "second"]
    # The walk starts at the DUS inside update_row (its first call site), as in XLA: a pure
    # offload, whose destination (the broadcast) becomes a host AllocateBuffer; no host compute.
    assert [w.start for w in result.walks] == ["dus"]
    assert not result.host_compute and not result.failures
    assert [i.kind for i in result.inserted] == ["allocate-buffer"]
    # The second call site writes a device row into that host buffer and returns it: the
    # untiled output is E1200 (released XLA), named after the DUS with the source line of the
    # input's instruction; the unmerged PR #36525 rule would move it to host instead.
    assert result.error is not None and result.error.start == "dus"
    assert result.error.trace[0].location is not None and result.error.trace[0].location.line == 20
    pr = analyze_host_offload(module, "unmerged-pr-36525")
    assert [m.start for m in pr.outputs_moved_to_host] == ["dus"] and pr.error is None


def test_without_inlining_the_walk_starts_at_the_callee_tuple():
    module = parse_module(TWO_CALLEES)
    result = analyze_host_offload(module, inline_calls=False)
    assert result.inlined_calls == []
    assert [w.start for w in result.walks] == ["pair"]
    # ... and the DUS, reached with a host update and a device destination, is host compute.
    assert [h.instruction for h in result.host_compute] == ["dus"]


def test_failure_messages_name_the_input_instruction():
    """A DUS whose destination is a device parameter cannot get a host buffer (scenario 2).

    Released XLA stops at the E1200 first (the real compiler: starting from the DUS); the
    later failure of the buffer search is still reported, named after the input's parameter."""
    text = TWO_CALLEES.replace("c0 = f32[] constant(0)\n  acts = f32[3,4,8] broadcast(c0), dimensions={}",
                               "acts = f32[3,4,8] parameter(2)")
    text = text.replace("s32[])->", "s32[], f32[3,4,8]{2,1,0})->")
    result = analyze_host_offload(parse_module(text))
    assert result.outcome == "E1200" and result.error.start == "dus"
    assert result.failures[0].instruction == "acts" and not result.failures[0].first
    assert result.failures[0].message == 'Entry computation parameter "acts" (shape index {}) is not in host memory space.'


def test_shared_callee_clones_get_unique_names_and_keep_metadata():
    module = parse_module(TWO_CALLEES)
    work = clone_module(module)
    done = inline_calls(work)
    text = print_module(work)
    reparsed = parse_module(text)  # our parser rejects duplicate names
    names = [i.name for i in reparsed.instructions()]
    assert len(names) == len(set(names))
    assert [c.name for c in reparsed.computations] == ["main"]
    # One call site moved update_row's own instructions, the other got clones that map back.
    assert sorted(set(done.origin.values())) == ["dus", "row3", "zero"]
    clone = next(n for n, src in done.origin.items() if src == "dus")
    assert clone != "dus" and reparsed.get_instruction(clone).source_location().line == 20
    jaxlib_hlo = pytest.importorskip("jaxlib._hlo")
    jaxlib_hlo.hlo_module_from_text(text)


HOST_CALL = """HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}
host_fn {
  p = f32[8] parameter(0)
  ROOT t = f32[8] tanh(p)
}
plain {
  q = f32[8] parameter(0)
  ROOT n = f32[8] negate(q)
}
ENTRY main {
  x = f32[8] parameter(0)
  on_host = f32[8] call(x), to_apply=host_fn, frontend_attributes={_xla_compute_type="host"}
  kept = f32[8] call(on_host), to_apply=plain, frontend_attributes={inlineable="false"}
  ROOT y = f32[8] call(kept), to_apply=plain
}
"""


def test_host_calls_and_non_inlineable_calls_stay():
    work = clone_module(parse_module(HOST_CALL))
    done = inline_calls(work)
    assert done.inlined_calls == ["y"]
    ops = {i.name: i.opcode.value for i in work.entry.instructions}
    assert ops["on_host"] == "call" and ops["kept"] == "call" and "y" not in ops
    assert {c.name for c in work.computations} == {"main", "host_fn", "plain"}


def test_scheduled_modules_are_not_inlined():
    text = TWO_CALLEES.replace("HloModule m,", "HloModule m, is_scheduled=true,")
    module = parse_module(text)
    assert not looks_pre_optimization(module)
    assert analyze_host_offload(module).inlined_calls == []


def test_jax_scan_remat_offload_walk_starts_at_the_dus(jax_hlo_corpus):
    """Real pre-optimisation HLO from jax: the residual's MoveToHost feeds the scan's DUS."""
    module = parse_module(jax_hlo_corpus.text("scan_remat_offload_tpu", "pre"))
    result = analyze_host_offload(module)
    assert result.outcome == "ok", (result.errors, result.failures)
    assert result.inlined_calls
    starts = [w.start for w in result.walks if w.origin.startswith("move-to-host")]
    assert starts and all(module.get_instruction(s).opcode.value == "dynamic-update-slice" for s in starts)
    assert not result.host_compute, [h.instruction for h in result.host_compute]
    # The DUS is a pure offload: its destination becomes a host buffer.
    assert any(d.action == "allocate-buffer" for d in result.dynamic_update_slices)
    # Run on the module as written, the same program starts at a tuple and reports host compute.
    bare = analyze_host_offload(module, inline_calls=False)
    assert any(module.get_instruction(w.start).opcode.value == "tuple" for w in bare.walks)
    assert bare.host_compute


def _doubling_then_leaf(depth: int, leaf: int) -> str:
    """``c{k}`` calls ``c{k-1}`` twice (the inlined size doubles per level), then the entry calls a
    computation of ``leaf`` + 2 instructions and no call."""
    t = "f32[4]{0}"
    lines = ["HloModule m", "", "c0 {", f"  c0.p = {t} parameter(0)", f"  ROOT c0.r = {t} sine(c0.p)", "}"]
    for k in range(1, depth):
        lines += [f"c{k} {{", f"  c{k}.p = {t} parameter(0)", f"  c{k}.a = {t} call(c{k}.p), to_apply=c{k - 1}",
                  f"  c{k}.b = {t} call(c{k}.a), to_apply=c{k - 1}", f"  ROOT c{k}.r = {t} add(c{k}.a, c{k}.b)", "}"]
    chain = [f"  leaf.s{j} = {t} sine(leaf.{'p' if j == 0 else f's{j - 1}'})" for j in range(leaf)]
    lines += ["leaf {", f"  leaf.p = {t} parameter(0)", *chain, f"  ROOT leaf.r = {t} cosine(leaf.s{leaf - 1})", "}"]
    lines += ["ENTRY main {", f"  p = {t} parameter(0)", f"  a = {t} call(p), to_apply=c{depth - 1}",
              f"  l = {t} call(a), to_apply=leaf", f"  ROOT r = {t} add(a, l)", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("depth", "leaf", "crossing"), [(4, 10, "leaf.p"), (4, 40, "leaf.s29"), (5, 40, "leaf.s1"),
                                                          (3, 5, "'p'"), (6, 20, "c4.b"), (5, 5, "c3.r")])
def test_the_sizing_looks_at_the_calls_only(depth, leaf, crossing, monkeypatch):
    """The inliner's sizing looks at each computation's calls only, counting one for each
    instruction between them, and finds one of those that crosses the bound by its place: the same
    refusal, at the same instruction and line, as the loop over every instruction (the bound
    lowered to the module's size, so that a small module crosses it: at a call, between calls, in
    a computation that calls nothing)."""
    from xladoctor.base.errors import InputError
    from xladoctor.offload.passes import call_inliner
    monkeypatch.setattr(call_inliner, "INLINE_BOUND", 0)
    monkeypatch.setattr(call_inliner, "INLINE_GROWTH", 1)
    module = parse_module(_doubling_then_leaf(depth, leaf))
    inliner = call_inliner._Inliner(module)
    order = call_inliner.computation_post_order(module, inliner.callees_of)
    assert order == call_inliner.computation_post_order(module)
    refusals = []
    for known in (inliner.calls_of, None):
        with pytest.raises(InputError) as refused:
            call_inliner.check_inlined_size(module, set(), order, None, known)
        refusals.append(str(refused.value))
    assert refusals[0] == refusals[1] and crossing in refusals[0]
