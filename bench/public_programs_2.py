"""The second half of bench/public_programs.py: MaxText's programs and public issues' reproducers.

Registered into :mod:`public_programs` by :func:`register_more` (one module would pass the 500-line
limit).  Every program keeps the source's structure; sizes are small enough for the CPU reference.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
from jax.experimental.compute_on import compute_on2
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

PR4995 = "https://github.com/AI-Hypercomputer/maxtext/pull/4995"
DECODERS = "https://github.com/AI-Hypercomputer/maxtext/blob/main/src/MaxText/layers/decoders.py"


def _offload_policy(*names: str) -> Any:
    return jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=list(names),
        offload_src="device", offload_dst="pinned_host")


def _pr4995(case: str, sds: Callable[..., Any], policy: Any = None) -> tuple[Any, ...]:
    """PR #4995's three cases: FLAT (one scan over 12 layers), NESTED (a scan over 4 blocks, each
    an inner scan over 3 layers), TRIP_COUNT_ONE (a scan over 12 layers, each an inner scan of
    length 1), the layer under ``jax.checkpoint`` with an offloading policy, differentiated.
    ``policy``: another checkpoint policy for the same layer (bench/chip_offload_vs_device.py)."""
    policy = policy if policy is not None else _offload_policy("decoder_layer_input")

    def layer(x, w):
        x = checkpoint_name(x, "decoder_layer_input")
        return jnp.tanh(x @ w), None

    layer_c = jax.checkpoint(layer, policy=policy)

    def block(x, ws):
        return jax.lax.scan(layer_c, x, ws)[0], None

    def loss(ws, x):
        y = jax.lax.scan(layer_c if case == "FLAT" else block, x, ws)[0]
        return jnp.sum(y * y)
    shape = {"FLAT": (12, 128, 128), "NESTED": (4, 3, 128, 128), "TRIP_COUNT_ONE": (12, 1, 128, 128)}[case]
    return jax.grad(loss), (sds(shape), sds((16, 128)))


def _maxtext_decoder(policy_name: str, sds: Callable[..., Any]) -> tuple[Any, ...]:
    """A scanned decoder (``scan_layers=True``, ``nn.remat(..., prevent_cse=not scan_layers)``)
    whose layer names its activations as MaxText's do, under one of decoders.py's remat policies."""
    cp = jax.checkpoint_policies
    policy = {
        "minimal_offloaded": cp.offload_dot_with_no_batch_dims(offload_src="device", offload_dst="pinned_host"),
        "qkv_proj_offloaded": cp.save_and_offload_only_these_names(
            names_which_can_be_saved=[], names_which_can_be_offloaded=["query_proj", "value_proj", "key_proj"],
            offload_src="device", offload_dst="pinned_host"),
        "custom": cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["mlpwi"], names_which_can_be_offloaded=["decoder_layer_input", "out_proj"],
            offload_src="device", offload_dst="pinned_host"),
    }[policy_name]

    def decoder_layer(x, w):
        wq, wk, wv, wo, wi, wout = w
        x = checkpoint_name(x, "decoder_layer_input")
        q = checkpoint_name(x @ wq, "query_proj")
        k = checkpoint_name(x @ wk, "key_proj")
        v = checkpoint_name(x @ wv, "value_proj")
        att = jax.nn.softmax(jnp.einsum("bsd,btd->bst", q, k) / 8.0) @ v
        x = x + checkpoint_name(att @ wo, "out_proj")
        h = checkpoint_name(jax.nn.gelu(x @ wi), "mlpwi")
        return x + checkpoint_name(h @ wout, "mlpwo"), None

    layer = jax.checkpoint(decoder_layer, policy=policy, prevent_cse=False)

    def loss(params, x):
        return jnp.mean(jax.lax.scan(layer, x, params)[0] ** 2)
    d, m, n = 128, 256, 4
    params = tuple(sds((n, d, d)) for _ in range(4)) + (sds((n, d, m)), sds((n, m, d)))
    return jax.value_and_grad(loss), (params, sds((2, 64, d)))


def register_more(program: Callable[..., Any], sds: Callable[..., Any], single: Callable[..., Any],
                  mesh1: Callable[..., Any]) -> None:
    for case in ("FLAT", "NESTED", "TRIP_COUNT_ONE"):
        program(f"maxtext_pr4995_{case.lower()}", PR4995)(functools.partial(_pr4995, case, sds))
    for name in ("minimal_offloaded", "qkv_proj_offloaded", "custom"):
        program(f"maxtext_remat_{name}", DECODERS + " (remat_policy)")(functools.partial(_maxtext_decoder, name, sds))

    @program("maxtext_param_offload", "https://github.com/AI-Hypercomputer/maxtext/pull/1484")
    def _params():
        """Parameters kept in pinned_host and moved to device inside the step (the PR's
        ``param_scan_axis`` path reduced to one scanned matmul stack)."""
        s_dev = single("device")

        def step(params, x):
            params = jax.device_put(params, s_dev)

            def loss(p):
                return jnp.mean(jax.lax.scan(lambda c, w: (jnp.tanh(c @ w), None), x, p)[0] ** 2)
            return jax.grad(loss)(params)
        return step, (sds((4, 128, 128), sharding=single("pinned_host")), sds((8, 128)))

    @program("xla20373_scan_host_and_device_ys", "https://github.com/openxla/xla/issues/20373")
    def _x20373():
        p = single("pinned_host")

        def f():
            def g(_1, _2):
                return None, (jax.device_put(jnp.array(1.0), p), jnp.array(2.0))
            return jax.lax.scan(g, None, length=4)[1]
        return f, ()

    def _scatter(dynamic: bool) -> tuple[Any, ...]:
        cpu = single("pinned_host")

        def update(x, y):
            if dynamic:
                i = jnp.arange(5)
                i = jax.device_put(i, cpu)
                y = y.astype(x.dtype)
                y = jax.device_put(y, cpu)
                return x.at[i].set(y)
            y = y.astype(x.dtype)
            y = jax.device_put(y, cpu)
            return x.at[:5].set(y)
        # the f32[536870912] (2 GiB) cut to f32[1048576]
        return update, (sds((1 << 20,), jnp.float32, cpu), sds((5,), jnp.int32))

    program("xla34565_scatter_static_pinned_host", "https://github.com/openxla/xla/issues/34565")(
        functools.partial(_scatter, False))
    program("xla34565_scatter_dynamic_pinned_host", "https://github.com/openxla/xla/issues/34565")(
        functools.partial(_scatter, True))

    @program("jax24115_grad_scan_remat_offload", "https://github.com/jax-ml/jax/issues/24115")
    def _j24115():
        def apply(params, x):
            def step(y, i):
                y = jnp.sin(y)
                y = jax.ad_checkpoint.checkpoint_name(y, "save_remat")
                y = jnp.sin(y)
                return y, ()
            step = jax.remat(step, policy=_offload_policy("save_remat"))
            return jax.grad(lambda p: jax.lax.scan(step, p, x)[0].sum())(params)
        return apply, (sds((3,)), sds((2, 3)))

    @program("jax23869_offload_scanned_block_output", "https://github.com/jax-ml/jax/issues/23869")
    def _j23869():
        """The issue's setup as its text describes it (block under remat with nothing saveable
        but the block's output, named ``output`` and offloaded), not its collapsed code."""
        policy = _offload_policy("output")

        def apply_block(x, w):
            h = jax.nn.relu(x @ w[0]) @ w[1]
            return checkpoint_name(x + h, "output"), None

        def loss(ws, x):
            return jnp.sum(jax.lax.scan(jax.remat(apply_block, policy=policy), x, ws)[0])
        return jax.grad(loss), ((sds((4, 256, 512)), sds((4, 512, 256))), sds((64, 256)))

    @program("jax34041_index_pinned_host", "https://github.com/jax-ml/jax/issues/34041")
    def _j34041():
        return (lambda a: a[0]), (sds((8, 128), sharding=single("pinned_host")),)

    @program("jax23887_cond_in_compute_on", "https://github.com/jax-ml/jax/issues/23887")
    def _j23887():
        @functools.partial(compute_on2, compute_type="device_host", out_memory_spaces=jax.memory.Space.Device)
        def g(p, x):
            return jax.lax.cond(p, lambda v: v + 1, lambda v: v - 1, x)
        return g, (sds((), jnp.bool_), sds((8,)))

    @program("jax27825_compute_on_aot", "https://github.com/jax-ml/jax/issues/27825")
    def _j27825():
        @functools.partial(compute_on2, compute_type="device_host", out_memory_spaces=jax.memory.Space.Device)
        def f(x):
            return x + 1
        return f, (sds((4,)),)

    @program("aot_sharded_host_output", "https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/aot.md")
    def _aot():
        """docs/aot.md's ``jax.jit(f).trace(ShapeDtypeStruct).lower().compile()`` route with a
        memory kind on the output (the notebook's out_shardings example)."""
        mesh = mesh1("x")
        s = NamedSharding(mesh, P("x"))
        return (lambda x: jnp.sin(x) * 2), (sds((64, 128), sharding=s),), \
            {"out_shardings": s.with_memory_kind("pinned_host")}
