"""Real programs no one here wrote (bench/public_programs.py), judged by the real compiler (issue 34).

The chip's answers for the 70 programs are recorded (``tests/data/chip/round5-public.jsonl``); the
rules they gave -- openxla/xla#20373's lane-slice update into a host buffer, no narrow-row CHECK
for a scan of length 1, PR #4995's nested host stacks (tests/test_public_nested.py) and #34565's
scatters into a host argument as the chip ran them -- are checked on both sides of their
boundary against libtpu compile-only, and by every route (Python API, ``offload FILE.hlo``,
``check DIR``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from xladoctor.jax import check_offload  # noqa: E402

BENCH = Path(__file__).resolve().parent.parent / "bench"
CHIP = Path(__file__).resolve().parent / "data" / "chip" / "round5-public.jsonl"
sys.path.insert(0, str(BENCH))

import public_boundaries  # noqa: E402
import public_programs  # noqa: E402


def _records():
    return [json.loads(line) for line in CHIP.read_text().splitlines() if line.strip()]


def test_the_chip_judged_every_public_program():
    records = _records()
    assert len(records) == len(public_programs.NAMES) >= 60
    assert {r["name"] for r in records} == set(public_programs.NAMES)
    assert {r["device_kind"] for r in records} == {"TPU v5 lite"}
    for name in public_programs.NAMES:
        assert public_programs.build(name).source.startswith("https://"), name


def test_every_program_the_chip_rejects_is_a_failure():
    """Judged as the user lowers it for AOT (ShapeDtypeStructs): a failure or an E1200, every one
    (PR #4995's NESTED was only warned before the nested-host-stack rule)."""
    rejected = [r for r in _records() if r["outcome"] in ("compile_error", "crash", "halt", "refused")]
    assert len(rejected) >= 4
    for r in rejected:
        prog = public_programs.build(r["name"])
        report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
        assert report.outcome in ("failure", "E1200"), (r["name"], report.outcome)


def _on_host(prog):
    """The program's arguments as the chip got them: arrays, in the memory kinds of their shardings
    (JAX then keeps an updated host argument's result in pinned_host)."""
    import numpy as np

    return jax.tree.map(lambda a: jax.device_put(np.ones(a.shape, a.dtype), a.sharding), prog.args)


def test_no_false_alarm_on_what_ran_on_the_chip_as_the_chip_ran_it():
    """Today's verdict on each program that ran, lowered from arrays as the chip got them (not the
    verdict recorded then): no failure, no E1200."""
    ran = [r for r in _records() if r["outcome"] in ("right", "wrong", "ran")]
    for r in ran:
        prog = public_programs.build(r["name"])
        report = check_offload(prog.fn, *_on_host(prog), jit_kwargs=prog.jit_kwargs)
        assert report.outcome == "ok" and not report.failures, (r["name"], report.failures[:1])


@pytest.mark.parametrize("name,text", [
    ("xla34565_scatter_static_pinned_host", "Lane slice updating is not supported in async dynamic update slice yet"),
    ("xla34565_scatter_dynamic_pinned_host", "Fusion must have backend config")])
def test_xla_34565_as_the_chip_ran_it_is_the_chips_failure(name, text):
    """Called with arrays already in pinned_host the chip rejected both scatters; our verdict on that
    lowering is a failure quoting the chip's error (the ShapeDtypeStruct lowering stays an E1200)."""
    rec = next(r for r in _records() if r["name"] == name)
    assert rec["outcome"] == "compile_error" and text in rec["error"]
    assert rec["ours_arrays"]["outcome"] == "ok"  # what we said when the chip ran it
    prog = public_programs.build(name)
    report = check_offload(prog.fn, *_on_host(prog), jit_kwargs=prog.jit_kwargs)
    assert report.outcome == "failure", report.outcome
    assert text in report.failures[0] and "libtpu 0.0.42.1" in report.failures[0]
    assert "jax.device_put(x, jax.memory.Space.Device)" in report.failures[0]
    assert check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs).outcome == "E1200"


SCATTER_CASES = [  # form, n, offset, dtype, rows, update_host, index_host
    ("slice_set", 5, 0, "float32", False, True, True), ("slice_set", 128, 0, "float32", False, True, True),
    ("slice_set", 5, 0, "int8", False, False, True), ("slice_set", 5, 0, "float32", True, True, True),
    ("slice_set", 8, 0, "float32", True, True, True), ("slice_set", 4, 0, "float32", True, True, True),
    ("slice_set", 1, 0, "bfloat16", True, True, True), ("slice_set", 16, 0, "bfloat16", True, True, True),
    ("index_set", 5, 0, "float32", False, False, False), ("index_add", 2, 0, "bfloat16", True, True, True),
    ("index_set_to_device", 5, 0, "float32", False, True, True), ("compute", 5, 0, "float32", False, True, True),
    ("slice_set_via_device", 5, 0, "float32", True, False, False),
    ("index_set_via_device", 5, 0, "float32", False, False, False)]


@pytest.mark.parametrize("case", SCATTER_CASES)
def test_the_host_argument_scatter_rules_are_the_real_compilers(tpu_worker, case):
    """A scatter into a pinned_host argument: ours is a failure exactly where libtpu rejects it, with
    the compiler's own words; elementwise compute and the fix (update on device) compile."""
    fn, args, kw = public_boundaries.scatter_program(*case)
    row = public_boundaries.judge_one(tpu_worker, fn, args, kw)
    assert row["compiler"] in ("compiles", "xla_error", "crash"), row
    assert (row["ours"] == "failure") is (row["compiler"] != "compiles"), row
    words = {"Lane slice": "Lane slice updating", "RET_CHECK": "Fusion must have backend config",
             "Check failed": "Sublane slicing size not multiple"}
    for seen, ours in words.items():
        if seen in row["message"]:
            assert ours in row["failures"][0], row


def test_no_false_alarm_on_what_ran_on_the_chip():
    ran = [r for r in _records() if r["outcome"] in ("right", "wrong", "ran")]
    assert len(ran) >= 60
    for r in ran:
        assert (r.get("ours_arrays") or {}).get("outcome") == "ok", r["name"]
        prog = public_programs.build(r["name"])
        report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
        assert report.outcome == "ok" and not report.failures, r["name"]


def test_xla_20373_is_a_predicted_lane_slice_failure():
    prog = public_programs.build("xla20373_scan_host_and_device_ys")
    report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
    assert report.outcome == "failure"
    assert report.failures[0].startswith(
        "UNIMPLEMENTED: libtpu 0.0.42.1 fails: UNIMPLEMENTED: Lane slice updating is not supported")
    rec = next(r for r in _records() if r["name"] == prog.name)
    assert "Lane slice updating is not supported in async dynamic update slice yet" in rec["error"]


LANE_CASES = [((), "float32", 4, False), ((), "float32", 1, False), ((), "int8", 4, False),
              ((), "bfloat16", 4, False), ((1,), "float32", 2, False), ((1,), "int32", 4, False),
              ((1, 1), "float32", 4, False), ((2,), "float32", 4, False), ((128,), "float32", 4, False),
              ((), "float32", 64, True), ((128,), "float32", 4, True), ((128,), "bfloat16", 1, False),
              ((1, 128), "int8", 1, False), ((128,), "bfloat16", 4, False)]


@pytest.mark.parametrize("shape,dtype,length,device_ys", LANE_CASES)
def test_the_lane_slice_rule_is_the_real_compilers(tpu_worker, shape, dtype, length, device_ys):
    """Ours is a failure exactly where libtpu rejects the scan; 32-bit rejections name the lane slice."""
    fn, args = public_boundaries.lane_program(shape, dtype, length, device_ys)
    row = public_boundaries.judge_one(tpu_worker, fn, args)
    assert row["compiler"] in ("compiles", "xla_error", "crash")
    assert (row["ours"] == "failure") is (row["compiler"] != "compiles"), row
    if "Lane slice" in row["message"] and dtype in ("float32", "int32"):
        assert "Lane slice" in row["failures"][0]


@pytest.mark.parametrize("name,text", [
    ("xla20373_scan_host_and_device_ys", "Lane slice updating is not supported"),
    ("maxtext_pr4995_nested", "The async-start expects the shape of operand 0 to match the async shape")])
def test_every_route_gives_the_later_failure(tmp_path, name, text):
    """``offload FILE.hlo --stablehlo FILE.mlir`` and ``check DIR`` agree with check_offload."""
    import subprocess

    prog = public_programs.build(name)
    lowered = prog.lower()
    (tmp_path / "p.hlo").write_text(lowered.as_text("hlo"))
    (tmp_path / "p.mlir").write_text(lowered.as_text())
    for argv in (["offload", str(tmp_path / "p.hlo"), "--stablehlo", str(tmp_path / "p.mlir"), "--json"],
                 ["check", str(tmp_path), "--json"]):
        out = subprocess.run([sys.executable, "-m", "xladoctor", *argv], capture_output=True, text=True)
        assert out.returncode == 1, (argv, out.stderr[-500:])
        assert text in out.stdout, argv



@pytest.fixture(scope="module")
def shard_map_rows(tpu_worker):
    """memories_test's ragged copy on meshes of 1, 2 and 4 devices (4 CPU devices, in a subprocess),
    judged by libtpu compile-only and by us (bench/public_boundaries.py shard_map)."""
    import os
    import subprocess

    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, str(BENCH / "public_boundaries.py"), "shard_map"], env=env,
                         capture_output=True, text=True, timeout=600)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert {r["devices"] for r in rows} == {1, 2, 4}, out.stderr[-500:]
    return rows


def test_a_shard_map_loop_writing_host_memory_compiles_on_1_2_and_4_devices(shard_map_rows):
    assert all(r["compiler"] == "compiles" for r in shard_map_rows), shard_map_rows
    assert all(r["ours"] == "ok" for r in shard_map_rows if r["devices"] == 1)


def test_no_false_failure_on_a_shard_map_loop_over_2_or_4_devices(shard_map_rows):
    """Issue 34: the values around a ``shard_map`` are per-device before HostOffloader, as after
    XLA's SPMD partitioner (offload/passes/sdy_manual_shapes.py), not global."""
    assert [r for r in shard_map_rows if r["ours"] != "ok"] == []


def test_pr4995_differences_on_the_chip_are_its_numerics_not_offloading() -> None:
    """PR #4995's FLAT and TRIP_COUNT_ONE differed from the CPU by up to 8% of the scale on the chip
    (round5-public.jsonl).  Re-run with the same names saved on device instead of offloaded
    (bench/chip_offload_vs_device.py): on the chip the offloading run is bit for bit the
    device-saving run, and both differ from the CPU alike, so it is the chip's arithmetic in 12
    saturated tanh layers, not offloading, and `ok` is the right verdict."""
    data = json.loads((Path(__file__).parent / "data" / "chip" / "pr4995-offload-vs-device.json").read_text())
    assert data["versions"] == {"jax": "0.10.2", "device": "TPU v5 lite"}
    for case in ("FLAT", "TRIP_COUNT_ONE"):
        got = data[case]
        assert got["offload_tpu_vs_device_tpu"]["identical"] and got["offload_cpu_vs_device_cpu"]["identical"]
        assert got["offload_tpu_vs_cpu"] == got["device_tpu_vs_cpu"]
        assert got["device_tpu_vs_cpu"]["max_over_scale"] > 0.01
