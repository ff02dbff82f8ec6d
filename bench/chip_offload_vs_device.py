"""PR #4995 FLAT / TRIP_COUNT_ONE on the chip: offloading policy vs the same names saved on device.

Why: the public-programs round (round5-public.jsonl) found these two differing from the CPU by up
to 8% of the leaf's scale.  Run on the device machine (``JAX_PLATFORMS=tpu,cpu python
bench/chip_offload_vs_device.py``); its output is tests/data/chip/pr4995-offload-vs-device.json.

If offloading corrupted data, the chip's offload run would differ from the chip's device-save run;
if the chip's own numerics differ from the CPU's, both chip runs differ from the CPU alike."""
import json
import os
import sys
import zlib

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

def pols() -> dict:
    """The policy PR #4995 uses (offload the layer's input) and the same name saved on device."""
    import public_programs_2

    cp = jax.checkpoint_policies
    return {"offload": public_programs_2._offload_policy("decoder_layer_input"),
            "device": cp.save_only_these_names("decoder_layer_input")}


def make(case: str, policy: object) -> tuple:
    """PR #4995's program (bench/public_programs_2.py) under ``policy``: the gradient and its shapes."""
    import public_programs_2

    fn, args = public_programs_2._pr4995(case, lambda shape: jax.ShapeDtypeStruct(shape, jnp.float32), policy)
    return fn, [a.shape for a in args]


def compare(res: dict, a: tuple, b: tuple, scale: float) -> dict:
    d = np.abs(res[a] - res[b])
    return {"max_over_scale": float(d.max() / scale), "frac_over_1e-3_scale": float(np.mean(d > 1e-3 * scale)),
            "identical": bool(np.array_equal(res[a], res[b]))}


def run_case(case: str) -> dict:
    """The gradient under both policies, on the chip and on the CPU, from the same seeded inputs."""
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    res = {}
    args = None
    for pname, pol in pols().items():
        fn, shapes = make(case, pol)
        if args is None:
            args = [(rng.standard_normal(s) * 0.5).astype(np.float32) for s in shapes]
        for plat in ("tpu", "cpu"):
            dev = jax.devices(plat)[0]
            with jax.default_matmul_precision("highest"):
                r = jax.jit(fn)(*[jax.device_put(a, dev) for a in args])
            res[(pname, plat)] = np.asarray(r)
    scale = float(np.abs(res[("device", "cpu")]).max())
    return {"offload_tpu_vs_device_tpu": compare(res, ("offload", "tpu"), ("device", "tpu"), scale),
            "offload_tpu_vs_cpu": compare(res, ("offload", "tpu"), ("offload", "cpu"), scale),
            "device_tpu_vs_cpu": compare(res, ("device", "tpu"), ("device", "cpu"), scale),
            "offload_cpu_vs_device_cpu": compare(res, ("offload", "cpu"), ("device", "cpu"), scale)}


if __name__ == "__main__":
    out = {case: run_case(case) for case in ("FLAT", "TRIP_COUNT_ONE")}
    print(json.dumps({"versions": {"jax": jax.__version__, "device": jax.devices()[0].device_kind}, **out}, indent=1))
