"""Every route to a verdict gives the same answer (issue 19): check on NAME.hlo + NAME.mlir pairs,
check --stablehlo, check on the bare Lowered.as_text("hlo") (right or undecidable, never a
confident guess), and unpinned_host, which libtpu puts in S(6), not host memory."""

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


def _lowered(fn, args, **jk):
    return jax.jit(fn, **jk).trace(*args).lower(lowering_platforms=("tpu",))


def _e1200_program():
    """A pinned_host argument computed on and returned to device memory: E1200 for real (libtpu
    0.0.42.1), and nothing in its as_text("hlo") says so (no offload token at all)."""
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=SingleDeviceSharding(DEV, memory_kind="pinned_host"))
    return _lowered(lambda v: v * 2.0, (x,))


def _check(*argv):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), JAX_PLATFORMS="cpu")
    p = subprocess.run([sys.executable, "-m", "xladoctor", "check", "-j1", "--json", *argv],
                       capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None), p.stderr


def _files(doc):
    return {os.path.basename(f["path"]): f for f in doc["files"]}


def test_pair_in_folder_gives_the_verdict_and_bare_text_gives_none(tmp_path):
    low = _e1200_program()
    pair, bare = tmp_path / "pair", tmp_path / "bare"
    pair.mkdir()
    bare.mkdir()
    (pair / "step.hlo").write_text(low.as_text("hlo"))
    (pair / "step.mlir").write_text(low.as_text())
    (bare / "step.hlo").write_text(low.as_text("hlo"))
    rc, doc, _ = _check(str(pair))
    assert schema_errors(doc, "check") == []
    files = _files(doc)
    assert rc == 1
    assert files["step.hlo"]["memory_kinds"]["source"] == "stablehlo"
    assert files["step.hlo"]["offload"]["details"]["outcome"] == "E1200"
    assert files["step.mlir"]["kind"] == "skipped" and "step.hlo" in files["step.mlir"]["note"]
    rc, doc, _ = _check(str(bare))
    assert schema_errors(doc, "check") == []
    entry = _files(doc)["step.hlo"]
    (warning,) = doc["diagnostics"]["findings"]
    assert warning["severity"] == "warning" and warning["fields"]["undecidable"] is True
    assert rc == 1 and entry["verdict"] == "undecidable" and entry["findings"] == 1
    assert "offload" not in entry and entry["memory_kinds"]["known"] is False
    assert entry["memory_kinds"]["undecidable_outputs"] == [[]]
    assert "step.mlir" in entry["note"] and "--xla_dump_to" in entry["note"]


def test_placements_without_kinds_are_undecidable(tmp_path):
    """A host activation in a scan: the outputs it reaches are named undecidable."""
    def f(x):
        def body(c, _):
            return jnp.sin(c), jax.device_put(c, jax.memory.Space.Host)
        return jax.lax.scan(body, x, None, length=3)

    low = _lowered(f, (jax.ShapeDtypeStruct((8, 128), jnp.float32),))
    (tmp_path / "scan.hlo").write_text(low.as_text("hlo"))
    rc, doc, _ = _check(str(tmp_path / "scan.hlo"))
    kinds = _files(doc)["scan.hlo"]["memory_kinds"]
    assert rc == 1 and kinds["source"] == "unknown" and kinds["placements"]
    assert kinds["undecidable_outputs"]


def test_stablehlo_option_names_the_companion_of_one_file(tmp_path):
    low = _e1200_program()
    (tmp_path / "a.hlo").write_text(low.as_text("hlo"))
    (tmp_path / "b.hlo").write_text(low.as_text("hlo"))
    (tmp_path / "other.ir").write_text(low.as_text())
    rc, doc, _ = _check(str(tmp_path / "a.hlo"), "--stablehlo", str(tmp_path / "other.ir"))
    assert rc == 1 and _files(doc)["a.hlo"]["offload"]["details"]["outcome"] == "E1200"
    rc, _, err = _check(str(tmp_path / "a.hlo"), str(tmp_path / "b.hlo"), "--stablehlo", str(tmp_path / "other.ir"))
    assert rc == 2 and "exactly one" in err
    (tmp_path / "junk.ir").write_text("not stablehlo\n")
    rc, doc, err = _check(str(tmp_path / "a.hlo"), "--stablehlo", str(tmp_path / "junk.ir"))
    assert rc == 2 and "junk.ir:1:1:" in err


def test_a_module_that_says_its_kinds_keeps_its_verdict(tmp_path):
    """Hand-written HLO and compiler dumps (tiled entry layouts) are not JAX lowerings without kinds."""
    from xladoctor.report.check_json import file_entry
    from xladoctor.route.hlo_text import check_hlo

    example = os.path.join(ROOT, "src", "xladoctor", "examples", "e1200_offloaded_activation.hlo")
    with open(example) as f:
        entry = file_entry(check_hlo(f.read(), example))
    assert entry["memory_kinds"]["source"] == "module" and entry["offload"]["details"]["outcome"] == "E1200"


def _sds(kind):
    return jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=SingleDeviceSharding(DEV, memory_kind=kind))


@pytest.mark.parametrize("fn, arg, out, outcome, status", [
    (lambda x: x, "unpinned_host", None, "failure", "ValueError"),
    (lambda x: x, "unpinned_host", "pinned_host", "failure", "ValueError"),
    (lambda x: x * 2.0, "unpinned_host", None, "failure", "INTERNAL"),
    (lambda x: jax.device_put(x, jax.memory.Space.Device) * 2.0, "unpinned_host", None, "failure", "INTERNAL"),
    (lambda x: x * 2.0, "device", "unpinned_host", "failure", "FAILED_PRECONDITION"),
    (lambda x: x, "pinned_host", None, "E1200", None),
])
def test_unpinned_host_is_not_host_memory_for_e1200(fn, arg, out, outcome, status):
    """Measured with libtpu 0.0.42.1 (v5e): unpinned_host is S(6); returning it compiles and then a
    real chip refuses every call (JAX's layout check: tests/data/chip/), computing
    on it fails INTERNAL after optimisation, an unpinned_host output fails 'Unimplemented DMA from
    hbm to hbm'.  The same on the check_offload route and the offload --stablehlo route."""
    from xladoctor.jax import check_offload
    from xladoctor.route.module_analysis import analyse_module, parse_hlo

    jk = {"out_shardings": SingleDeviceSharding(DEV, memory_kind=out)} if out else {}
    report = check_offload(fn, _sds(arg), jit_kwargs=jk)
    assert report.outcome == outcome
    low = _lowered(fn, (_sds(arg),), **jk)
    mc = analyse_module(parse_hlo(low.as_text("hlo"), "x.hlo"), low.as_text("hlo"), "x.hlo", stablehlo=low.as_text())
    assert mc.result.outcome == outcome
    if status:
        assert mc.result.failures[0].status == status and mc.result.failures[0].first


def test_user_programs_ci_slice():
    """A CI-sized slice of bench/user_programs.py through every route, against the real compiler:
    seeds 0-19 of each of the 13 families (260 programs, about a minute here; the >= 3,000-program
    run is ``bench/offload_campaign.py --user --count 3000``)."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import user_programs
    import user_routes

    from xladoctor.oracle import OracleWorker

    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as worker:
        if worker.unavailable:
            pytest.skip(worker.unavailable)
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            records = [user_routes.run_program(p, worker, folder) for p in user_programs.programs(0, 260)]
    decided = [r for r in records if r.actual != "refused"]
    assert len(decided) >= 240
    for r in decided:
        assert r.routes["check_bare"].status in ("agree", "undecidable"), (r.name, r.actual, r.routes)
        for route in ("check_offload", "offload_pair", "check_pair"):
            assert r.routes[route].status in ("agree", "divergence"), (r.name, route, r.actual, r.routes[route])


def test_confirm_compiles_the_stablehlo_the_prediction_used(tmp_path):
    """--confirm hands the compiler the paired StableHLO (its memory kinds), and says so."""
    from xladoctor.oracle import OracleWorker

    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as worker:
        if worker.unavailable:
            pytest.skip(worker.unavailable)
    low = _e1200_program()
    (tmp_path / "step.hlo").write_text(low.as_text("hlo"))
    (tmp_path / "step.mlir").write_text(low.as_text())
    rc, doc, _ = _check(str(tmp_path), "--confirm")
    confirm = _files(doc)["step.hlo"]["confirm"]
    assert rc == 1 and confirm["input"] == "stablehlo"
    assert confirm["verdict"]["kind"] == "e1200" and confirm["agree"] is True
