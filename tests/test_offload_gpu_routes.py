"""Every route gives the compiler's answer, on both compilers (issue 19, item 3).

Each test compiles real modules with libtpu (``v5e:2x2``) and XLA:GPU (``h100``, the CUDA PJRT
plugin, compile-only) and checks our prediction against both; a test skips, saying why, where a
compiler is not installed.  What each module pins was read off the compilers' own pass dumps
(``--xla_dump_hlo_pass_re=.*``, 2026-12-03).
"""

from __future__ import annotations

import pytest

from xladoctor.offload import analyze_host_offload
from xladoctor.offload.platform_checks import predict_for_platform
from xladoctor.oracle import compare, prediction_of, shared_worker, unavailable_reason
from xladoctor.syntax.hlo_parser import parse_module

PLATFORMS = {"v5e:2x2": "tpu", "h100": "cuda"}


@pytest.fixture(scope="module", params=list(PLATFORMS))
def compiler(request):
    why = unavailable_reason(request.param)
    if why is not None:
        pytest.skip(f"real compiler for {request.param} unavailable: {why}")
    w = shared_worker(request.param)
    if w.unavailable is not None:
        pytest.skip(f"real compiler for {request.param} unavailable: {w.unavailable}")
    return w, PLATFORMS[request.param]


def _judged(compiler, text: str):
    worker, platform = compiler
    module = parse_module(text, "t")
    result = predict_for_platform(module, analyze_host_offload(module, platform=platform), platform)
    return compare(prediction_of(result, module), worker.compile_hlo(text)), result


# -- AlgebraicSimplifier on each compiler ------------------------------------------------------------

FOLDED = """HloModule fold, entry_computation_layout={(f32[8,128]{1,0})->(f32[8,128]{1,0}, f32[8,128]{1,0})}
ENTRY main {
  p0 = f32[8,128] parameter(0)
  h = f32[8,128] custom-call(p0), custom_call_target="MoveToHost"
  two = f32[] constant(2)
  bc = f32[8,128] broadcast(two), dimensions={}
  d1 = f32[8,128] multiply(h, bc)
  d2 = f32[8,128] multiply(d1, bc)
  back = f32[8,128] custom-call(d2), custom_call_target="MoveToDevice"
  ROOT out = (f32[8,128], f32[8,128]) tuple(d2, back)
}
"""


def test_a_folded_multiply_keeps_the_outer_ones_name_on_both_compilers(compiler):
    """``(h*2)*2 -> h*4`` on both; ReplaceInstruction names the result after ``d2`` (same opcode),
    so the E1200 starts from ``d2`` (campaign seed 100, program 386: ``multiply`` predicted)."""
    comparison, result = _judged(compiler, FOLDED)
    assert result.error is not None and result.error.start == "d2"
    assert comparison.agree is True, comparison.reason


FACTORED = """HloModule factor, entry_computation_layout={(f32[8,128]{1,0}, f32[8,128]{1,0})->(f32[8,128]{1,0}, f32[8,128]{1,0})}
ENTRY main {
  p0 = f32[8,128] parameter(0)
  p1 = f32[8,128] parameter(1)
  h = f32[8,128] custom-call(p0), custom_call_target="MoveToHost"
  c = f32[] constant(C)
  bc = f32[8,128] broadcast(c), dimensions={}
  a = f32[8,128] multiply(h, bc)
  b = f32[8,128] multiply(p1, bc)
  s = f32[8,128] add(a, b)
  back = f32[8,128] custom-call(s), custom_call_target="MoveToDevice"
  ROOT out = (f32[8,128], f32[8,128]) tuple(s, back)
}
"""


@pytest.mark.parametrize("constant", ["3", "0.5"])
def test_factoring_a_common_float_factor_follows_each_compiler(compiler, constant):
    """``h*C + p*C -> (h+p)*C``: libtpu for any float ``C`` (floats as reals), XLA:GPU only for
    ``+-2^k``; the start is the new ``add`` where it factors, ``a`` where it does not."""
    comparison, result = _judged(compiler, FACTORED.replace("constant(C)", f"constant({constant})"))
    factored = compiler[1] == "tpu" or constant == "0.5"
    assert result.error is not None and result.error.start == ("add" if factored else "a")
    assert comparison.agree is True, comparison.reason


# -- the order the compile builds HLO in ----------------------------------------------------------------

DEAD_FIRST = """HloModule gen, entry_computation_layout={(f32[8,128]{1,0})->(f32[8,128]{1,0}, f32[8,128]{1,0}, f32[8,128]{1,0})}
ENTRY main {
  p0 = f32[8,128] parameter(0)
  mth.1 = f32[8,128] custom-call(p0), custom_call_target="MoveToHost"
  add.2 = f32[8,128] add(mth.1, mth.1)
  mtd.3 = f32[8,128] custom-call(add.2), custom_call_target="MoveToDevice"
  neg.4 = f32[8,128] negate(mth.1)
  add.5 = f32[8,128] add(mth.1, add.2)
  ROOT out = (f32[8,128], f32[8,128], f32[8,128]) tuple(mth.1, neg.4, add.5)
}
"""


def test_users_come_in_the_order_the_compile_builds_them_from_the_root(compiler):
    """HLO text reaches the compiler as StableHLO, from which HLO is built as the results need it
    (a DFS from the root): ``neg.4`` before ``add.2``, whose only other user ``mtd.3`` is dead.
    So the MoveToHost's first user, and the E1200's start, is ``neg.4`` (GPU campaign seed 100,
    program 929: ``add.2`` predicted from the text order)."""
    comparison, result = _judged(compiler, DEAD_FIRST)
    assert result.error is not None and result.error.start == "neg.4"
    assert comparison.agree is True, comparison.reason


# -- HostOffloadingPrepare --------------------------------------------------------------------------

def _campaign_record(compiler, spec):
    """``bench/offload_campaign.py``'s judgement of one generated program on ``compiler``."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import offload_campaign

    from xladoctor.oracle.divergences import match_divergence
    from xladoctor.oracle.gpu_divergences import match_gpu_divergence

    worker, platform = compiler
    saved = dict(offload_campaign.TARGET)
    offload_campaign.TARGET.update(lower=platform, match=match_gpu_divergence if platform == "cuda" else match_divergence)
    try:
        return offload_campaign.run_spec("t", spec, worker)
    finally:
        offload_campaign.TARGET.update(saved)


def test_a_move_into_a_host_call_is_elided_by_libtpu_only(compiler):
    """``compute_on("device_host")`` of a value a frontend annotation moved to host, which is also
    returned: libtpu's HostOffloadingPrepare (kElideMoveToHost) removes the MoveToHost, so the
    returned value is device memory; XLA:GPU runs only convert-to-custom-call, the MoveToHost stays
    and the root tuple is E1200 (campaign seed 7 program 329, seed 100 program 963)."""
    spec = {"level": "jax", "args": ["device"], "steps": [("to_host_fe", 0), ("compute_on", 1)],
            "outs": [1, 2], "out_kinds": [None, None]}
    rec = _campaign_record(compiler, spec)
    assert rec.status == "agree", (rec.predicted, rec.actual)
    assert rec.actual.startswith("E1200" if compiler[1] == "cuda" else "compiles"), rec.actual


# -- ShardingRemover's copies ------------------------------------------------------------------------

def test_sharding_markers_leave_copies_that_reorder_a_shared_operands_users(compiler):
    """``return h, h2, h2 * 2`` with ``h`` and ``h2`` two frontend annotations of one argument: libtpu
    CSEs the two MoveToHosts first, then ShardingRemover replaces each ``FuncResultSharding`` by a
    copy that HloDCE removes, each removal moving the last user into its slot, so the multiply
    becomes the first user and the E1200 starts from it (campaign seed 1, program 335: the tuple
    predicted).  XLA:GPU removes the markers before its CSE: the tuple comes first there."""
    spec = {"level": "jax", "args": ["device"], "steps": [("to_host_fe", 0), ("to_host_fe", 0), ("un", "double", 2)],
            "outs": [1, 2, 3], "out_kinds": ["device", "device", "device"]}
    rec = _campaign_record(compiler, spec)
    assert rec.status == "agree", (rec.predicted, rec.actual)
    assert rec.actual.split("from ")[1].startswith("multiply" if compiler[1] == "tpu" else "tuple"), rec.actual


# -- --confirm predicts for the confirming compiler -----------------------------------------------------

def _gpu_compiler() -> None:
    why = unavailable_reason("h100")
    if why is not None:
        pytest.skip(f"real GPU compiler unavailable: {why}")


def test_offload_confirm_on_h100_predicts_with_the_gpu_pipeline(tmp_path, capsys):
    """``h*3 + p*3``: libtpu factors it (E1200 from the new ``add``), XLA:GPU does not (from ``a``);
    ``--confirm --topology h100`` predicts for XLA:GPU, agrees, and says so."""
    import json

    from xladoctor.cli.main import main as cli_main

    _gpu_compiler()
    path = tmp_path / "factor.hlo"
    path.write_text(FACTORED.replace("constant(C)", "constant(3)"))
    assert cli_main(["offload", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["details"]["errors"][0]["start"] == "add"  # TPU, without --confirm
    assert cli_main(["offload", str(path), "--confirm", "--topology", "h100", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["details"]["errors"][0]["start"] == "a"
    confirm = doc["confirm"]
    assert (confirm["platform"], confirm["predicted_for"], confirm["agree"]) == ("cuda", "cuda", True)
    assert confirm["predicted"]["start"] == "a" and confirm["verdict"]["start"] == "a.1"
    assert cli_main(["offload", str(path), "--confirm", "--topology", "h100"]) == 1
    assert "xladoctor predicts   E1200 (starting from a) (for GPU)" in capsys.readouterr().out


def test_check_confirm_on_h100_predicts_with_the_gpu_pipeline(tmp_path, capsys):
    import json

    from xladoctor.cli.main import main as cli_main

    _gpu_compiler()
    path = tmp_path / "factor.hlo"
    path.write_text(FACTORED.replace("constant(C)", "constant(3)"))
    assert cli_main(["check", str(path), "--confirm", "--topology", "h100", "--json"]) == 1
    entry = json.loads(capsys.readouterr().out)["files"][0]
    assert entry["offload"]["details"]["errors"][0]["start"] == "a"
    assert (entry["confirm"]["predicted_for"], entry["confirm"]["agree"]) == ("cuda", True)
    assert cli_main(["check", str(path), "--confirm", "--json"]) == 1  # libtpu: predicted for TPU, agrees too
    entry = json.loads(capsys.readouterr().out)["files"][0]
    assert (entry["offload"]["details"]["errors"][0]["start"], entry["confirm"]["predicted_for"]) == ("add", "tpu")
    assert entry["confirm"]["agree"] is True


# -- unpinned_host on the HLO route -------------------------------------------------------------------

def test_an_unpinned_host_argument_keeps_its_memory_kind_on_the_hlo_route(tmp_path, capsys):
    """``host_params`` seed 15: an ``unpinned_host`` argument computed on, a ``pinned_host`` one
    returned to device (E1200).  After the host fix libtpu fails the program later (an S(6)
    argument computed on); the HLO route compiled the fixed module as if the argument were on
    device (the converter drops S(6)) and said ``compiles``.  Both routes now give libtpu's answer."""
    import json
    import sys
    from pathlib import Path

    from xladoctor.cli.main import main as cli_main

    why = unavailable_reason("v5e:2x2")
    if why is not None:
        pytest.skip(f"real TPU compiler unavailable: {why}")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import user_programs

    prog = user_programs.build("host_params", 15)
    assert prog.choices["kinds"][0] == "unpinned_host" and prog.choices["how"][0] == "compute"
    lowered = prog.lower()
    hlo, mlir = tmp_path / "x.hlo", tmp_path / "x.mlir"
    hlo.write_text(lowered.as_text("hlo"))
    mlir.write_text(lowered.as_text())
    fixed = tmp_path / "fixed.hlo"
    cli_main(["offload", str(hlo), "--stablehlo", str(mlir), "--fix", "host", "-o", str(fixed)])
    capsys.readouterr()
    assert "S(6)" in fixed.read_text().split("\n", 1)[0]
    cli_main(["offload", str(fixed), "--confirm", "--json"])
    confirm = json.loads(capsys.readouterr().out)["confirm"]
    assert confirm["verdict"]["kind"] == "xla_error" and "S(6)" in confirm["verdict"]["message"]
    assert confirm["agree"] is True
    # The StableHLO route: the same fix made in Python, compiled by libtpu.
    import jax

    host = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    device = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    refixed = jax.jit(prog.fn, out_shardings=(device, device, host)).trace(*prog.args).lower(lowering_platforms=("tpu",))
    verdict = shared_worker("v5e:2x2").compile_stablehlo(refixed.as_text())
    assert verdict.kind == "xla_error" and "S(6)" in verdict.message
