"""``check_offload(..., run=True)``: the Python API runs the program on the chip (issue 34).

On the chip (recorded, ``tests/data/chip/api-run.jsonl``, made by ``bench/chip_api_run.py``):
both ways the API reaches a chip -- in the caller's process when its jax holds the chip, in a
worker that lets it go otherwise -- give the same answers.  Here, without a chip: the run is
``not_run`` with its reason and a compile-only verdict, and the in-process runner itself is
exercised on the CPU (``target="cpu"``), as ``tests/test_confirm_run*.py`` do for the worker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("jax")

DATA = Path(__file__).resolve().parent / "data" / "chip" / "api-run.jsonl"


def _records() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def test_on_the_chip_both_ways_give_the_same_answer() -> None:
    recs = _records()
    assert {r["mode"] for r in recs} == {"in_process", "worker"}
    by_case: dict[str, list[dict]] = {}
    for r in recs:
        assert r["judge"]["kind"] == "chip" and r["judge"]["device"] == "TPU v5 lite", r
        assert r["holds_chip"] is (r["mode"] == "in_process"), r
        assert r["worker_left_running"] is False, r  # the chip is let go after the call
        by_case.setdefault(r["case"], []).append(r)
    for case, pair in by_case.items():
        assert len(pair) == 2, case
        a, b = pair
        assert (a["ok"], a["verdict"], a["run"]["outcome"]) == (b["ok"], b["verdict"], b["run"]["outcome"]), case


def test_on_the_chip_a_program_that_runs_right_is_ok_and_the_rest_are_not() -> None:
    for r in _records():
        if r["run"]["outcome"] == "right":
            assert r["ok"] and r["judge"]["ran"] and r["verdict"] == "compiles", r
        else:  # not compiled by the chip: nothing ran, and the report is not ok
            assert r["run"]["outcome"] == "not_run" and not r["ok"] and r["verdict"] != "compiles", r
    assert sum(r["run"]["outcome"] == "right" for r in _records()) == 2


def _program():
    import jax
    import jax.numpy as jnp

    return (lambda x: jnp.tanh(x) * 2), jax.ShapeDtypeStruct((8, 128), jnp.float32)


def test_without_a_chip_run_says_why_and_compiles_only(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("libtpu")
    monkeypatch.setenv("XLADOCTOR_NO_CHIP", "1")
    from xladoctor.jax import check_offload

    fn, x = _program()
    report = check_offload(fn, x, run=True, seed=1)
    check = report.analysis
    assert check.run["run"]["outcome"] == "not_run"
    assert check.run["run"]["why"].startswith("run=True needs a TPU chip on this machine")
    assert check.run["judge"]["kind"] == "compile_only"
    assert report.ok  # not running is no failure of the program
    whole = report.to_json()
    doc = whole["confirm"]
    assert doc["run"]["outcome"] == "not_run" and doc["judge"]["kind"] == "compile_only"
    from json_schema_check import schema_errors

    assert schema_errors(whole, "jax_offload") == []
    assert schema_errors({**whole, "confirm": {**doc, "run": {"why": 3}}}, "jax_offload")  # the schema reads run
    text = check.text(report)
    assert "not run on the chip: run=True needs a TPU chip" in text


def test_run_refuses_a_gpu_topology() -> None:
    from xladoctor.jax import check_offload

    fn, x = _program()
    with pytest.raises(ValueError, match="run=True runs on a TPU chip"):
        check_offload(fn, x, run=True, topology="h100")


def test_the_in_process_runner_compiles_runs_and_compares() -> None:
    """The runner a notebook's run goes through, on the CPU: the same serve() as the worker."""
    import jax

    from xladoctor.oracle.run_here import InProcessRunner, process_holds_chip

    fn, x = _program()
    text = jax.jit(fn).lower(x).as_text()
    jax.devices("cpu")
    assert process_holds_chip("cpu")
    assert not process_holds_chip("tpu")
    reply = InProcessRunner("cpu").judge("stablehlo", text, True, seed=2)
    assert reply["chip"]["platform"] == "cpu"
    assert reply["verdict"]["kind"] == "compiles"
    assert reply["run"]["outcome"] == "right" and reply["run"]["seed"] == 2


def test_a_run_that_fails_makes_the_report_not_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the chip's run says decides ``ok``: a wrong result is a failure (RUN_FAILURES)."""
    pytest.importorskip("libtpu")
    import xladoctor.jax.offload_confirm as offload_confirm
    from xladoctor.jax import check_offload

    def wrong_run(program, result, fn, args, jit_kwargs, kwargs, seed):
        comparison, note = offload_confirm.confirm_program(program, result, fn, args, jit_kwargs, None, kwargs)
        return comparison, note, {"judge": {"kind": "chip", "device": "TPU v5 lite", "ran": True, "says": "x"},
                                  "run": {"outcome": "wrong", "why": "differs"}}

    monkeypatch.setattr(offload_confirm, "run_program", wrong_run)
    fn, x = _program()
    report = check_offload(fn, x, run=True)
    assert not report.ok
