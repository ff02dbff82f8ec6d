"""The chip campaign's ``public`` jobs: one program of bench/public_programs.py on the chip (issue 34).

Built twice -- on the TPU and on the CPU as the reference -- fed the same seeded random inputs,
compiled and run on the chip and compared with the CPU under ``jax.default_matmul_precision
('highest')`` (bench/chip_jobs.py's ``_run_program`` and ``judged``); the result also carries
xladoctor's verdict on the very lowering the chip got (``ours_arrays``) and on the
ShapeDtypeStruct lowering (``ours_sds``).

    python bench/chip_campaign.py --make public > jobs.jsonl
"""

from __future__ import annotations

import time
from typing import Any

import jax


def public_jobs() -> list[dict[str, Any]]:
    import public_programs

    return [{"kind": "public", "name": n, "ours": True} for n in public_programs.NAMES]


def _build(name: str, device: Any) -> Any:
    import public_programs as pp

    pp.DEV = device
    return pp.build(name)


def public_job(job: dict[str, Any]) -> dict[str, Any]:
    import chip_jobs

    name = job["name"]
    tpu, cpu = jax.devices()[0], jax.devices("cpu")[0]
    res: dict[str, Any] = {"platform": tpu.platform, "device_kind": getattr(tpu, "device_kind", "")}
    prog = _build(name, tpu)
    ref = _build(name, cpu)
    inputs = chip_jobs.random_inputs(jax.tree.leaves(prog.args), name)
    with jax.default_matmul_precision("highest"):
        ref_stage, ref_out, ref_err = chip_jobs._run_program(ref, inputs)
        t0 = time.perf_counter()
        stage, out, err = chip_jobs._run_program(prog, inputs, res if job.get("ours") else None)
    res["seconds"] = round(time.perf_counter() - t0, 3)
    res["reference"] = ref_stage if ref_stage != "ok" else "cpu"
    return {**res, **chip_jobs.judged(stage, out, err, ref_stage, ref_out, ref_err)}
