"""Generated variants around the public programs' failures, judged by libtpu compile-only (issue 34).

Two families, each a grid around one public program that the compiler rejects:

* ``lane``: openxla/xla#20373's scan -- each iteration moves an element to pinned_host, scan
  stacks them into a host buffer (a dynamic-update-slice of a host buffer in the loop), with or
  without a device ys of the same shape beside it; by element shape, dtype and trip count.
* ``nested``: MaxText PR #4995's reproducer -- a layer under ``jax.checkpoint`` with an
  offloading policy, scanned ``inner`` times inside an outer scan of ``outer`` trips,
  differentiated; by trip counts, width, dtype, what the policy names (the layer's input, its
  output -- which nothing needs, so nothing is offloaded -- or the pre-activation) and with the
  fix our failure gives (the outer scan's body under ``jax.checkpoint``).
* ``stack``: the same two stacks written by hand, no ``grad``: an inner scan stacking moves to
  host inside an outer scan of the stacks, then read back by one of several readers (nested
  scans, a ``fori_loop``, static rows, the whole slice moved to device, outside any loop); by
  trip counts and dtype (later_nested.py's boundary).
* ``scatter``: openxla/xla#34565 as the chip ran it -- a buffer already in ``pinned_host``, updated
  where it is (the result left in ``pinned_host``, what JAX lowers for arrays in host memory): a
  static slice set (``x.at[a:a+n].set(y)``; ``lax.dynamic_update_slice`` JAX refuses to trace
  with a host operand and a device update) or an indexed
  scatter (``x.at[i].set(y)``/``.add``), by update width, offset, dtype, buffer rank and where
  the update and the indices are.
* ``shard_map``: memories_test's ``test_ragged_copy_on_host`` (a ``shard_map``'d while loop
  copying chunks into a ``pinned_host`` buffer) on a mesh of 1, 2 or 4 devices, by page count;
  needs that many devices: ``XLA_FLAGS=--xla_force_host_platform_device_count=4``.

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


def nested_program(outer: int, inner: int, width: int, dtype: str, name_at: str,
                   outer_checkpointed: bool = False) -> tuple[Callable[..., Any], tuple]:
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["n"],
        offload_src="device", offload_dst="pinned_host")

    def layer(x, w):
        if name_at == "input":
            x = checkpoint_name(x, "n")
            return jnp.tanh(x @ w), None
        if name_at == "pre":
            return jnp.sin(checkpoint_name(x @ w, "n")), None
        return checkpoint_name(jnp.tanh(x @ w), "n"), None

    layer_c = jax.checkpoint(layer, policy=policy)

    def block(x, ws):
        return jax.lax.scan(layer_c, x, ws)[0], None

    def loss(ws, x):
        body = jax.checkpoint(block) if outer_checkpointed else block
        return jnp.sum(jax.lax.scan(body, x, ws)[0].astype(jnp.float32) ** 2)
    dt = jnp.dtype(dtype)
    return jax.grad(loss), (jax.ShapeDtypeStruct((outer, inner, width, width), dt),
                            jax.ShapeDtypeStruct((16, width), dt))


def nested_grid() -> Iterator[dict[str, Any]]:
    for outer, inner in itertools.product((1, 2, 3, 4), (1, 2, 3)):
        for width, dtype, name_at in [(128, "float32", "input"), (128, "float32", "output"),
                                      (256, "bfloat16", "input"), (128, "float32", "pre")]:
            yield {"outer": outer, "inner": inner, "width": width, "dtype": dtype, "name_at": name_at,
                   "outer_checkpointed": False}
    for outer, inner in ((2, 2), (4, 3)):
        yield {"outer": outer, "inner": inner, "width": 128, "dtype": "float32", "name_at": "input",
               "outer_checkpointed": True}


READERS = ("scan_scan", "scan_rows", "fori_scan", "slice_to_device", "outside_loop", "host_argument")


def stack_program(outer: int, inner: int, dtype: str, reader: str) -> tuple[Callable[..., Any], tuple]:
    """An inner scan stacks moves to host, an outer scan stacks those stacks; ``reader`` reads them."""
    host, device = jax.memory.Space.Host, jax.memory.Space.Device

    def stacks(x):
        def outer_body(c, _):
            def inner_body(c, _):
                c = jnp.sin(c)
                return c, jax.device_put(c, host)
            return jax.lax.scan(inner_body, c, None, length=inner)
        return jax.lax.scan(outer_body, x, None, length=outer)

    def rows(c, block):
        return jax.lax.scan(lambda c, r: (c * jax.device_put(r, device), None), c, block)[0]

    def f(x, k):
        c, ys = stacks(x)
        if reader == "scan_scan":
            return jax.lax.scan(lambda c, b: (rows(c, b), None), c, ys)[0]
        if reader == "scan_rows":
            def static_rows(c, b):
                for i in range(inner):
                    c = c * jax.device_put(b[i], device)
                return c, None
            return jax.lax.scan(static_rows, c, ys)[0]
        if reader == "fori_scan":
            return jax.lax.fori_loop(0, outer, lambda i, c: rows(c, ys[i]), c)
        if reader == "slice_to_device":
            return jax.lax.scan(lambda c, b: (rows(c, jax.device_put(b, device)), None), c, ys)[0]
        if reader == "outside_loop":
            return c * jax.device_put(jax.lax.dynamic_index_in_dim(ys, k, keepdims=False)[0], device)
        return c * jax.device_put(ys, device).sum(axis=(0, 1))
    dt = jnp.dtype(dtype)
    return f, (jax.ShapeDtypeStruct((16, 128), dt), jax.ShapeDtypeStruct((), jnp.int32))


def host_argument_program(outer: int, inner: int, dtype: str) -> tuple[Callable[..., Any], tuple]:
    """The nested reader of ``stack`` over a host argument of the stacks' shape (no stacking)."""
    p = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")

    def f(x, ys):
        def rows(c, block):
            return jax.lax.scan(lambda c, r: (c * jax.device_put(r, jax.memory.Space.Device), None), c, block)[0]
        return jax.lax.scan(lambda c, b: (rows(c, b), None), x, ys)[0]
    dt = jnp.dtype(dtype)
    return f, (jax.ShapeDtypeStruct((16, 128), dt), jax.ShapeDtypeStruct((outer, inner, 16, 128), dt, sharding=p))


def stack_grid() -> Iterator[dict[str, Any]]:
    for (outer, inner), reader in itertools.product(((1, 2), (2, 1), (2, 2), (3, 2), (4, 3)), READERS):
        yield {"outer": outer, "inner": inner, "dtype": "float32", "reader": reader}
    for reader in ("scan_scan", "slice_to_device"):
        yield {"outer": 3, "inner": 2, "dtype": "bfloat16", "reader": reader}


def scatter_program(form: str, n: int, offset: int, dtype: str, rows: bool, update_host: bool,
                    index_host: bool) -> tuple[Callable[..., Any], tuple, dict[str, Any]]:
    """``x`` in pinned_host (a flat ``[65536]`` or a ``[512, 128]`` buffer) updated by ``form``."""
    dev = jax.devices()[0]
    p = jax.sharding.SingleDeviceSharding(dev, memory_kind="pinned_host")
    host, dt = jax.memory.Space.Host, jnp.dtype(dtype)
    shape, upd = ((512, 128), (n, 128)) if rows else ((1 << 16,), (n,))

    def f(x, y):
        if form.endswith("via_device"):  # the fix our failure gives: update on device, move back
            x = jax.device_put(x, jax.memory.Space.Device)
            form_on_device = form.replace("_via_device", "")
            return jax.device_put(f_on(x, y, form_on_device), host)
        return f_on(x, y, form)

    def f_on(x, y, form):
        y = y.astype(dt)
        y = jax.device_put(y, host) if update_host else y
        if form == "compute":  # control: elementwise host compute, no scatter
            return x * 2 + 1
        if form.startswith("slice_set"):
            out = x.at[offset:offset + n].set(y)
            return jax.device_put(out, jax.memory.Space.Device) if form.endswith("to_device") else out
        i = jnp.arange(n) + offset
        i = jax.device_put(i, host) if index_host else i
        out = x.at[i].add(y) if form == "index_add" else x.at[i].set(y)
        return jax.device_put(out, jax.memory.Space.Device) if form.endswith("to_device") else out
    out = jax.sharding.SingleDeviceSharding(dev, memory_kind="device") if form.endswith("to_device") else p
    return f, (jax.ShapeDtypeStruct(shape, dt, sharding=p), jax.ShapeDtypeStruct(upd, jnp.int32)), \
        {"out_shardings": out}


def scatter_grid() -> Iterator[dict[str, Any]]:
    base = {"form": "slice_set", "n": 5, "offset": 0, "dtype": "float32", "rows": False, "update_host": True,
            "index_host": True}
    for n, offset in ((1, 0), (5, 0), (5, 128), (127, 0), (128, 0), (128, 5), (256, 128), (1000, 0)):
        yield {**base, "n": n, "offset": offset}
    for dtype in ("bfloat16", "int32", "int8"):
        yield {**base, "dtype": dtype}
    for n in (1, 2, 4, 5, 7, 8, 9, 16, 24):
        yield {**base, "rows": True, "n": n}
    for n in (1, 8, 16, 32):
        yield {**base, "rows": True, "n": n, "dtype": "bfloat16"}
    for form in ("slice_set_to_device", "index_set_to_device", "compute"):
        yield {**base, "form": form}
    fixed = {**base, "update_host": False, "index_host": False}
    for form, rows in (("slice_set_via_device", False), ("slice_set_via_device", True), ("index_set_via_device", False)):
        yield {**fixed, "form": form, "rows": rows}
    yield {**base, "update_host": False}
    for form in ("index_set", "index_add"):
        for n, update_host, index_host in ((5, True, True), (5, True, False), (5, False, True), (5, False, False),
                                           (128, True, True)):
            yield {**base, "form": form, "n": n, "update_host": update_host, "index_host": index_host}
        yield {**base, "form": form, "rows": True, "n": 2}
        yield {**base, "form": form, "dtype": "bfloat16"}


def shard_map_program(devices: int, pages: int) -> tuple[Callable[..., Any], tuple, dict[str, Any]]:
    """bench/public_programs.py's ragged copy on a ``devices``-device mesh with ``pages`` pages."""
    import numpy as np
    import public_programs
    from jax.sharding import Mesh

    if len(jax.devices()) < devices:
        raise RuntimeError(f"{devices} devices needed: XLA_FLAGS=--xla_force_host_platform_device_count={devices}")
    mesh = Mesh(np.array(jax.devices()[:devices]), ("x",))
    return public_programs.ragged_copy(mesh, pages)


def shard_map_form(form: str) -> tuple[Callable[..., Any], tuple, dict[str, Any]]:
    """A 2-device ``shard_map`` beside host memory; ``form`` says which (module docstring)."""
    import numpy as np
    from jax import shard_map
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    if len(jax.devices()) < 2:
        raise RuntimeError("2 devices needed: XLA_FLAGS=--xla_force_host_platform_device_count=2")
    mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
    dev = NamedSharding(mesh, P("x"))
    host = dev.with_memory_kind("pinned_host")

    def sm(f: Callable[..., Any]) -> Callable[..., Any]:
        return shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
    if form == "host_argument_returned":
        return (lambda x: sm(lambda a: a)(x)), (jax.ShapeDtypeStruct((64, 128), jnp.float32, sharding=host),), \
            {"out_shardings": host}
    if form == "beside_a_global_sum":
        return (lambda x: (sm(lambda a: a + 1)(x), jnp.sum(x))), \
            (jax.ShapeDtypeStruct((64, 128), jnp.float32, sharding=dev),), {"out_shardings": (host, None)}
    raise ValueError(form)


def shard_map_grid() -> Iterator[dict[str, Any]]:
    for devices, pages in itertools.product((1, 2, 4), (1024, 8192)):
        yield {"devices": devices, "pages": pages}
    for form in ("host_argument_returned", "beside_a_global_sum"):
        yield {"devices": 2, "form": form}


def _shard_map(c: dict[str, Any]) -> tuple[Callable[..., Any], tuple, dict[str, Any]]:
    return shard_map_form(c["form"]) if "form" in c else shard_map_program(c["devices"], c["pages"])


def _stack(c: dict[str, Any]) -> tuple[Callable[..., Any], tuple]:
    if c["reader"] == "host_argument":
        return host_argument_program(c["outer"], c["inner"], c["dtype"])
    return stack_program(c["outer"], c["inner"], c["dtype"], c["reader"])


FAMILIES = {"lane": (lane_grid, lambda c: lane_program(tuple(c["shape"]), c["dtype"], c["length"], c["device_ys"])),
            "nested": (nested_grid, lambda c: nested_program(c["outer"], c["inner"], c["width"], c["dtype"],
                                                             c["name_at"], c.get("outer_checkpointed", False))),
            "stack": (stack_grid, _stack),
            "shard_map": (shard_map_grid, _shard_map),
            "scatter": (scatter_grid, lambda c: scatter_program(c["form"], c["n"], c["offset"], c["dtype"], c["rows"],
                                                                c["update_host"], c["index_host"]))}


def judge_one(worker: Any, fn: Callable[..., Any], args: tuple, jit_kwargs: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    from xladoctor.jax import check_offload

    try:
        lowered = jax.jit(fn, **(jit_kwargs or {})).trace(*args).lower(lowering_platforms=("tpu",))
    except Exception as e:
        return {"compiler": "trace_error", "error": f"{type(e).__name__}: {e}"[:200]}
    v = worker.compile_stablehlo(lowered.as_text())
    rep = check_offload(lowered)
    first = (v.check_line or v.message or "").strip().splitlines()
    return {"compiler": v.kind, "message": first[0][:240] if first else "", "ours": rep.outcome,
            "failures": [f[:400] for f in rep.failures], "warnings": len(rep.result.warnings) if rep.result else 0}


def main(argv: list[str]) -> int:
    from xladoctor.oracle import OracleWorker

    grid, make = FAMILIES[argv[0]]
    with OracleWorker("v5e:2x2", timeout=180, want_text=False) as worker:
        for choices in grid():
            fn, args, *kw = make(choices)
            print(json.dumps({**choices, **judge_one(worker, fn, args, *kw)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
