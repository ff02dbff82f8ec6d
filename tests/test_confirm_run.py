"""``--confirm --run``: compile on the local chip, run once, compare with the CPU (issue 34 item 5).

CI has no TPU.  What can run here runs for real: the worker (:mod:`xladoctor.oracle.run_main`)
with the CPU playing the chip -- XLA's converter, the compile, placement, the run, the CPU
reference and the comparison -- and the commands on top of it.  The chip's own answers are the
recorded round (``tests/data/chip/round6-confirm-run.jsonl``, tests/test_chip_confirm_run.py).
Only the worker's death and hang are played by a stand-in process (``chip_stand_in.py``): the
boundary the parent watches.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from json_schema_check import schema_errors
from process_group_report import AS_A_TERMINAL_STARTS_IT, STACKS_ON_SIGUSR1, still_running
from xladoctor.cli.main import main
from xladoctor.oracle import run_chip
from xladoctor.oracle.confirm import Confirmation, is_error, judge_of, run_document
from xladoctor.oracle.run_chip import ChipRunner
from xladoctor.oracle.run_judge import compare_leaves, judged, random_inputs
from xladoctor.oracle.run_text import run_line
from xladoctor.report.confirm import confirm_lines
from xladoctor.syntax.hlo_parser import parse_module

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
CLEAN = EXAMPLES / "offload_to_host_output_clean.hlo"
STAND_IN = [sys.executable, str(Path(__file__).with_name("chip_stand_in.py"))]


def cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def cpu_runner():
    if importlib.util.find_spec("jax") is None:  # not imported here: the worker imports it
        pytest.skip("jax is not installed: the worker compiles and runs with it (pip install 'xladoctor[jax]')")
    with ChipRunner("cpu", timeout=180) as runner:
        yield runner


@pytest.fixture
def cpu_as_chip(monkeypatch, cpu_runner):
    """The commands' chip path with the CPU as the chip (the worker itself is real)."""
    monkeypatch.setattr(run_chip, "chip_present", lambda: True)
    monkeypatch.setattr(run_chip, "shared_runner", lambda target="tpu": cpu_runner)


# -- the worker, for real, with the CPU as the chip ---------------------------------------------

def test_the_cpu_half_compiles_runs_and_compares_for_real(cpu_runner):
    reply = cpu_runner.judge("hlo", E1200.read_text(), run=True, seed=3)
    assert reply["chip"]["platform"] == "cpu"
    assert reply["verdict"]["kind"] == "compiles"
    run = reply["run"]
    assert run["outcome"] == "right" and run["inputs"] == 2 and run["seed"] == 3
    assert run["compare"] == {"same": True, "wrong_leaves": [], "n_wrong_leaves": 0, "worst_fraction": 0.0}


def test_without_run_the_chip_only_compiles(cpu_runner):
    reply = cpu_runner.judge("hlo", CLEAN.read_text(), run=False)
    assert reply["verdict"]["kind"] == "compiles" and "run" not in reply


def test_a_module_xla_cannot_read_is_a_parse_verdict_and_is_not_run(cpu_runner):
    reply = cpu_runner.judge("hlo", "HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) oops }", run=True)
    assert reply["verdict"]["kind"] == "xla_error" and reply["verdict"]["stage"] == "parse"
    assert "run" not in reply


# -- the judgement ------------------------------------------------------------------------------

def test_inputs_are_fixed_by_the_seed_and_typed():
    a = random_inputs([((2, 3), "float32"), ((4,), "int32"), ((2,), "bool")], 7)
    b = random_inputs([((2, 3), "float32"), ((4,), "int32"), ((2,), "bool")], 7)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert [x.dtype for x in a] == [np.float32, np.int32, np.bool_]
    assert not np.array_equal(a[0], random_inputs([((2, 3), "float32")], 8)[0])


def test_wrong_data_names_the_output_and_its_largest_error():
    want = [np.ones((4, 4), np.float32), np.arange(8, dtype=np.float32)]
    got = [want[0].copy(), want[1].copy()]
    got[1][3] += 2.0
    res = judged("ok", got, "", "ok", want, "")
    assert res["outcome"] == "wrong"
    doc = run_document(res, None)
    assert doc["wrong"] == [{"output": 1, "dtype": "float32", "shape": [8], "fraction_wrong": 0.125,
                             "max_abs_diff": 2.0, "max_rel_to_scale": 2.0 / 7.0}]
    line = run_line(doc)
    assert line.startswith("the chip ran it: WRONG DATA: output 1 (float32[8])") and "max error 2 (28.6%" in line
    # with the module at hand the output has the name every report gives it: its ShapeIndex
    nested = parse_module("HloModule m\n\nENTRY main {\n  a = f32[4,4]{1,0} parameter(0)\n"
                          "  b = f32[8]{0} parameter(1)\n  t = (f32[8]{0}) tuple(b)\n"
                          "  ROOT r = (f32[4,4]{1,0}, (f32[8]{0})) tuple(a, t)\n}\n")
    named = run_document(res, None, nested)
    assert named["wrong"][0]["output"] == 1 and named["wrong"][0]["shape_index"] == [1, 0]
    assert run_line(named).startswith("the chip ran it: WRONG DATA: output {1,0} (float32[8])")
    assert compare_leaves(want, want)["same"]
    # inside the tolerance the campaign uses under 'highest' precision: right
    assert judged("ok", [want[1] * (1 + 1e-4)], "", "ok", [want[1]], "")["outcome"] == "right"


@pytest.mark.parametrize(("stage", "error", "outcome"), [
    ("run", "jax.errors.JaxRuntimeError: INTERNAL: E0200: RuntimeUnexpectedCoreHalt: Core halted unexpectedly", "halt"),
    ("run", "jax.errors.JaxRuntimeError: INTERNAL: something else", "runtime_error"),
    ("call", "ValueError: Computation was compiled for input layouts that disagree", "refused"),
])
def test_a_halt_a_runtime_error_and_a_refusal_are_told_apart(stage, error, outcome):
    res = judged(stage, None, error, "ok", [np.zeros(2)], "")
    assert res["outcome"] == outcome
    doc = {"available": True, "verdict": {"kind": "compiles"}, "run": run_document(res, None)}
    assert is_error(Confirmation.from_json(doc))


# -- the boundary: a worker that dies or hangs ----------------------------------------------------

def test_a_worker_that_dies_in_the_run_is_a_crash_with_its_check_line_and_is_replaced():
    with ChipRunner("cpu", timeout=60, command=[*STAND_IN, "abort-run"]) as runner:
        reply = runner.judge("hlo", "m", run=True)
        assert reply["verdict"]["kind"] == "compiles"  # the compile had answered before the run
        assert reply["run"]["outcome"] == "crash"
        assert reply["run"]["check_line"] == "F0000 stand_in.cc:1] Check failed: the stand-in aborts"
        assert runner._proc is None  # killed and forgotten; the next request starts a fresh one
        again = runner.judge("hlo", "m", run=False)
        assert again["verdict"]["kind"] == "compiles"


def test_a_worker_that_dies_in_the_compile_is_a_crash_verdict():
    with ChipRunner("cpu", timeout=60, command=[*STAND_IN, "abort-compile"]) as runner:
        reply = runner.judge("hlo", "m", run=True)
    assert reply["verdict"]["kind"] == "crash" and "run" not in reply
    assert reply["verdict"]["check_line"].endswith("Check failed: the stand-in aborts")


def test_a_worker_that_hangs_is_killed_after_the_timeout():
    with ChipRunner("cpu", timeout=2, command=[*STAND_IN, "hang-run"]) as runner:
        proc = None
        runner.start()
        proc = runner._proc
        reply = runner.judge("hlo", "m", run=True)
        assert reply["run"]["outcome"] == "timeout"
        assert proc is not None and proc.poll() is not None  # the hung process is gone


def test_a_halt_poisons_the_worker_so_the_next_request_gets_a_fresh_one():
    with ChipRunner("cpu", timeout=60, command=[*STAND_IN, "halt-run"]) as runner:
        reply = runner.judge("hlo", "m", run=True)
        assert reply["run"]["outcome"] == "halt" and runner._proc is None


# -- the commands -------------------------------------------------------------------------------

def test_run_without_a_chip_is_one_line_and_exit_2(monkeypatch):
    monkeypatch.setenv("XLADOCTOR_NO_CHIP", "1")
    rc, out, err = cli("offload", E1200, "--run")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "--run needs a TPU attached to this machine" in err
    rc, _, err = cli("check", EXAMPLES, "--run")
    assert rc == 2 and "--run needs a TPU" in err


def test_run_for_a_gpu_target_is_a_usage_error(monkeypatch):
    monkeypatch.setattr(run_chip, "chip_present", lambda: True)
    rc, _, err = cli("offload", E1200, "--run", "--topology", "h100")
    assert rc == 2 and "h100 is a GPU target" in err


def test_offload_run_text_and_json_say_the_chip_judged(cpu_as_chip):
    rc, out, _ = cli("offload", CLEAN, "--confirm", "--run", "--seed", "5")
    assert rc == 0, out
    assert "  judge: cpu chip, compiled and ran\n" in out
    assert "  the chip ran it: right (every output as the CPU's, inputs from seed 5)\n" in out
    rc, out, _ = cli("offload", CLEAN, "--run", "--json")  # --run implies --confirm
    doc = json.loads(out)
    assert not schema_errors(doc, "offload")
    confirm = doc["confirm"]
    assert confirm["judge"] == {"kind": "chip", "device": "cpu", "ran": True, "says": "cpu chip, compiled and ran"}
    assert confirm["run"]["outcome"] == "right" and confirm["run"]["seed"] == 0 and confirm["topology"] == "cpu"


def test_check_run_says_the_chip_judged_each_module(cpu_as_chip):
    rc, out, _ = cli("check", EXAMPLES, "--run")
    assert rc == 1  # the E1200 example: the CPU, playing the chip, compiles what the TPU rejects
    assert out.count("judge: cpu chip, compiled and ran") == 2
    assert out.count("the chip ran it: right") == 2


def test_confirm_without_a_chip_says_libtpu_compile_only_judged(monkeypatch):
    from xladoctor.oracle import available

    if not available():
        pytest.skip("the libtpu compile-only oracle is not installed here")
    monkeypatch.setenv("XLADOCTOR_NO_CHIP", "1")
    rc, out, _ = cli("offload", E1200, "--confirm")
    assert rc == 1 and "  judge: libtpu compile-only, v5e:2x2 topology\n" in out
    assert "the chip ran it" not in out
    _, out, _ = cli("offload", E1200, "--confirm", "--json")
    doc = json.loads(out)
    assert not schema_errors(doc, "offload")
    assert doc["confirm"]["judge"] == {"kind": "compile_only", "device": None, "ran": False,
                                       "says": "libtpu compile-only, v5e:2x2 topology"}
    _, out, _ = cli("offload", E1200, "--confirm", "--format", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["ruleId"] == "E1200" and result["properties"]["judge"] == "libtpu compile-only, v5e:2x2 topology"


def test_a_chip_another_process_holds_leaves_the_compile_only_judge_and_says_why(monkeypatch):
    from xladoctor.oracle import available

    if not available():
        pytest.skip("the libtpu compile-only oracle is not installed here")
    busy = ChipRunner("cpu", timeout=60, command=[*STAND_IN, "no-chip"])
    monkeypatch.setattr(run_chip, "chip_present", lambda: True)
    monkeypatch.setattr(run_chip, "shared_runner", lambda target="tpu": busy)
    rc, out, _ = cli("offload", E1200, "--run", "--json")
    confirm = json.loads(out)["confirm"]
    assert confirm["judge"]["kind"] == "compile_only" and confirm["verdict"]["kind"] == "e1200"
    assert confirm["run"]["outcome"] == "not_run" and "multi-process lockfile" in confirm["run"]["why"]
    assert rc == 1


def test_a_failed_run_is_a_finding_that_names_its_judge_in_sarif_too():
    from xladoctor.findings.from_offload import confirm_finding
    from xladoctor.oracle.comparison import Prediction, compare
    from xladoctor.oracle.verdict import Verdict

    c = compare(Prediction("compiles"), Verdict("compiles", topology="TPU v5 lite"))
    run = run_document(judged("run", None, "INTERNAL: E0200: RuntimeUnexpectedCoreHalt: Core halted", "ok", [], ""),
                       None)
    doc = {"available": True, "topology": "TPU v5 lite", "input": "hlo", "predicted_for": "tpu", **c.to_json(),
           "judge": judge_of({"device_kind": "TPU v5 lite"}, True).to_json(), "run": run}
    assert not schema_errors(doc, "confirm")
    confirmation = Confirmation.from_json(doc)  # as a worker's document is read back, once
    assert confirmation.to_json() == doc
    f = confirm_finding(confirmation, "m.hlo")
    assert f is not None and f.code == "E0200" and f.severity.value == "error"
    assert f.message == "the chip ran it: HALT: the TPU core halted (TPU v5 lite chip, compiled and ran)"
    assert f.fields["judge"] == "TPU v5 lite chip, compiled and ran"
    persian = "\n".join(confirm_lines(confirmation, lang="fa"))
    assert "تراشهٔ TPU v5 lite، کامپایل و اجرا شد" in persian and "the chip ran it" not in persian


_DRIVER = AS_A_TERMINAL_STARTS_IT + STACKS_ON_SIGUSR1 + """
import sys
from xladoctor.oracle import run_chip
runner = run_chip.ChipRunner("cpu", timeout=300, command=[sys.executable, {stand_in!r}, "hang-run"])
run_chip.chip_present = lambda: True
run_chip.shared_runner = lambda target="tpu": runner
from xladoctor.cli.main import main
sys.exit(main(["offload", {example!r}, "--run"]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and PR_SET_PDEATHSIG: Linux")
@pytest.mark.parametrize(("sig", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_ctrl_c_and_sigterm_end_the_worker_in_the_middle_of_a_run(sig, code):
    """A real signal to a real ``offload --run`` whose worker is running (here: hanging) the module:
    xladoctor exits 143 / 130 and the worker is gone (docs/robustness.md)."""
    import os
    import signal
    import subprocess
    import time

    psutil = pytest.importorskip("psutil")
    code_text = _DRIVER.format(stand_in=STAND_IN[1], example=str(E1200))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen([sys.executable, "-c", code_text], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    worker = None
    while worker is None and time.monotonic() < deadline:
        # the stand-in's own command line (a fork of the driver not yet exec'd has the driver's,
        # whose code names the stand-in too)
        kids = [k for k in psutil.Process(proc.pid).children(recursive=True)
                if k.cmdline()[1:3] == [STAND_IN[1], "hang-run"]]
        worker = kids[0] if kids else None
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    assert worker is not None, "the worker never started"
    time.sleep(0.5)  # the request is in flight: the worker has said "compiled" and hangs in the run
    if sig == "SIGINT":
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole foreground group
    else:
        os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"offload --run still running 30 s after {sig}\n{still_running(proc)}")
    _, alive = psutil.wait_procs([worker], timeout=2)
    alive = [k for k in alive if k.is_running() and k.status() != psutil.STATUS_ZOMBIE]
    for k in alive:
        k.kill()
    assert not alive, "the chip worker outlived xladoctor"
    assert proc.returncode == code
