"""Generated variants around the public programs' failures, judged by libtpu compile-only (issue 34).

Two families, each a grid around one public program that the compiler rejects:

* ``lane``: openxla/xla#20373's scan -- each iteration moves an element to pinned_host, scan
  stacks them into a host buffer (a dynamic-update-slice of a host buffer in the loop), with or
  without a device ys of the same shape beside it; by element shape, dtype and trip count.
* ``nested``: MaxText PR #4995's reproducer -- a layer under ``jax.checkpoint`` with an
  offloading policy, scanned ``inner`` times inside an outer scan of ``outer`` trips,
  differentiated; by trip counts, width, dtype and what the policy offloads.

Each row: the choices, the compiler's kind and first line, and xladoctor's outcome, failures and
warning count.  ``python bench/public_boundaries.py lane > lane.jsonl``.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


def lane_program(shape: tuple[int, ...], dtype: str, length: int, device_ys: bool) -> tuple[Callable[..., Any], tuple]:
    p = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")

    def f(x):
        def g(c, _):
            c = c + jnp.ones((), c.dtype)
            ys = (jax.device_put(c, p), c * 2) if device_ys else jax.device_put(c, p)
            return c, ys
        return jax.lax.scan(g, x, None, length=length)[1]
    return f, (jax.ShapeDtypeStruct(shape, jnp.dtype(dtype)),)


def lane_grid() -> Iterator[dict[str, Any]]:
    shapes = [(), (1,), (2,), (100,), (128,), (256,), (1, 128), (2, 128), (8, 128), (3, 5)]
    for shape, dtype in itertools.product(shapes, ("float32", "bfloat16", "int32", "int8")):
        for length in (1, 4):
            yield {"shape": list(shape), "dtype": dtype, "length": length, "device_ys": False}
    for shape in [(), (1,), (128,)]:
        for length in (2, 4, 64):
            yield {"shape": list(shape), "dtype": "float32", "length": length, "device_ys": True}


def nested_program(outer: int, inner: int, width: int, dtype: str, name_at: str) -> tuple[Callable[..., Any], tuple]:
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["n"],
        offload_src="device", offload_dst="pinned_host")

    def layer(x, w):
        if name_at == "input":
            x = checkpoint_name(x, "n")
            return jnp.tanh(x @ w), None
        return checkpoint_name(jnp.tanh(x @ w), "n"), None

    layer_c = jax.checkpoint(layer, policy=policy)

    def block(x, ws):
        return jax.lax.scan(layer_c, x, ws)[0], None

    def loss(ws, x):
        return jnp.sum(jax.lax.scan(block, x, ws)[0].astype(jnp.float32) ** 2)
    dt = jnp.dtype(dtype)
    return jax.grad(loss), (jax.ShapeDtypeStruct((outer, inner, width, width), dt),
                            jax.ShapeDtypeStruct((16, width), dt))


def nested_grid() -> Iterator[dict[str, Any]]:
    for outer, inner in itertools.product((1, 2, 3, 4), (1, 2, 3)):
        for width, dtype, name_at in [(128, "float32", "input"), (128, "float32", "output"),
                                      (256, "bfloat16", "input")]:
            yield {"outer": outer, "inner": inner, "width": width, "dtype": dtype, "name_at": name_at}


FAMILIES = {"lane": (lane_grid, lambda c: lane_program(tuple(c["shape"]), c["dtype"], c["length"], c["device_ys"])),
            "nested": (nested_grid, lambda c: nested_program(c["outer"], c["inner"], c["width"], c["dtype"],
                                                             c["name_at"]))}


def judge_one(worker: Any, fn: Callable[..., Any], args: tuple) -> dict[str, Any]:
    from xladoctor.jax import check_offload

    try:
        lowered = jax.jit(fn).trace(*args).lower(lowering_platforms=("tpu",))
    except Exception as e:
        return {"compiler": "trace_error", "error": f"{type(e).__name__}: {e}"[:200]}
    v = worker.compile_stablehlo(lowered.as_text())
    rep = check_offload(lowered)
    first = (v.check_line or v.message or "").strip().splitlines()
    return {"compiler": v.kind, "message": first[0][:240] if first else "", "ours": rep.outcome,
            "failures": [f[:160] for f in rep.failures], "warnings": len(rep.result.warnings) if rep.result else 0}


def main(argv: list[str]) -> int:
    from xladoctor.oracle import OracleWorker

    grid, make = FAMILIES[argv[0]]
    with OracleWorker("v5e:2x2", timeout=180, want_text=False) as worker:
        for choices in grid():
            fn, args = make(choices)
            print(json.dumps({**choices, **judge_one(worker, fn, args)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
