"""One input resolver (issue 35, item 1): every command reads an HLO file with the same StableHLO
(``--stablehlo FILE``, else ``NAME.mlir`` beside it), refuses one that is not the same program's,
says which one it used, and so gives the same verdict whichever command reads the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from json_schema_check import schema_errors

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV = jax.devices()[0]
HOST = SingleDeviceSharding(DEV, memory_kind="pinned_host")


def _run(*argv, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          env=env, timeout=120, cwd=cwd)


def _json(p):
    return json.loads(p.stdout) if p.stdout.strip() else None


def _e1200(platform="tpu"):
    """A pinned_host argument computed on and returned to device memory: E1200 on TPU, and its
    as_text("hlo") says nothing of memory kinds."""
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=HOST)
    return jax.jit(lambda v: v * 2.0).trace(x).lower(lowering_platforms=(platform,))


def _other():
    y = jax.ShapeDtypeStruct((4, 16), jnp.float32)
    return jax.jit(lambda v: (v + 1.0, v)).trace(y).lower(lowering_platforms=("tpu",))


@pytest.fixture(scope="module")
def lowered():
    return {"e1200": _e1200(), "other": _other()}


def _pair(folder, low, mlir=None):
    folder.mkdir(exist_ok=True)
    (folder / "step.hlo").write_text(low.as_text("hlo"))
    if mlir is not None:
        (folder / "step.mlir").write_text(mlir)
    return folder / "step.hlo"


def test_offload_reads_the_stablehlo_beside_the_file_as_check_does(tmp_path, lowered):
    hlo = _pair(tmp_path, lowered["e1200"], lowered["e1200"].as_text())
    off = _run("offload", hlo, "--json")
    doc = _json(off)
    assert off.returncode == 1 and doc["details"]["outcome"] == "E1200", off.stderr
    assert doc["stablehlo"] == {"path": str(tmp_path / "step.mlir"), "found": "beside"}
    assert schema_errors(doc, "offload") == []
    chk = _run("check", "-j1", "--json", hlo)
    entry = _json(chk)["files"][0]
    assert chk.returncode == 1 and entry["offload"]["details"]["outcome"] == "E1200"
    assert entry["offload"]["stablehlo"] == doc["stablehlo"]
    text = _run("offload", hlo)
    assert "memory kinds from" in text.stdout and "step.mlir" in text.stdout
    assert "memory kinds from" in _run("check", "-j1", hlo).stdout


def test_a_quiet_file_names_its_stablehlo_too(tmp_path):
    low = jax.jit(lambda v: v + 1.0).trace(jax.ShapeDtypeStruct((4, 16), jnp.float32)).lower(
        lowering_platforms=("tpu",))
    hlo = _pair(tmp_path, low, low.as_text())
    p = _run("check", "-j1", hlo)
    (line,) = [x for x in p.stdout.splitlines() if "step.hlo:" in x]
    assert p.returncode == 0 and "no host-offload error predicted" in line and "memory kinds from" in line


def test_offload_without_kinds_gives_checks_no_verdict(tmp_path, lowered):
    """The same kind-less text: check said NO VERDICT, offload said "no error predicted" (exit 0)."""
    hlo = _pair(tmp_path, lowered["e1200"])
    off = _run("offload", hlo, "--json")
    doc = _json(off)
    assert off.returncode == 1 and doc["verdict"] == "findings", off.stderr
    (warning,) = doc["diagnostics"]["findings"]
    assert warning["severity"] == "warning" and warning["fields"]["undecidable"] is True
    assert doc["memory_kinds"]["known"] is False and doc["stablehlo"] is None
    assert schema_errors(doc, "offload") == []
    text = _run("offload", hlo)
    assert text.returncode == 1 and "NO VERDICT" in text.stdout and "--stablehlo" in text.stdout
    chk = _json(_run("check", "-j1", "--json", hlo))
    assert chk["diagnostics"]["findings"][0]["message"] == warning["message"]
    confirmed = _run("offload", hlo, "--confirm", "--json")  # as check: the guess is not compiled
    assert confirmed.returncode == 1 and "confirm" not in _json(confirmed), confirmed.stderr


@pytest.mark.parametrize("command", ["offload", "check", "hlo"])
def test_a_stale_stablehlo_beside_the_file_is_refused_with_both_signatures(tmp_path, lowered, command):
    hlo = _pair(tmp_path, lowered["e1200"], lowered["other"].as_text())
    p = _run(command, hlo)
    assert p.returncode == 2, (p.stdout, p.stderr)
    (line,) = [x for x in p.stderr.splitlines() if "step.mlir:" in x]
    assert line.startswith(f"{tmp_path / 'step.mlir'}:2:3: ")
    assert "(f32[4,16]) -> (f32[4,16], f32[4,16])" in line and "(f32[8,128]) -> f32[8,128]" in line


def test_a_stablehlo_named_with_the_option_is_verified_too(tmp_path, lowered):
    hlo = _pair(tmp_path, lowered["e1200"])
    (tmp_path / "wrong.ir").write_text(lowered["other"].as_text())
    (tmp_path / "right.ir").write_text(lowered["e1200"].as_text())
    for command in ("offload", "check", "hlo"):
        p = _run(command, hlo, "--stablehlo", tmp_path / "wrong.ir")
        assert p.returncode == 2 and "wrong.ir:2:3: this StableHLO is not the program" in p.stderr, (command, p.stderr)
    doc = _json(_run("offload", hlo, "--stablehlo", tmp_path / "right.ir", "--json"))
    assert doc["details"]["outcome"] == "E1200" and doc["stablehlo"]["found"] == "option"


def test_hlo_shows_the_memory_kinds_of_the_stablehlo_beside_it(tmp_path, lowered):
    hlo = _pair(tmp_path, lowered["e1200"], lowered["e1200"].as_text())
    p = _run("hlo", hlo, "--json")
    doc = _json(p)
    assert p.returncode == 0 and doc["stablehlo"]["found"] == "beside"
    assert doc["entry_computation_layout"]["parameters"][0]["host_leaves"] == [[]]
    assert schema_errors(doc, "hlo") == []
    assert "[host]" in _run("hlo", hlo).stdout


def test_the_python_api_resolves_the_same_companion(tmp_path, lowered):
    from xladoctor.report.check_json import file_entry
    from xladoctor.route.hlo_text import check_hlo

    hlo = _pair(tmp_path, lowered["e1200"], lowered["e1200"].as_text())
    entry = file_entry(check_hlo(hlo.read_text(), str(hlo)))
    assert entry["memory_kinds"]["source"] == "stablehlo" and entry["offload"]["details"]["outcome"] == "E1200"
    assert entry["offload"]["stablehlo"]["found"] == "beside"


def test_a_cpu_lowering_read_by_offload_says_its_verdict_is_not_tpus(tmp_path):
    """jax's CPU lowering drops the placement annotation, so its text alone looks clean or (here,
    with the StableHLO's host output) shows a host output nothing moves there: offload, reading the
    companion beside it as check does, names the CPU lowering instead of giving a TPU verdict."""
    def f(x):
        return jax.device_put(x * 2.0, jax.memory.Space.Host), jnp.sin(x)

    low = jax.jit(f).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("cpu",))
    hlo = _pair(tmp_path, low, low.as_text())
    doc = _json(_run("offload", hlo, "--json"))
    assert doc["provenance"]["platform"] == "cpu" and doc["provenance"]["faithful_for_accelerator"] is False
    assert "lowered for CPU" in _run("offload", hlo).stdout
    entry = _json(_run("check", "-j1", "--json", hlo))["files"][0]
    assert entry["provenance"]["platform"] == "cpu"


def test_a_cpu_lowering_that_nothing_marks_gets_a_note_with_its_e1200(tmp_path):
    """jax's CPU lowering drops `device_put(x, Space.Device)` on a pinned_host argument: the text is
    a TPU lowering of `x * 2` (a real E1200), while the program compiles on TPU.  Nothing tells the
    two apart, so the E1200 on it says so instead of standing as the TPU's verdict."""
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=HOST)
    verdicts = {}
    for platform in ("cpu", "tpu"):
        low = jax.jit(lambda v: jax.device_put(v, jax.memory.Space.Device) * 2.0).trace(x).lower(
            lowering_platforms=(platform,))
        hlo = _pair(tmp_path / platform, low, low.as_text())
        verdicts[platform] = _json(_run("offload", hlo, "--json"))
    cpu, tpu = verdicts["cpu"], verdicts["tpu"]
    assert cpu["details"]["outcome"] == "E1200" and "CPU lowering" in cpu["provenance"]["note"]
    assert cpu["provenance"]["faithful_for_accelerator"] is None  # cannot tell, and says so
    assert tpu["details"]["outcome"] == "ok" and tpu["provenance"]["note"] is None
    assert schema_errors(cpu, "offload") == []


def test_confirm_compiles_the_stablehlo_offload_read(tmp_path, lowered):
    from xladoctor.oracle import OracleWorker

    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as worker:
        if worker.unavailable:
            pytest.skip(worker.unavailable)
    hlo = _pair(tmp_path, lowered["e1200"], lowered["e1200"].as_text())
    doc = _json(_run("offload", hlo, "--confirm", "--json"))
    assert doc["confirm"]["input"] == "stablehlo" and doc["confirm"]["agree"] is True


@pytest.mark.parametrize("mlir, hlo", [
    ("tensor<8x128xf32>", "f32[8,128]"), ("tensor<i1>", "pred[]"), ("tensor<2x3xui8>", "u8[2,3]"),
    ("tensor<4xi32>", "s32[4]"), ("tensor<complex<f32>>", "c64[]"), ("tensor<3xf8E4M3FN>", "f8e4m3fn[3]"),
    ("!stablehlo.token", "token[]"), ("tensor<?x4xbf16>", "bf16[?,4]")])
def test_mlir_types_in_hlo_notation(mlir, hlo):
    from xladoctor.syntax.stablehlo_main import hlo_type_of

    assert hlo_type_of(mlir) == hlo


def test_a_dynamic_dimension_matches_its_bound():
    from xladoctor.syntax.companion import _same

    assert _same(["f32[?,4]"], ["f32[8,4]"]) and not _same(["f32[?,4]"], ["f32[8,5]"])
    assert not _same(["f32[8]"], ["s32[8]"]) and not _same(["f32[8]"], ["f32[8]", "f32[8]"])
