"""The real TPU compiler back end (xladoctor.oracle) against real inputs.

Every compile here is a real one: libtpu's compile-only client for a TPU topology on this
CPU machine.  Where libtpu cannot run (no ``[tpu]`` extra, not Linux x86-64) the tests that
need it skip, and pytest's ``-rs`` summary says why.  One worker serves the whole session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.cli.main import main as cli_main
from xladoctor.oracle import (
    INSTALL_HINT,
    OracleWorker,
    Prediction,
    Verdict,
    compare,
    same_instruction,
    shared_worker,
    stem,
    unavailable_reason,
)
from xladoctor.oracle.verdict import crash_line, from_error_text

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "src" / "xladoctor" / "examples"
sys.path.insert(0, str(ROOT / "examples"))  # frontend_ops: annotations without JAX's <host> type
E1200_HLO = (EXAMPLES / "e1200_offloaded_activation.hlo").read_text()
CLEAN_HLO = (EXAMPLES / "offload_to_host_output_clean.hlo").read_text()
XLA_E1200_TEXT = ("E1200: CompileTimeHostOffloadOutputLocationMismatch:\nTensor which is moved to host (starting "
                  "from tuple.1) is returned from the entry computation but the layout for this output is not set "
                  "to host memory.\nSee https://openxla.org/xla/errors/error_1200 for more details.")


@pytest.fixture(scope="session")
def worker():
    why = unavailable_reason()
    if why is not None:
        pytest.skip(f"real TPU compiler unavailable: {why}")
    w = shared_worker()
    if w.unavailable is not None:
        pytest.skip(f"real TPU compiler unavailable: {w.unavailable}")
    return w


# -- verdicts from real compiles ------------------------------------------------------------

def test_e1200_from_hlo_text_is_xlas_exact_error(worker):
    v = worker.compile_hlo(E1200_HLO)
    assert v.kind == "e1200" and v.is_error
    assert v.message == XLA_E1200_TEXT
    assert v.start == "tuple.1" and v.code == "E1200" and v.status == "INVALID_ARGUMENT"
    assert v.stage == "compile" and v.topology == "v5e:2x2"


def test_clean_hlo_compiles_with_host_output_and_reports_its_executable(worker):
    v = worker.compile_hlo(CLEAN_HLO)
    assert v.kind == "compiles", v.summary()
    # the memory kind put back from S(5) reached the compiler: the output lives on the host
    assert v.entry_computation_layout.endswith("->(f32[16,256]{1,0:T(8,128)S(5)}, f32[16,256]{1,0:T(8,128)})")
    assert v.output_memory_kinds == ["pinned_host", "device"]
    assert v.input_formats == ["{1,0:T(8,128)}", "{1,0:T(8,128)}"]
    assert v.memory["host_output_size_in_bytes"] == 16 * 256 * 4
    assert v.memory["argument_size_in_bytes"] >= (16 * 256 + 256 * 256) * 4
    assert v.optimized_hlo.startswith("HloModule jit_train_step, is_scheduled=true")


def test_optimised_text_only_when_asked(worker):
    """--confirm compares verdicts only: the optimised module does not cross the socket."""
    v = worker.compile_hlo(CLEAN_HLO, want_text=False)
    assert v.kind == "compiles" and v.optimized_hlo is None
    assert v.entry_computation_layout.endswith("->(f32[16,256]{1,0:T(8,128)S(5)}, f32[16,256]{1,0:T(8,128)})")
    assert worker.compile_hlo(CLEAN_HLO).optimized_hlo.startswith("HloModule jit_train_step, is_scheduled=true")


def test_dropping_the_host_memory_space_turns_the_clean_module_into_e1200(worker):
    """The S(5) -> mhlo.memory_kind step is what makes the difference, not the module body."""
    device_only = CLEAN_HLO.replace("{1,0:T(8,128)S(5)}", "{1,0:T(8,128)}")
    assert device_only != CLEAN_HLO
    assert worker.compile_hlo(device_only).kind == "e1200"


def _offloaded_program():
    """A jax program whose first output is computed from a tensor offloaded to host, its input
    spec, and the host / device shardings that make it compile: (fn, x, host, device)."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from frontend_ops import place_to_host
    from jax.sharding import SingleDeviceSharding

    dev = jax.devices()[0]

    def offloaded(x):
        return jnp.sin(place_to_host(x * 2)), x + 1

    return (offloaded, jax.ShapeDtypeStruct((8, 128), jnp.float32),
            SingleDeviceSharding(dev, memory_kind="pinned_host"), SingleDeviceSharding(dev, memory_kind="device"))


def test_stablehlo_of_a_jax_program_compiles_or_fails_as_jax_would(worker):
    jax = pytest.importorskip("jax")
    offloaded, x, host, device = _offloaded_program()
    bad = jax.jit(offloaded).trace(x).lower(lowering_platforms=("tpu",)).as_text()
    v = worker.compile_stablehlo(bad)
    assert v.kind == "e1200" and v.start == "sine.1"
    good = jax.jit(offloaded, out_shardings=(host, device)).trace(x).lower(lowering_platforms=("tpu",)).as_text()
    v = worker.compile_stablehlo(good)
    assert v.kind == "compiles" and v.output_memory_kinds == ["pinned_host", "device"]


def test_compile_jitted_lowers_the_program_for_tpu_and_gives_the_same_verdicts(worker):
    jax = pytest.importorskip("jax")
    from xladoctor.jax import compile_jitted

    offloaded, x, host, device = _offloaded_program()
    v = compile_jitted(jax.jit(offloaded), x)
    assert v.kind == "e1200" and v.start == "sine.1"
    v = compile_jitted(offloaded, x, jit_kwargs={"out_shardings": (host, device)})
    assert v.kind == "compiles" and v.output_memory_kinds == ["pinned_host", "device"]


def test_copy_has_no_stablehlo_form_and_is_reported_not_guessed(worker):
    text = "HloModule m\nENTRY e {\n  p = f32[8,128]{1,0} parameter(0)\n  ROOT c = f32[8,128]{1,0} copy(p)\n}\n"
    v = worker.compile_hlo(text)
    assert v.kind == "unsupported" and not v.decided
    assert "mhlo.copy" in v.reason and v.stage == "convert"


def test_xla_parser_rejection_is_an_xla_error_at_parse(worker):
    v = worker.compile_hlo("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n  ROOT n = f32[8]{0} nope(p)\n}\n")
    assert v.kind == "xla_error" and v.stage == "parse"
    assert v.status == "INVALID_ARGUMENT" and "Syntax error" in v.message


def test_a_check_failure_is_isolated_and_the_worker_comes_back(worker):
    # XLA's parser CHECK-fails on a tail padding alignment of 0 (layout.h: value >= 1).
    restarts = worker.restarts
    v = worker.compile_hlo("HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:L(0)} parameter(0)\n}\n")
    assert v.kind == "crash" and v.is_error
    assert "Check failed: value >= 1" in v.check_line
    assert worker.restarts == restarts + 1
    assert worker.compile_hlo(E1200_HLO).kind == "e1200"


def test_timeout_kills_the_compile_and_the_next_one_runs(worker):
    with OracleWorker(timeout=0.001) as w:  # the start-up is not counted, each compile is
        v = w.compile_hlo(CLEAN_HLO)
        assert v.kind == "timeout" and "no verdict within" in v.reason
        w.timeout = 120
        assert w.compile_hlo(CLEAN_HLO).kind == "compiles"


@pytest.mark.parametrize("topology", ["v4:2x2x1"])  # one other generation: each costs a libtpu start
def test_other_generations(worker, topology):
    with OracleWorker(topology) as w:
        v = w.compile_hlo(E1200_HLO)
    assert v.kind == "e1200" and v.topology == topology


def test_batch_keeps_order_across_a_crash(worker):
    crash = "HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{1,0:L(0)} parameter(0)\n}\n"
    kinds = [v.kind for v in worker.compile_many([("hlo", E1200_HLO), ("hlo", crash), ("hlo", CLEAN_HLO)])]
    assert kinds == ["e1200", "crash", "compiles"]


# -- comparison and renaming rule -----------------------------------------------------------

@pytest.mark.parametrize("predicted,actual,opcode,number,same", [
    ("tuple.7", "tuple.1", "tuple", None, True),
    ("neg", "neg.1", "negate", None, True),
    ("dynamic_update_slice.1", "dynamic-update-slice.0", "dynamic-update-slice", None, True),
    ("sin.5", "sine.1", "sine", None, True),
    ("ws_host.1", "Arg_0.5", "parameter", 0, True),
    ("ws_host.1", "Arg_1.5", "parameter", 0, False),
    ("multiply.6", "tuple.1", "multiply", None, False),
    ("sin.5", "cosine.1", "sine", None, False),
])
def test_renaming_rule(predicted, actual, opcode, number, same):
    assert same_instruction(predicted, actual, opcode, number) is same


def test_disagreement_is_flagged_against_a_real_verdict(worker):
    v = worker.compile_hlo(E1200_HLO)
    assert compare(Prediction("e1200", "tuple.7", "tuple"), v).agree is True
    missed = compare(Prediction("compiles"), v)
    assert missed.agree is False and "E1200 (starting from tuple.1)" in missed.reason
    wrong_start = compare(Prediction("e1200", "multiply.6", "multiply"), v)
    assert wrong_start.agree is False and "walk starts differ" in wrong_start.reason
    assert compare(Prediction("compiles"), Verdict("unavailable", reason="x")).agree is None


def test_error_text_classification():
    v = from_error_text("INVALID_ARGUMENT: " + XLA_E1200_TEXT, "compile")
    assert (v.kind, v.start, v.code, v.status) == ("e1200", "tuple.1", "E1200", "INVALID_ARGUMENT")
    other = from_error_text("RESOURCE_EXHAUSTED: E1000: Ran out of memory", "compile")
    assert (other.kind, other.code) == ("xla_error", "E1000")
    assert crash_line("noise\nF1201 15:38:13.827621   14230 layout.h:386] Check failed: value >= 1 (0 vs. 1)\n"
                      "*** Check failure stack trace: ***") .endswith("Check failed: value >= 1 (0 vs. 1)")


# -- commands -------------------------------------------------------------------------------

def test_offload_confirm_text(worker, capsys):
    rc = cli_main(["offload", str(EXAMPLES / "e1200_offloaded_activation.hlo"), "--confirm"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "confirm with the real TPU compiler (v5e:2x2, from hlo text):" in out
    assert "TPU compiler says    E1200 (starting from tuple.1)" in out
    assert "agree: same verdict (start tuple.7 ~ tuple.1)" in out


def test_offload_confirm_json(worker, capsys):
    rc = cli_main(["offload", str(EXAMPLES / "offload_to_host_output_clean.hlo"), "--confirm", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    c = doc["confirm"]
    assert c["available"] is True and c["agree"] is True and c["input"] == "hlo"
    assert c["predicted"]["kind"] == "compiles" and c["verdict"]["kind"] == "compiles"
    assert c["verdict"]["optimized_hlo"] is None and c["verdict"]["output_memory_kinds"] == ["pinned_host", "device"]


def test_check_confirm_counts_a_compiler_rejection(worker, tmp_path, capsys):
    """check --confirm on a module the compiler rejects: exit 1 even if nothing is predicted."""
    (tmp_path / "bad.hlo").write_text(E1200_HLO)
    (tmp_path / "good.hlo").write_text(CLEAN_HLO)
    html = tmp_path / "report.html"
    rc = cli_main(["check", str(tmp_path / "bad.hlo"), str(tmp_path / "good.hlo"), "--confirm", "--json",
                   "--html", str(html)])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1
    page = html.read_text()
    assert page.count("confirm with the real TPU compiler (v5e:2x2, from hlo text):") == 2
    assert "TPU compiler says    E1200 (starting from tuple.1)" in page
    by_name = {Path(f["path"]).name: f for f in doc["files"]}
    assert by_name["bad.hlo"]["confirm"]["verdict"]["kind"] == "e1200"
    assert by_name["good.hlo"]["confirm"]["verdict"]["kind"] == "compiles"
    assert all(f["confirm"]["agree"] is True for f in by_name.values())


def test_check_offload_confirm_from_python(worker):
    pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from frontend_ops import place_to_device, place_to_host

    from xladoctor.jax import check_offload

    x = jnp.ones((8, 128), jnp.float32)
    bad = check_offload(lambda x: (jnp.sin(place_to_host(x * 2)), x + 1), x, confirm=True)
    assert bad.confirmation.verdict.kind == "e1200" and not bad.ok
    assert "real TPU compiler (v5e:2x2): E1200 (starting from sine.1)" in str(bad)
    assert bad.to_json()["confirm"]["verdict"]["start"] == "sine.1"
    good = check_offload(lambda x: (place_to_device(jnp.sin(place_to_host(x * 2))), x + 1), x, confirm=True)
    assert good.confirmation.verdict.kind == "compiles" and good.confirmation.agree is True and good.ok


# -- without the extra ------------------------------------------------------------------------

def test_unavailable_reason_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.delenv("XLADOCTOR_NO_TPU_ORACLE", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "libtpu" else real(name, *a))
    why = unavailable_reason()
    missing = next((m for m in ("jax", "jaxlib") if real(m) is None), "libtpu")  # the first piece it names
    if sys.platform.startswith("linux"):
        assert why == f"{missing} is not installed; {INSTALL_HINT}"
    v = OracleWorker().compile_hlo(E1200_HLO)
    assert v.kind == "unavailable" and v.reason == why


def test_confirm_without_the_compiler_is_a_one_line_note():
    env = {**os.environ, "XLADOCTOR_NO_TPU_ORACLE": "1"}
    run = subprocess.run([sys.executable, "-m", "xladoctor", "offload", str(EXAMPLES / "e1200_offloaded_activation.hlo"),
                          "--confirm"], check=False, capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 1  # the prediction alone still decides
    assert run.stderr.strip().splitlines() == [
        "note: --confirm skipped: the real TPU compiler is switched off (XLADOCTOR_NO_TPU_ORACLE is set)"]
    assert "real compiler: not run" in run.stdout


def test_the_compiled_tpu_module_is_recognised_as_tpu(worker):
    from xladoctor.triage.provenance import detect

    text = worker.compile_hlo(CLEAN_HLO).optimized_hlo
    prov = detect(text, None)
    assert (prov.platform, prov.stage) == ("tpu", "compiled")
    assert "TPU backend_config (scoped_memory_configs)" in prov.evidence


@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")  # the child runs no jax
def test_one_worker_shared_by_threads_and_a_forked_process(worker):
    """check may run files on threads or forked processes: each gets a correct verdict."""
    import multiprocessing
    import threading

    kinds: list[str] = []
    threads = [threading.Thread(target=lambda: kinds.append(worker.compile_hlo(E1200_HLO).kind)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert kinds == ["e1200"] * 3
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_compile_in_child, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=180) == "compiles"
    finally:
        child.join(timeout=30)
        if child.is_alive():
            child.kill()
    assert worker.compile_hlo(E1200_HLO).kind == "e1200"  # the parent's worker is untouched


def _compile_in_child(queue) -> None:
    queue.put(shared_worker().compile_hlo(CLEAN_HLO).kind)


def test_offload_confirm_compiles_the_stablehlo_when_given(worker, tmp_path, capsys):
    """--stablehlo: the program JAX would compile (memory kinds included) goes to the compiler."""
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from frontend_ops import place_to_host

    def offloaded(x):
        return jnp.sin(place_to_host(x * 2)), x + 1

    lowered = jax.jit(offloaded).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(
        lowering_platforms=("tpu",))
    (tmp_path / "pre.hlo").write_text(lowered.as_text("hlo"))
    (tmp_path / "main.mlir").write_text(lowered.as_text())
    rc = cli_main(["offload", str(tmp_path / "pre.hlo"), "--stablehlo", str(tmp_path / "main.mlir"),
                   "--confirm", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1  # the compiler rejects it, whatever is predicted
    c = doc["confirm"]
    assert c["input"] == "stablehlo" and c["verdict"]["kind"] == "e1200" and c["verdict"]["start"] == "sine.1"


def test_hlo_route_and_jaxs_stablehlo_give_the_same_verdicts(worker):
    """The four example programs and their fixes, compiled twice: from the HLO text with the
    memory kinds put back as S(5) (what `offload --confirm` sends) and from JAX's own StableHLO.
    Same kind every time; the HLO route keeps the input's names (the starts the issue lists)."""
    pytest.importorskip("jax")
    from offload_programs import PROGRAMS

    from xladoctor.jax.lowering import lower_program
    from xladoctor.syntax.hlo_printer import print_module

    starts = {}
    for name, make in PROGRAMS.items():
        p = make()
        for fn in (p.fn, p.fixed_fn):
            program = lower_program(fn, p.args, p.jit_kwargs, "tpu")
            via_hlo = worker.compile_hlo(print_module(program.module))
            via_stablehlo = worker.compile_stablehlo(program.lowered.as_text())
            assert via_hlo.kind == via_stablehlo.kind == ("e1200" if fn is p.fn else "compiles"), name
            if fn is p.fn:
                starts[name] = via_hlo.start
                start = next((i for i in program.module.instructions() if stem(i.name) == stem(via_hlo.start)), None)
                opcode = start.opcode.value if start is not None else None
                number = start.parameter_number if start is not None else None
                assert same_instruction(via_hlo.start, via_stablehlo.start, opcode, number), name
    assert starts == {"returned_after_compute": "sin.1", "scanned_layers": "dynamic_update_slice.0",
                      "param_offload_update": "ws_host.1", "nested_scans": "dynamic_update_slice.0"}


def test_a_client_libtpu_refuses_is_unavailable_with_libtpus_reason(worker):
    with OracleWorker("v99:1x1") as w:
        v = w.compile_hlo(E1200_HLO)
    assert v.kind == "unavailable"
    assert v.reason == ("libtpu could not start a v99:1x1 compile-only client: "
                        "INVALID_ARGUMENT: Invalid TPU external name: TPU v99")
