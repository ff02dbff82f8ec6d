"""What one chip-campaign job does, inside a worker process that holds the TPU (bench/chip_campaign.py).

A job is a small JSON object; :func:`run_job` returns its outcome as a JSON object.  Kinds:

* ``user``: the user-shaped program ``(family, seed)`` of ``bench/user_programs.py``, built twice
  (once on the TPU, once on the CPU as the reference), fed the same random inputs (numpy, seeded by
  the program's name), compiled and run on the chip, its outputs compared with the CPU's under
  ``jax.default_matmul_precision('highest')``.  ``fix`` (``"host"``/``"device"``) applies the fix
  xladoctor's ``check_offload`` gives for an E1200 first, exactly as ``bench/fix_campaign.py``
  applies it (the ``out_shardings=`` of fix (a), the ``device_put`` of fix (b)).
* ``format_put``: ``jax.device_put(numpy_array, Format(Layout(major_to_minor, tiling)))`` and read
  back: does the chip keep the data?
* ``e0102_route``: one of the routes by which a user hands an executable an array of another layout;
  the text of what it raises.

Outcomes (``outcome``): ``right``, ``wrong`` (outputs differ from the CPU's), ``compile_error``,
``runtime_error`` (``halt`` when the core halted), ``refused`` (JAX refused the call before running),
``trace_error`` (JAX refused the program itself, on both platforms), ``ran`` (no reference to
compare with); the supervisor adds ``crash`` (the process died) and ``timeout``.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
import zlib
from types import SimpleNamespace
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import jax  # noqa: E402
import numpy as np  # noqa: E402

from xladoctor.oracle.run_judge import HALT_MARKS, compare_leaves, seed_of, text_of  # noqa: E402,F401
from xladoctor.oracle.run_judge import judged as _judged  # noqa: E402
from xladoctor.oracle.run_judge import random_inputs as _random_inputs  # noqa: E402


def random_inputs(leaves: list[Any], name: str) -> list[np.ndarray]:
    """Seeded by the program's name, so the CPU reference and the chip get the same numbers."""
    return _random_inputs(((leaf.shape, leaf.dtype) for leaf in leaves), seed_of(name))


def _shardings_for_args(prog: Any, leaves: list[Any]) -> list[Any]:
    """Where each argument goes: ``in_shardings`` when the program gives them, else its own sharding."""
    ins = prog.jit_kwargs.get("in_shardings")
    if ins is None:
        return [leaf.sharding for leaf in leaves]
    flat = jax.tree.leaves(ins, is_leaf=lambda x: x is None)
    return flat if len(flat) == len(leaves) else [leaf.sharding for leaf in leaves]


def _main_signature(lowered: Any) -> str:
    return next((ln.strip() for ln in lowered.as_text().splitlines() if "func.func public @main" in ln), "")[:1500]


def _ours(lowered: Any) -> dict[str, Any]:
    """xladoctor's verdict on this very lowering (the arrays the chip got, on the chip)."""
    try:
        from xladoctor.jax.lowering import lower_program
        from xladoctor.jax.offload_check import check_lowered

        rep = check_lowered(lower_program(lowered))
        return {"outcome": rep.outcome, "ok": rep.ok, "findings": len(rep.findings_of("E1200")), "notes": len(rep.notes),
                "failures": [f[:300] for f in rep.failures]}
    except Exception as e:
        return {"outcome": "error", "error": text_of(e)[:500]}


def _run_program(prog: Any, inputs: list[np.ndarray], record: dict[str, Any] | None = None
                 ) -> tuple[str, Any, str]:
    """Compile and run ``prog`` on its own device; ``(stage, outputs or None, error text)``.
    ``record``: gets the lowered ``@main`` signature and xladoctor's verdict on that lowering."""
    leaves, tree = jax.tree.flatten(prog.args)
    try:
        placed = [jax.device_put(x, s) for x, s in zip(inputs, _shardings_for_args(prog, leaves))]
        args = jax.tree.unflatten(tree, placed)
        jitted = jax.jit(prog.fn, **prog.jit_kwargs)
        lowered = jitted.trace(*args).lower()
    except Exception as e:
        return "trace", None, text_of(e)
    if record is not None:
        record["main_arrays"] = _main_signature(lowered)
        record["ours_arrays"] = _ours(lowered)
        try:
            sds_lowered = jax.jit(prog.fn, **prog.jit_kwargs).trace(*prog.args).lower()
            record["main_sds"] = _main_signature(sds_lowered)
            record["ours_sds"] = _ours(sds_lowered)
        except Exception as e:
            record["main_sds"] = text_of(e)[:300]
    try:
        compiled = lowered.compile()
    except Exception as e:
        return "compile", None, text_of(e)
    try:
        out = compiled(*args)
        jax.block_until_ready(out)
        if record is not None:
            record["out_kinds"] = [getattr(a.sharding, "memory_kind", None) for a in jax.tree.leaves(out)]
    except ValueError as e:
        return "call", None, text_of(e)
    except Exception as e:
        return "run", None, text_of(e)
    try:
        return "ok", jax.tree.map(lambda a: np.asarray(jax.device_get(a)), out), ""
    except Exception as e:
        return "fetch", None, text_of(e)


def compare(got: Any, want: Any) -> dict[str, Any]:
    """Leaf by leaf (``xladoctor.oracle.run_judge.compare_leaves``), after checking the trees match."""
    g, gt = jax.tree.flatten(got)
    w, wt = jax.tree.flatten(want)
    if gt != wt or len(g) != len(w):
        return {"same": False, "why": f"trees differ: {gt} vs {wt}"}
    return compare_leaves(g, w)


def _build(family: str, seed: int, device: Any, fix: str | None) -> tuple[Any, dict[str, Any]]:
    import user_programs as up

    up.DEV = device
    prog = up.build(family, seed)
    info: dict[str, Any] = {}
    if fix:
        prog, info = _apply_fix(prog, fix, device)
    return prog, info


def _apply_fix(prog: Any, which: str, device: Any) -> tuple[Any, dict[str, Any]]:
    """Fix (a) or (b) as ``check_offload`` gives it, applied as bench/fix_campaign.py applies it."""
    import fix_campaign as fc
    from jax.sharding import SingleDeviceSharding

    from xladoctor.jax.lowering import lower_program
    from xladoctor.jax.offload_check import check_lowered

    lowered = jax.jit(prog.fn, **prog.jit_kwargs).trace(*prog.args).lower(lowering_platforms=("tpu",))
    report = check_lowered(lower_program(lowered))
    info = {"findings": len(report.findings_of("E1200")), "outcome_before": report.result.outcome}
    if not report.findings_of("E1200"):
        info["no_fix"] = True
        return prog, info
    if which == "host":
        shard = fc.host_shardings(report.findings_of("E1200")[0].host_fix, SingleDeviceSharding(device), report)
        prog.jit_kwargs = {**prog.jit_kwargs, "out_shardings": shard}
    else:
        how = {f.leaf: fc.device_statement(f.device_fix) for f in report.findings_of("E1200")}
        if any(h != "device_put" for h in how.values()):
            info["no_fix"] = True
            return prog, info
        prog.fn = fc._with_device_fix(prog.fn, how, {})
    return prog, info


def user_job(job: dict[str, Any]) -> dict[str, Any]:
    family, seed, fix = job["family"], int(job["seed"]), job.get("fix")
    tpu, cpu = jax.devices()[0], jax.devices("cpu")[0]
    res: dict[str, Any] = {"platform": tpu.platform, "device_kind": getattr(tpu, "device_kind", "")}
    prog, info = _build(family, seed, tpu, fix)
    res.update(info)
    if info.get("no_fix"):
        res["outcome"] = "no_fix"
        return res
    name = f"{family}:{seed}"
    inputs = random_inputs(jax.tree.leaves(prog.args), name)
    ref_prog, _ = _build(family, seed, cpu, fix)
    with jax.default_matmul_precision("highest"):
        ref_stage, ref_out, ref_err = _run_program(ref_prog, inputs)
        t0 = time.perf_counter()
        stage, out, err = _run_program(prog, inputs, res if job.get("ours") else None)
    res["seconds"] = round(time.perf_counter() - t0, 3)
    res["reference"] = ref_stage if ref_stage != "ok" else "cpu"
    return {**res, **judged(stage, out, err, ref_stage, ref_out, ref_err)}


def judged(stage: str, out: Any, err: str, ref_stage: str, ref_out: Any, ref_err: str) -> dict[str, Any]:
    """The outcome of a chip run (``_run_program``'s answer) against the CPU's on the same inputs:
    ``xladoctor.oracle.run_judge.judged``, the judgement ``--confirm --run`` gives too."""
    return _judged(stage, out, err, ref_stage, ref_out, ref_err, compare)


def format_put_job(job: dict[str, Any]) -> dict[str, Any]:
    """``device_put`` of a numpy array to a tiled ``Format``, read back and compared."""
    from jax.experimental.layout import Format, Layout

    dt = np.dtype(job["dtype"]) if job["dtype"] not in ("bfloat16",) else jax.numpy.bfloat16
    shape = tuple(job["shape"])
    rng = np.random.default_rng(zlib.crc32(repr(job).encode()))
    if np.issubdtype(np.dtype(dt), np.floating) or job["dtype"] == "bfloat16":
        x = (rng.standard_normal(shape) * 4).astype(dt)
    elif job["dtype"] == "bool":
        x = rng.integers(0, 2, shape).astype(bool)
    else:
        x = rng.integers(-100, 100, shape).astype(dt)
    dev = jax.devices()[0]
    tiling = tuple(tuple(t) for t in job["tiling"]) if job.get("tiling") else None
    layout = Layout(tuple(job["major_to_minor"]), tiling=tiling)
    fmt = Format(layout, jax.sharding.SingleDeviceSharding(dev))
    try:
        y = jax.device_put(x, fmt)
        jax.block_until_ready(y)
    except Exception as e:
        return {"outcome": "refused", "error": text_of(e)}
    try:
        back = np.asarray(y)
    except Exception as e:
        return {"outcome": "runtime_error", "error": text_of(e)}
    same = bool(np.array_equal(back.view(np.uint8) if back.dtype == bool else back, x.view(np.uint8) if
                               x.dtype == bool else x))
    res: dict[str, Any] = {"outcome": "right" if same else "wrong", "format": str(getattr(y, "format", ""))}
    if not same:
        res["fraction_wrong"] = float(np.mean(back != x))
    return res


def _later_build(name: str) -> Any:
    import later_fixes

    for n, build in later_fixes.programs(600, 237):
        if n == name:
            return build
    raise KeyError(name)


def _on_cpu(make: Any) -> Any:
    """``make()`` with ``jax.devices()`` answering the CPU's: the generated programs place on
    ``jax.devices()[0]``, and the reference is the same program on the CPU."""
    import user_programs

    real, real_dev = jax.devices, user_programs.DEV
    cpu = real("cpu")[0]
    jax.devices = lambda *a, **k: real("cpu")  # type: ignore[assignment]
    # user_programs places its arguments on DEV, read once at import (the chip's device), and
    # arrays made without a placement go to the default device: both the CPU too, or the
    # reference mixes chip arguments with CPU outputs.
    user_programs.DEV = cpu
    try:
        with jax.default_device(cpu):
            return make()
    finally:
        jax.devices = real  # type: ignore[assignment]
        user_programs.DEV = real_dev


def later_fix_job(job: dict[str, Any]) -> dict[str, Any]:
    """A program libtpu rejects after its E1200 fix, with the fix our report gives for that later
    failure applied (bench/later_fixes.py), run on the chip and compared with the CPU."""
    import later_fixes

    build = _later_build(job["name"])

    def fixed() -> tuple[Any, Any, Any, set[str]]:
        fn, args, kw = build(set(), None)
        kw, report = later_fixes.e1200_fixed(fn, args, kw)
        told = later_fixes.fixes_told(report)
        fn, args, kw = build(told, report)
        kw, report = later_fixes.e1200_fixed(fn, args, kw)
        return fn, args, kw, told

    fn, args, kw, told = fixed()
    res: dict[str, Any] = {"told": sorted(told)}
    prog = SimpleNamespace(fn=fn, args=args, jit_kwargs=kw)
    ref_fn, ref_args, ref_kw, _ = _on_cpu(fixed)
    ref = SimpleNamespace(fn=ref_fn, args=ref_args, jit_kwargs=ref_kw)
    inputs = random_inputs(jax.tree.leaves(args), job["name"])
    with jax.default_matmul_precision("highest"):
        ref_stage, ref_out, ref_err = _run_program(ref, inputs)
        stage, out, err = _run_program(prog, inputs)
    return {**res, **judged(stage, out, err, ref_stage, ref_out, ref_err)}


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    kind = job["kind"]
    try:
        if kind == "user":
            return user_job(job)
        if kind == "later_fix":
            return later_fix_job(job)
        if kind == "unpinned_arg":
            import chip_routes

            return chip_routes.unpinned_job(job)
        if kind == "pattern":
            import chip_routes

            return chip_routes.pattern_job(job)
        if kind == "format_put":
            return format_put_job(job)
        if kind == "public":
            import chip_public

            return chip_public.public_job(job)
        if kind == "e0102_route":
            import chip_routes

            return chip_routes.route_job(job)
        return {"outcome": "bad_job", "error": f"unknown kind {kind!r}"}
    except Exception as e:
        return {"outcome": "harness_error", "error": text_of(e), "traceback": traceback.format_exc()[-2000:]}
