"""A fixed-seed slice of bench/fix_campaign.py: each fix xladoctor suggests for an E1200
program, in both forms a user gets it (``offload --fix`` on the HLO, ``check_offload``'s code on
the program), makes the real TPU compiler (libtpu, compile-only) accept the program.

The programs are ones where a fix used to leave E1200 in place: ``host_params:37`` (the host
fix dropped the ``device`` out_shardings the program gave its other outputs) and
``host_params:23`` (``offload --fix device --stablehlo`` wrote the file without the memory
kinds the StableHLO gave its entry layout)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))


@pytest.fixture(scope="module")
def worker():
    from xladoctor.oracle import OracleWorker, unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as w:
        yield w


@pytest.mark.parametrize("family,seed", [("host_params", 37), ("host_params", 23), ("host_params", 90)])
def test_every_suggested_fix_compiles(worker, tmp_path, family, seed):
    import fix_campaign
    import offload_gen
    import user_programs

    prog = user_programs.build(family, seed)
    counterparts = {"place_to_device": offload_gen._frontend()[1]}
    rec = fix_campaign.run_jax_program(prog.name, family, prog.fn, prog.args, prog.jit_kwargs, worker,
                                       str(tmp_path), counterparts)
    assert rec is not None and rec.verdict == "e1200" and rec.findings
    assert set(rec.fixes) == {"hlo host", "hlo device", "python host", "python device"}
    for key, outcome in rec.fixes.items():
        assert outcome.status == "compiles", (key, outcome.message)
        assert outcome.clean_after, key  # and xladoctor agrees, so it does not suggest the fix again


def test_host_fix_keeps_the_out_shardings_the_program_gave():
    import jax
    import user_programs

    from xladoctor.jax import check_offload

    prog = user_programs.build("host_params", 37)  # out_shardings (None, device, device); leaf 0 offends
    report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
    assert "out_shardings=(host, device, device)" in report.findings[0].host_fix
    kinds = [None if s is None else s.memory_kind
             for s in report.suggested_out_shardings(jax.sharding.SingleDeviceSharding(jax.devices()[0]))]
    assert kinds == ["pinned_host", "device", "device"]


def test_generated_hlo_fixes_compile(worker, tmp_path):
    import random

    import fix_campaign
    import offload_gen

    rng, done = random.Random(0), 0
    for _ in range(40):
        sp = offload_gen.spec(rng, "hlo")
        rec = fix_campaign.run_hlo_program("gen", offload_gen.build_hlo(sp), worker, str(tmp_path))
        if rec.verdict != "e1200":
            continue
        assert rec.fixes and all(o.status == "compiles" for o in rec.fixes.values()), rec.fixes
        done += 1
        if done == 3:
            break
    assert done == 3


def test_later_failures_are_counted_by_what_our_check_said(capsys):
    """``other_error`` fixes are split by our own check of the fixed program: a predicted failure,
    a warning, or a silent ok; a fix that compiles but that we predict to fail is listed apart."""
    import fix_campaign
    from fix_campaign import FixOutcome, ProgramFixes

    def rec(name, **fixes):
        return ProgramFixes(name, "gen_jax", "e1200", 1, {k.replace("_", " "): v for k, v in fixes.items()})

    records = [
        rec("a", hlo_host=FixOutcome("other_error", "xla_error: Bitcast", False, "predicted"),
            python_host=FixOutcome("other_error", "xla_error: x", False, "warned")),
        rec("b", hlo_device=FixOutcome("other_error", "xla_error: y", True, "silent"),
            python_device=FixOutcome("compiles", "", False, "wrongly_predicted")),
        rec("c", hlo_host=FixOutcome("compiles", "", True)),
        ProgramFixes("d", "gen_jax", "compiles"),
    ]
    doc = fix_campaign.summarise(records)
    assert doc["later"] == {"later_failures": 3, "predicted": 1, "warned": 1, "silent": 1, "e1200": 0,
                            "compiles_predicted_to_fail": 1}
    assert doc["compiles_predicted_to_fail"] == [{"program": "b", "fix": "python device"}]
    assert [f.get("later") for f in doc["failures"]] == ["predicted", "warned", "silent"]
    doc["seconds"] = 0
    fix_campaign.print_text(doc)
    assert "later failures: 3, predicted 1, warned 1, silent 1; fixes that compile predicted to fail: 1" in \
        capsys.readouterr().out


def test_later_of_reads_our_outcome_and_warnings():
    from types import SimpleNamespace

    import fix_campaign

    def result(outcome, later=(), legalize=None):
        return SimpleNamespace(outcome=outcome, later_warnings=list(later), legalize=legalize)

    assert fix_campaign.later_of(result("failure")) == "predicted"
    assert fix_campaign.later_of(result("ok", ["w"])) == "warned"
    assert fix_campaign.later_of(result("ok", legalize=SimpleNamespace(warnings=["w"]))) == "warned"
    assert fix_campaign.later_of(result("ok")) == "silent"
    assert fix_campaign.later_of(result("E1200")) == "e1200"
