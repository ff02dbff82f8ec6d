"""Layout cases for the chip campaign: ``device_put`` to tiled Formats, and E0102 as each user route
raises it (bench/chip_campaign.py ``--make formats`` / ``--make routes``; run by bench/chip_jobs.py).

The routes: a function compiled ahead of time for one input layout and then given an array of
another, reached the ways users reach it -- a plain call of the ``Compiled``, ``jit`` with a
``Format`` in ``in_shardings``, a serialised and reloaded executable, a ``jax.export`` round trip,
the executable's low-level ``execute_sharded`` -- and the remedies xladoctor gives
(``device_put(x, compiled.input_formats[i])`` and its numpy relayout), checked for right data.
"""

from __future__ import annotations

import zlib
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# dtype, shape, major_to_minor, tiling (None: the chip's default tiling for that order)
_TILINGS = {
    "float32": [None, [[8, 128]], [[1, 128]], [[2, 128]], [[4, 128]]],
    "bfloat16": [None, [[8, 128], [2, 1]], [[16, 128], [2, 1]], [[8, 128]], [[1, 128]]],
    "float16": [None, [[8, 128], [2, 1]], [[16, 128], [2, 1]]],
    "int8": [None, [[8, 128], [4, 1]], [[32, 128], [4, 1]], [[8, 128]]],
    "int32": [None, [[8, 128]], [[1, 128]]],
    "bool": [None, [[8, 128], [4, 1]], [[32, 128], [4, 1]]],
}
_SHAPES = [[16, 128], [7, 1000]]


def format_jobs() -> list[dict[str, Any]]:
    jobs = []
    for dtype, tilings in _TILINGS.items():
        for shape in _SHAPES:
            orders = [list(range(len(shape)))]
            if shape == [7, 1000]:
                orders.append([1, 0])
            for m2m in orders:
                for tiling in tilings:
                    jobs.append({"kind": "format_put", "dtype": dtype, "shape": shape, "major_to_minor": m2m,
                                 "tiling": tiling})
    return jobs


_ROUTES = ("aot_call", "jit_format", "serialized", "export", "execute_sharded", "fix_device_put", "fix_numpy")
_CASES = [("bfloat16", [16, 1280, 40], [0, 2, 1]), ("float32", [64, 256], [1, 0]), ("int8", [40, 384], [1, 0]),
          ("float32", [8, 128, 3], [0, 2, 1])]


def route_jobs() -> list[dict[str, Any]]:
    return [{"kind": "e0102_route", "route": r, "dtype": d, "shape": s, "major_to_minor": m}
            for d, s, m in _CASES for r in _ROUTES]


def _data(job: dict[str, Any]) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(repr(sorted(job.items())).encode()))
    dt = jnp.bfloat16 if job["dtype"] == "bfloat16" else np.dtype(job["dtype"])
    if job["dtype"] in ("int8", "int32"):
        return rng.integers(-100, 100, job["shape"]).astype(dt)
    return (rng.standard_normal(job["shape"]) * 2).astype(dt)


def _f(x):
    return x * 2 + 1 if x.dtype != jnp.int8 else x + 1


def _compiled(job: dict[str, Any], x: np.ndarray) -> Any:
    from jax.experimental.layout import Format, Layout

    dev = jax.devices()[0]
    fmt = Format(Layout(tuple(job["major_to_minor"])), jax.sharding.SingleDeviceSharding(dev))
    sds = jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=fmt)
    return jax.jit(_f, in_shardings=fmt).trace(sds).lower().compile(), fmt


def route_job(job: dict[str, Any]) -> dict[str, Any]:
    from chip_jobs import text_of

    x = _data(job)
    want = np.asarray(jax.device_get(jax.jit(_f, backend="cpu")(x)))
    res: dict[str, Any] = {}
    try:
        compiled, fmt = _compiled(job, x)
        res["input_formats"] = str(compiled.input_formats)
    except Exception as e:
        return {"outcome": "compile_error", "error": text_of(e)}
    arr = jax.device_put(x, jax.devices()[0])  # the default layout
    route = job["route"]
    try:
        if route == "aot_call":
            out = compiled(arr)
        elif route == "jit_format":
            out = jax.jit(_f, in_shardings=fmt)(arr)
        elif route == "serialized":
            from jax.experimental.serialize_executable import deserialize_and_load, serialize

            payload, in_tree, out_tree = serialize(compiled)
            out = deserialize_and_load(payload, in_tree, out_tree)(arr)
        elif route == "export":
            from jax import export

            exp = export.export(jax.jit(_f, in_shardings=fmt))(jax.ShapeDtypeStruct(x.shape, x.dtype))
            try:
                exp = export.deserialize(exp.serialize())
            except ImportError:  # flatbuffers missing: the Exported itself, not its bytes
                pass
            out = exp.call(arr)
        elif route == "execute_sharded":
            exe = compiled._executable.xla_executable
            out = exe.execute_sharded([arr]).disassemble_into_single_device_arrays()[0][0]
        elif route == "fix_device_put":
            out = compiled(jax.device_put(arr, compiled.input_formats[0][0]))
        else:  # fix_numpy: the numpy array straight to the expected format
            out = compiled(jax.device_put(x, compiled.input_formats[0][0]))
        jax.block_until_ready(out)
        got = np.asarray(jax.device_get(out))
    except Exception as e:
        res.update(outcome="raised", error=text_of(e))
        return res
    same = bool(np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-2, atol=1e-2))
    res["outcome"] = "right" if same else "wrong"
    if not same:
        res["fraction_wrong"] = float(np.mean(~np.isclose(got.astype(np.float64), want.astype(np.float64),
                                                          rtol=1e-2, atol=1e-2)))
    return res


_UNPINNED = [("float32", [8, 128]), ("float32", [128]), ("float32", []), ("float32", [3, 5]), ("float32", [2, 8, 128]),
             ("bfloat16", [16, 128]), ("int8", [32, 128]), ("int32", [8, 128]), ("float32", [1024, 1024])]


_NARROW = [("int8", [32, 128]), ("int8", [8, 128]), ("int8", [64, 256]), ("int8", [7, 100]), ("uint8", [32, 128]),
           ("bfloat16", [8, 128]), ("bfloat16", [7, 100]), ("float16", [16, 128]), ("float8_e4m3fn", [32, 128]),
           ("int16", [16, 128]), ("float32", [7, 100]), ("int32", [])]


def pinned_jobs() -> list[dict[str, Any]]:
    """Narrow dtypes (and odd shapes) as ``pinned_host`` arguments: the boundary of what runs."""
    return [{"kind": "unpinned_arg", "dtype": d, "shape": s, "memory_kind": "pinned_host", "use": u}
            for d, s in _NARROW for u in ("to_device", "return", "compute")]


def pattern_jobs() -> list[dict[str, Any]]:
    """A scan stacking its ys to host, by width and dtype; a slice of an array moved to host."""
    jobs = [{"kind": "pattern", "pattern": "scan_ys", "dtype": d, "shape": s, "length": n}
            for d in ("float32", "bfloat16") for s in ([8, 128], [8, 256], [16, 384], [8, 1000], [3, 129], [128])
            for n in (3, 8)]
    jobs += [{"kind": "pattern", "pattern": "slice_host", "dtype": d, "shape": [16, 256], "cols": k}
             for d in ("bfloat16", "float32") for k in (64, 100, 128, 200)]
    return jobs


def pattern_program(job: dict[str, Any], device: Any) -> tuple[Any, Any, Any, np.ndarray]:
    """``(fn, reference fn without the moves, argument array on device, its numpy data)``."""
    x = _data(job)
    host = jax.memory.Space.Host
    if job["pattern"] == "scan_ys":
        def step(c):
            return jnp.sin(c) + 1 if jnp.issubdtype(c.dtype, jnp.floating) else c + 1

        def f(v):
            def body(c, _):
                c = step(c)
                return c, jax.device_put(c, host)
            return jax.lax.scan(body, v, None, length=job["length"])

        def ref(v):
            def body(c, _):
                c = step(c)
                return c, c
            return jax.lax.scan(body, v, None, length=job["length"])
    else:
        def f(v):
            return jax.device_put(v[:, :job["cols"]], host)

        def ref(v):
            return v[:, :job["cols"]]
    return f, ref, jax.device_put(x, device), x


def pattern_job(job: dict[str, Any]) -> dict[str, Any]:
    from chip_jobs import text_of

    f, ref, arr, x = pattern_program(job, jax.devices()[0])
    want = jax.tree.map(np.asarray, jax.jit(ref, backend="cpu")(x))
    try:
        compiled = jax.jit(f).lower(arr).compile()
    except Exception as e:
        return {"outcome": "compile_error", "error": text_of(e)}
    try:
        got = jax.tree.map(lambda a: np.asarray(jax.device_get(a)), compiled(arr))
    except Exception as e:
        return {"outcome": "halt" if "halt" in str(e).lower() else "runtime_error", "error": text_of(e)}
    bad = [float(np.mean(~np.isclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=2e-2, atol=2e-2)))
           for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want))]
    return {"outcome": "right" if max(bad) == 0 else "wrong", "fraction_wrong": bad}


def unpinned_jobs() -> list[dict[str, Any]]:
    """An argument in ``unpinned_host`` (or, as the control, ``pinned_host``) memory, used three ways."""
    return [{"kind": "unpinned_arg", "dtype": d, "shape": s, "memory_kind": k, "use": u}
            for d, s in _UNPINNED for k in ("unpinned_host", "pinned_host") for u in ("to_device", "return", "compute")]


def unpinned_program(job: dict[str, Any], device: Any) -> tuple[Any, Any, np.ndarray]:
    """``(fn, argument array on device in the job's memory kind, its numpy data)``."""
    x = _data(job)
    shard = jax.sharding.SingleDeviceSharding(device, memory_kind=job["memory_kind"])

    def f(v):
        if job["use"] == "to_device":
            return jax.device_put(v, jax.memory.Space.Device) * 2
        return v if job["use"] == "return" else v * 2

    return f, jax.device_put(x, shard), x


def unpinned_job(job: dict[str, Any]) -> dict[str, Any]:
    from chip_jobs import text_of

    res: dict[str, Any] = {}
    try:
        f, arr, x = unpinned_program(job, jax.devices()[0])
        res["arg_format"] = str(getattr(arr, "format", ""))
        lowered = jax.jit(f).trace(arr).lower()
        res["main"] = next((ln.strip() for ln in lowered.as_text().splitlines() if "@main" in ln), "")[:800]
        compiled = lowered.compile()
        res["input_formats"] = str(compiled.input_formats)
    except Exception as e:
        return {**res, "outcome": "compile_error", "error": text_of(e)}
    try:
        out = compiled(arr)
        got = np.asarray(jax.device_get(out))
    except ValueError as e:
        return {**res, "outcome": "refused", "error": text_of(e)}
    except Exception as e:
        return {**res, "outcome": "runtime_error", "error": text_of(e)}
    want = x if job["use"] == "return" else x * x.dtype.type(2)  # in the dtype: int8 wraps as the chip's does
    same = bool(np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-2, atol=1e-2))
    return {**res, "outcome": "right" if same else "wrong"}
