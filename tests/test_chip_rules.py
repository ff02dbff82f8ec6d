"""The failures found by running programs on a real TPU v5e chip (tests/data/chip/), as rules.

Each rule is narrowed on its boundary -- the shapes and dtypes on either side of it -- and, where
the compile itself fails, the real TPU compiler (libtpu compile-only) is asked again here: a
prediction of ours must be its verdict, on both sides of the boundary.  The call refusal of an
``unpinned_host`` argument is a run-time fact the compiler cannot show: its evidence is the
recorded chip data (tests/test_chip_campaign.py).
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from xladoctor.jax import check_offload  # noqa: E402


def _array(shape, dtype, kind="device"):
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind=kind)
    return jax.device_put(np.ones(shape, jnp.dtype(dtype)), sharding)


def _scan_ys_to_host(v):
    def body(c, _):
        c = c + jnp.ones((), c.dtype)
        return c, jax.device_put(c, jax.memory.Space.Host)
    return jax.lax.scan(body, v, None, length=3)


def _use(how):
    def f(v):
        if how == "to_device":
            return jax.device_put(v, jax.memory.Space.Device) * 2
        return v if how == "return" else v * 2
    return f


@pytest.fixture(scope="module")
def worker(tpu_worker):
    return tpu_worker


ROW_CASES = [("bfloat16", (128,), True), ("float16", (100,), True), ("int8", (1024,), True),
             ("uint8", (1, 128), True), ("float8_e4m3fn", (256,), True), ("int16", (128,), True),
             ("bfloat16", (2, 128), False), ("int8", (16, 128), False), ("float32", (128,), False),
             ("int32", (1, 128), False)]


@pytest.mark.parametrize("dtype,shape,fails", ROW_CASES)
def test_a_scan_stacking_one_narrow_row_on_host_is_a_predicted_crash(dtype, shape, fails):
    report = check_offload(_scan_ys_to_host, _array(shape, dtype))
    assert (report.outcome == "failure") is fails
    if fails:
        assert "Sublane slicing size not multiple of update chunk sublane size" in report.failures[0]
        assert report.failures[0].startswith("CHECK")


@pytest.mark.parametrize("dtype,shape,fails", ROW_CASES[::3] + ROW_CASES[6:8])
def test_the_narrow_row_rule_is_the_real_compilers(worker, dtype, shape, fails):
    lowered = jax.jit(_scan_ys_to_host).trace(_array(shape, dtype)).lower(lowering_platforms=("tpu",))
    assert (worker.compile_stablehlo(lowered.as_text()).kind == "crash") is fails


PINNED_CASES = [("int8", (32, 128), "compute", "CHECK"), ("uint8", (64, 256), "compute", "CHECK"),
                ("int4", (64, 128), "compute", "CHECK"), ("int8", (32, 128), "to_device", "INTERNAL"),
                ("int8", (32, 128), "return", None), ("int8", (33, 128), "compute", None),
                ("int8", (16, 128), "compute", None), ("bfloat16", (32, 128), "compute", None)]


@pytest.mark.parametrize("dtype,shape,how,status", PINNED_CASES)
def test_computing_on_a_narrow_pinned_host_argument_is_a_predicted_crash(dtype, shape, how, status):
    """The array already in pinned_host (as the chip got it): JAX keeps the result on host."""
    report = check_offload(_use(how), _array(shape, dtype, "pinned_host"))
    assert (report.failures[0].split(":")[0] if report.failures else None) == status
    if status == "CHECK":
        assert "prev->opcode() == HloOpcode::kAsyncUpdate" in report.failures[0]


@pytest.mark.parametrize("dtype,shape,how,status", PINNED_CASES)
def test_the_narrow_pinned_rule_is_the_real_compilers(worker, dtype, shape, how, status):
    lowered = jax.jit(_use(how)).trace(_array(shape, dtype, "pinned_host")).lower(lowering_platforms=("tpu",))
    kind = worker.compile_stablehlo(lowered.as_text()).kind
    assert kind == {"CHECK": "crash", "INTERNAL": "xla_error", None: "compiles"}[status]


@pytest.mark.parametrize("shape", [(8, 128), (128,), (), (3, 5)])
@pytest.mark.parametrize("how", ["return", "to_device", "compute"])
def test_an_unpinned_host_argument_never_runs(shape, how):
    """Refused at the call (returned as it is; a scalar however used) or a compile failure (computed
    on): never ``ok``; the refusal says so and names the pinned_host fix."""
    report = check_offload(_use(how), _array(shape, "float32", "unpinned_host"))
    assert report.outcome == "failure" and not report.ok
    refused = how == "return" or shape == ()
    assert report.failures[0].startswith("ValueError: Computation was compiled for input layouts" if refused
                                         else "INTERNAL:")
    if refused:
        assert 'memory_kind=\\"pinned_host\\"' in report.failures[0] or 'memory_kind="pinned_host"' in \
            report.failures[0]


def test_a_call_refusal_is_not_a_compile_failure():
    """For the compile-only oracle the program compiles: the refusal comes at the call."""
    from xladoctor.oracle import prediction_of

    report = check_offload(_use("return"), _array((8, 128), "float32", "unpinned_host"))
    assert prediction_of(report.result).kind == "compiles"


def _saved_pair(fn, arg, folder):
    """``fn(arg)`` lowered for TPU, saved as ``p.hlo`` with its StableHLO ``p.mlir`` beside it."""
    lowered = jax.jit(fn).trace(arg).lower(lowering_platforms=("tpu",))
    (folder / "p.hlo").write_text(lowered.as_text("hlo"))
    (folder / "p.mlir").write_text(lowered.as_text())
    return folder / "p.hlo"


def _offload(*argv):
    """``xladoctor offload ARGV`` in process: (exit code, what it printed)."""
    import contextlib
    import io

    from xladoctor.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["offload", *map(str, argv)])
    return rc, out.getvalue()


def test_the_cli_says_the_call_is_refused_not_that_xla_fails(tmp_path):
    hlo = _saved_pair(_use("return"), _array((8, 128), "float32", "unpinned_host"), tmp_path)
    rc, out = _offload(hlo, "--stablehlo", tmp_path / "p.mlir")
    assert rc == 1
    assert "It compiles, and then JAX refuses every call: ValueError" in out
    assert "XLA would fail" not in out


@pytest.mark.parametrize("make", [
    lambda: (_scan_ys_to_host, _array((128,), "bfloat16")),
    lambda: (_use("compute"), _array((32, 128), "int8", "pinned_host")),
    lambda: (_use("return"), _array((8, 128), "float32", "unpinned_host")),
], ids=["narrow-row", "narrow-pinned-compute", "unpinned-refused"])
def test_every_route_gives_the_chip_failure(tmp_path, make):
    """check_offload, ``offload FILE.hlo`` (its StableHLO beside it) and ``check DIR`` agree."""
    import json
    import subprocess
    import sys

    fn, arg = make()
    report = check_offload(fn, arg)
    hlo = _saved_pair(fn, arg, tmp_path)
    status = report.failures[0].split(":")[0]
    for argv in (["offload", str(hlo), "--json"], ["check", str(tmp_path), "--json"]):
        out = subprocess.run([sys.executable, "-m", "xladoctor", *argv], capture_output=True, text=True)
        assert out.returncode == 1, (argv, out.stderr)
        assert f'"status": "{status}"' in json.dumps(json.loads(out.stdout)), argv


def test_a_call_refusal_is_valid_offload_json(tmp_path):
    """The new status is in the offload schema (docs/json.md): the refusal's JSON validates."""
    import json

    from json_schema_check import schema_errors

    hlo = _saved_pair(_use("return"), _array((8, 128), "float32", "unpinned_host"), tmp_path)
    rc, out = _offload(hlo, "--json")
    assert rc == 1
    doc = json.loads(out)
    assert any(f["status"] == "ValueError" for f in doc["details"]["failures"]), doc["details"]["failures"]
    assert schema_errors(doc, "offload") == []
