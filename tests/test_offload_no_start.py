"""The short cut for modules nothing starts an offload in gives the full analysis' answer.

:mod:`xladoctor.offload.no_start` skips copying, inlining and walking a module without
annotations, host memory in its entry layout or host computations.  Its answer must be
the full analysis' JSON, key for key (``inlined_calls`` included), on every module we
have: XLA's own test modules and what real jax programs print before and after
optimisation (calls, loops, sorts, collectives).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.offload import analysis, analyze_host_offload
from xladoctor.offload.no_start import has_no_offload_start, inlined_call_names
from xladoctor.offload.report import details_json
from xladoctor.syntax.hlo_parser import parse_module

DATA = Path(__file__).resolve().parent / "data" / "offload"


def _both(text: str, monkeypatch: pytest.MonkeyPatch, **kw) -> tuple[dict, dict]:
    module = parse_module(text)
    quick = details_json(analyze_host_offload(module, **kw), [])
    with monkeypatch.context() as m:
        m.setattr(analysis, "has_no_offload_start", lambda _module: False)
        full = details_json(analyze_host_offload(module, **kw), [])
    return quick, full


def _texts(jax_hlo_corpus) -> dict[str, str]:
    texts = {p.name: p.read_text() for p in sorted(DATA.glob("*.hlo"))}
    for name in jax_hlo_corpus.manifest["programs"]:
        for form in ("pre", "post"):
            path = jax_hlo_corpus.root / form / f"{name}.txt"
            if path.exists():
                texts[f"{form}/{name}"] = path.read_text()
    for path in jax_hlo_corpus.hlo_dump_files():
        texts[f"dump/{path.name}"] = path.read_text()
    return texts


def test_short_cut_equals_full_analysis_on_the_corpus(jax_hlo_corpus, monkeypatch):
    taken, full_only, with_calls = [], [], []
    for name, text in _texts(jax_hlo_corpus).items():
        try:
            module = parse_module(text)
        except HloParseError:
            continue
        if module.entry is None or not has_no_offload_start(module):
            full_only.append(name)
            continue
        for kw in ({}, {"inline_calls": False}, {"legalize": False}):
            try:
                quick, full = _both(text, monkeypatch, **kw)
            except ValueError:  # rejected by the verifier: rejected both ways
                break
            assert quick == full, (name, kw)
        else:
            taken.append(name)
            with_calls += [name] if quick["inlined_calls"] else []
    # The comparison means something only if both kinds of module are there.
    assert len(taken) >= 20 and len(full_only) >= 20, (taken, full_only)
    assert with_calls, "no module with inlined calls took the short cut"


def test_annotated_module_takes_the_full_analysis():
    text = (DATA / "01_basic_dus_ds.hlo").read_text()
    assert not has_no_offload_start(parse_module(text))


CALL_IN_A_REDUCER = """HloModule m, entry_computation_layout={(f32[8]{0})->f32[]}
inner {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add_via_call {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = f32[] call(x, y), to_apply=inner
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  zero = f32[] constant(0)
  unused = f32[] reduce(p, zero), dimensions={0}, to_apply=add_via_call
  ROOT kept = f32[] reduce(p, zero), dimensions={0}, to_apply=inner
}
"""


def test_call_reached_only_through_dead_code_falls_back(monkeypatch):
    """A ``call`` in a computation only a removable instruction calls: dead-code elimination
    decides whether it is inlined, so the short cut declines and the answer is the full one."""
    module = parse_module(CALL_IN_A_REDUCER)
    assert has_no_offload_start(module)
    assert inlined_call_names(module) is None
    quick, full = _both(CALL_IN_A_REDUCER, monkeypatch)
    assert quick == full
    assert full["inlined_calls"] == []
