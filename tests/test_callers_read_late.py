"""Callers read only where a computation has something to take (issue 36: per-computation work).

HostOffloadLegalize's start search and HostOffloader's host async calls skip a fusion's computation
by its callers; both now read the callers only of a computation that has a start (or an async
start), and most have none.  The analysis' result is compared with the order as it was (callers
first, kept here) on the corpus, generated modules and a fusion holding a MoveToHost; both paths
are taken.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.instruction import COMPILED
from xladoctor.ir.opcodes import ASYNC_START, CUSTOM_CALL, FUSION, PARAMETER
from xladoctor.ir.shape import HOST_MEMORY_SPACE
from xladoctor.offload import analyze_host_offload
from xladoctor.offload.annotations import is_host_async_start, is_move_to_host
from xladoctor.offload.passes import host_offload_legalize as legalize
from xladoctor.offload.passes import host_offloader as offloader
from xladoctor.offload.passes.host_offload_legalize import chain
from xladoctor.offload.passes.host_offloader import host_compute
from xladoctor.syntax.hlo_parser import parse_module

FUSED = """HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

fused {
  q = f32[4] parameter(0)
  m = f32[4] custom-call(q), custom_call_target="MoveToHost"
  ROOT n = f32[4] negate(m)
}

ENTRY main {
  p = f32[4] parameter(0)
  f = f32[4] fusion(p), kind=kLoop, calls=fused
  h = f32[4] custom-call(p), custom_call_target="MoveToHost"
  ROOT t = (f32[4], f32[4]) tuple(f, h)
}
"""


def _starts_callers_first(lz):  # the search as it was: the callers of every computation read first
    ecl = lz.module.entry_layout()
    out = []
    for comp in chain.make_computation_post_order(lz):
        if any(c.opcode is FUSION for c in lz.graph.callers_of(comp)):
            continue
        for instr in comp.instructions:
            if instr.opcode is PARAMETER and comp is lz.entry:
                n = instr.parameter_number
                pshape = ecl.parameters[n] if n is not None and n < len(ecl.parameters) else None
                if pshape is not None and pshape.is_array and pshape.layout is not None and \
                        pshape.layout.memory_space == HOST_MEMORY_SPACE:
                    out.append(instr)
                    continue
            if instr.opcode is CUSTOM_CALL and is_move_to_host(instr):
                out.append(instr)
    return out


def _async_callers_first(run):  # HostOffloader's host async calls as they were
    for comp in run.ctx.module.computations:
        if offloader._is_fusion_computation(run, comp):
            continue
        for instr in [i for i in comp.instructions if i.opcode is ASYNC_START]:
            if is_host_async_start(instr):
                try:
                    host_compute.handle_redundant_copies_back_to_host(run, instr)
                except (offloader.XlaCheckFailure, offloader.XlaStatusError) as e:
                    run.rec.fail_exc(e)


def _texts(tmp_path: Path) -> list[str]:
    return [FUSED, *(p.read_text() for p in [*CORPUS, *generated_hlo(tmp_path, 30)])]


def _result(text: str) -> str:
    try:
        module = parse_module(text)
    except Exception:  # input errors are not this test's
        return "unparsed"
    try:
        return repr(analyze_host_offload(module))
    except Exception as e:  # an error is an answer too: compared as well
        return f"{type(e).__name__}: {e}"


def test_callers_read_late_give_the_same_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if COMPILED:
        pytest.skip("the compiled core calls the functions natively: the old order cannot be put back")
    texts = _texts(tmp_path)
    asked: list[object] = []
    real = legalize.find_starting_instructions_of_host_memory_offload
    monkeypatch.setattr(legalize, "find_starting_instructions_of_host_memory_offload",
                        lambda lz: asked.append(lz) or real(lz))
    now = [_result(t) for t in texts]
    assert asked  # the search ran
    monkeypatch.setattr(legalize, "find_starting_instructions_of_host_memory_offload", _starts_callers_first)
    monkeypatch.setattr(offloader, "_handle_host_async_calls", _async_callers_first)
    before = [_result(t) for t in texts]
    assert now == before


def test_a_fusions_move_to_host_is_not_a_start_and_callers_are_read_only_where_one_is() -> None:
    module = parse_module(FUSED)
    lz = legalize.LegalizeState(module)
    read: list[str] = []
    module_callers = module.callers_of  # what the call graph reads (the module's own: patched on the instance)
    module.callers_of = lambda comp: read.append(comp.name) or module_callers(comp)  # type: ignore[method-assign]
    starts = chain.find_starting_instructions_of_host_memory_offload(lz)
    assert [i.name for i in starts] == ["h"]  # the fusion's MoveToHost dropped: its caller is a fusion
    assert sorted(read) == ["fused", "main"]  # both hold a start; a computation without one is not asked
