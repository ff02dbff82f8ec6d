"""Real host-offload programs no one here wrote, copied from public sources (issue 34).

Each program is a public one -- JAX's host-offloading notebook and ``tests/memories_test.py`` at
the jax-v0.10.2 tag (the JAX this project pins), MaxText's PR #4995 reproducer and remat policies,
public jax/openxla issues -- with its URL above it.  The adaptation is the least that lets it
run on one chip and be compiled for the v5e:2x2 topology with libtpu compile-only: meshes of
``jtu.create_mesh((2, 2))`` become one-device meshes, arrays built with ``jnp.arange`` become
``ShapeDtypeStruct`` arguments with the same shape, dtype and memory kind, sizes of gigabytes
are cut to megabytes (said where), ``optax`` (not installed) is the same Adam written out, and
the test's asserts are dropped.  Nothing was chosen or changed to avoid a known gap of ours.

``DEV`` is the device the programs place on (the chip on the device machine, the CPU as the
reference); :func:`build` makes one program by name, :data:`NAMES` lists them in order.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.ad_checkpoint import Recompute, checkpoint_name
from jax.experimental.compute_on import compute_on2
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
from jax.sharding import PartitionSpec as P

DEV = jax.devices()[0]

DOCS = "https://github.com/jax-ml/jax/blob/jax-v0.10.2/docs/notebooks/host-offloading.md"
MEMORIES = "https://github.com/jax-ml/jax/blob/jax-v0.10.2/tests/memories_test.py"
PR4995 = "https://github.com/AI-Hypercomputer/maxtext/pull/4995"


@dataclass
class PublicProgram:
    """``jax.jit(fn, **jit_kwargs)`` traced with ``args`` (ShapeDtypeStructs), from ``source``."""

    name: str
    source: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    jit_kwargs: dict[str, Any] = field(default_factory=dict)

    def lower(self) -> Any:
        return jax.jit(self.fn, **self.jit_kwargs).trace(*self.args).lower(lowering_platforms=("tpu",))


_BUILDERS: dict[str, tuple[str, Callable[[], tuple[Any, ...]]]] = {}


def program(name: str, source: str) -> Callable[[Callable[[], tuple[Any, ...]]], Callable[[], tuple[Any, ...]]]:
    """Register a builder returning ``(fn, args)`` or ``(fn, args, jit_kwargs)``."""
    def register(make: Callable[[], tuple[Any, ...]]) -> Callable[[], tuple[Any, ...]]:
        assert name not in _BUILDERS, name
        _BUILDERS[name] = (source, make)
        return make
    return register


def build(name: str) -> PublicProgram:
    source, make = _BUILDERS[name]
    made = make()
    fn, args, kw = (*made, {})[:3] if len(made) == 2 else made
    return PublicProgram(name, source, fn, tuple(args), dict(kw))


def programs() -> list[PublicProgram]:
    return [build(n) for n in _BUILDERS]


def mesh1(*names: str) -> Mesh:
    """``jtu.create_mesh((2, 2), names)`` on one chip: every axis of size 1."""
    return Mesh(np.array([DEV]).reshape((1,) * len(names)), names)


def single(kind: str = "device") -> SingleDeviceSharding:
    return SingleDeviceSharding(DEV, memory_kind=kind)


def sds(shape: tuple[int, ...], dtype: Any = jnp.float32, sharding: Any = None) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding if sharding is not None else single())


def _inputs_82(kind: str | None = None, spec: P | None = None) -> tuple[Mesh, NamedSharding, jax.ShapeDtypeStruct]:
    """memories_test's ``_create_inputs((8, 2), spec, mem_kind)``: an int array on a 2x2 mesh."""
    spec = P("x", "y") if spec is None else spec
    mesh = mesh1("x", "y")
    s = NamedSharding(mesh, spec, memory_kind=kind)
    return mesh, s, sds((8, 2), jnp.int32, s)


# --- JAX's host-offloading notebook -------------------------------------------------------------

def _doc_shardings() -> tuple[NamedSharding, NamedSharding]:
    mesh = mesh1("x", "y")
    s_dev = NamedSharding(mesh, P("x", "y"), memory_kind="device")
    return s_dev, s_dev.with_memory_kind("pinned_host")


@program("doc_out_shardings_device", DOCS + "#device-output-sharding")
def _doc1():
    s_dev, s_host = _doc_shardings()
    return (lambda x: x), (sds((2, 4), sharding=s_host),), {"out_shardings": s_dev}


@program("doc_add_func", DOCS + "#device-output-sharding")
def _doc2():
    s_dev, s_host = _doc_shardings()

    def add_func(x):  # Move data to device and add one
        x = jax.device_put(x, s_dev)
        return x + 1
    return add_func, (sds((2, 4), sharding=s_host),), {"out_shardings": s_dev}


@program("doc_out_shardings_host", DOCS + "#host-output-sharding")
def _doc3():
    s_dev, s_host = _doc_shardings()
    return (lambda x: x), (sds((2, 4), sharding=s_dev),), {"out_shardings": s_host}


def _doc_weights() -> tuple[Any, ...]:
    return sds((10, 256, 1024)), sds((10, 1024, 256)), sds((256, 256))


@program("doc_scan_baseline_grad", DOCS + "#activation-offloading")
def _doc4():
    def two_layers(x, w):
        w1, w2 = w
        y = x @ w1
        return y @ w2, None

    def scanned(w, x):
        result = jax.lax.scan(two_layers, x, w)[0]
        return jnp.sum(result)
    w1, w2, inp = _doc_weights()
    return jax.grad(scanned), ((w1, w2), inp)


def _doc_policy() -> Any:
    from jax import checkpoint_policies as cp
    return cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["x"],
        offload_src="device", offload_dst="pinned_host")


@program("doc_activation_offload", DOCS + "#checkpoint-policies")
def _doc5():
    policy = _doc_policy()

    def layer_name(x, w):
        w1, w2 = w
        x = checkpoint_name(x, "x")
        y = x @ w1
        return y @ w2, None

    def scanned(w, x):
        remat_layer = jax.remat(layer_name, policy=policy, prevent_cse=False)
        result = jax.lax.scan(remat_layer, x, w)[0]
        return jnp.sum(result)
    w1, w2, inp = _doc_weights()
    return jax.grad(scanned), ((w1, w2), inp)


@program("doc_hybrid_param_and_activation_offload", DOCS + "#parameter-offloading")
def _doc6():
    policy = _doc_policy()
    s_dev, s_host = _doc_shardings()

    def hybrid_layer(x, w):
        w1, w2 = jax.tree.map(lambda x: jax.device_put(x, s_dev), w)
        x = checkpoint_name(x, "x")
        y = x @ w1
        return y @ w2, None

    def hybrid_scanned(w, x):
        remat_layer = jax.remat(hybrid_layer, policy=policy, prevent_cse=False)
        result = jax.lax.scan(remat_layer, x, w)[0]
        return jnp.sum(result)
    w1, w2, inp = _doc_weights()
    sh = NamedSharding(s_host.mesh, P(), memory_kind="pinned_host")
    return jax.grad(hybrid_scanned), ((sds(w1.shape, sharding=sh), sds(w2.shape, sharding=sh)), inp)


DIM = 512  # the notebook's 7168 (four 7168x7168 f32 weights, 0.8 GB, and Adam's state) cut to fit the CPU reference


def _optimizer_program(offload: bool) -> tuple[Any, ...]:
    """The notebook's optimizer-state example; ``optax.chain(clip_by_global_norm(1.0),
    adam(0.1))`` written out (optax is not installed here)."""
    def gelu(x):
        return 0.5 * x * (1 + jnp.tanh(jnp.sqrt(2 / jnp.pi) * (x + 0.044715 * x**3)))

    def forward(params, x):
        for i in range(1, 5):
            x = gelu(x @ params[f"w{i}"])
        return x

    def compute_loss(params, inputs):
        outputs = forward(params, inputs)
        loss = jnp.mean((outputs - inputs) ** 2)
        l2_reg = 0.001 * sum(jnp.sum(w ** 2) for w in jax.tree_util.tree_leaves(params))
        return loss + l2_reg

    def update(grads, opt_state, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
        grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / norm), grads)
        count, mu, nu = opt_state
        count = count + 1
        mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
        nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, nu, grads)
        mhat = jax.tree.map(lambda m: m / (1 - b1 ** count), mu)
        vhat = jax.tree.map(lambda v: v / (1 - b2 ** count), nu)
        updates = jax.tree.map(lambda m, v: -lr * m / (jnp.sqrt(v) + eps), mhat, vhat)
        return updates, (count, mu, nu)

    s_dev, s_host = single("device"), single("pinned_host")

    def step(params, opt_state, inputs):
        grads = jax.grad(lambda p: compute_loss(p, inputs))(params)
        if offload:
            opt_state = jax.device_put(opt_state, s_dev)
        updates, new_opt_state = update(grads, opt_state)
        new_params = jax.tree.map(lambda p, u: p + u, params, updates)
        return new_params, new_opt_state
    params = {f"w{i}": sds((DIM, DIM)) for i in range(1, 5)}
    kind = s_host if offload else s_dev
    state = (sds((), jnp.int32, kind), {k: sds((DIM, DIM), sharding=kind) for k in params},
             {k: sds((DIM, DIM), sharding=kind) for k in params})
    kw: dict[str, Any] = {"donate_argnums": (0,) if offload else (0, 1)}
    if offload:
        kw["out_shardings"] = (s_dev, s_host)
    return step, (params, state, sds((DIM, DIM))), kw


@program("doc_optimizer_baseline", DOCS + "#optimizer-state-offloading")
def _doc7():
    return _optimizer_program(False)


@program("doc_optimizer_state_offload", DOCS + "#optimizer-state-offloading")
def _doc8():
    return _optimizer_program(True)


# --- jax tests/memories_test.py (jax-v0.10.2) ------------------------------------------------------

@program("mem_device_put_inside_jit", MEMORIES + "#L389")
def _m1():
    _, s_host, inp_host = _inputs_82("pinned_host")
    s_dev = s_host.with_memory_kind("device")

    def f(a, b):
        x, y = jax.device_put((a, b), s_dev)
        return x * y
    return f, (inp_host, inp_host)


@program("mem_parameter_streaming", MEMORIES + "#L419")
def _m2():
    _, s_host, inp_host = _inputs_82("pinned_host")
    s_dev = s_host.with_memory_kind("device")

    def f(a, b):
        x = b * 2
        y = jax.device_put(a, s_dev)
        z = x * y
        return z * 4, z
    return f, (inp_host, sds((8, 2), jnp.int32, s_dev)), {"out_shardings": s_host}


@program("mem_zero_size_parameter", MEMORIES + "#L442")
def _m3():
    s_host = NamedSharding(mesh1("x", "y"), P(), memory_kind="pinned_host")
    s_dev = s_host.with_memory_kind("device")

    def f(a):
        return jax.device_put(a, s_dev)
    return f, (sds((0,), jnp.int32, s_host),), {"out_shardings": s_host}


@program("mem_parameter_streaming_scalar_and_constant", MEMORIES + "#L462")
def _m4():
    s_host = NamedSharding(mesh1("x", "y"), P(), memory_kind="pinned_host")

    def f(scalar_input):
        y = jax.device_put(scalar_input, s_host)
        w = jax.device_put(2, s_host)
        return y, w
    return f, (sds((), jnp.int32),), {"out_shardings": s_host}


@program("mem_parameter_and_output_streaming_array", MEMORIES + "#L486")
def _m5():
    s_host = NamedSharding(mesh1("x", "y"), P("x", "y"), memory_kind="pinned_host")
    return (lambda x: (x, x)), (sds((8, 2), jnp.int32, s_host),), {"out_shardings": (s_host, s_host)}


@program("mem_parameter_and_output_streaming_scalar", MEMORIES + "#L511")
def _m6():
    s_host = NamedSharding(Mesh(np.array([DEV]), "axis"), P(), memory_kind="pinned_host")
    return (lambda x: (x, x)), (sds((), jnp.int32),), {"out_shardings": (s_host, s_host)}


@program("mem_identity_host_to_device", MEMORIES + "#L538")
def _m7():
    s_host = NamedSharding(mesh1("x", "y"), P("x", "y"), memory_kind="pinned_host")
    return (lambda x: x), (sds((8, 2), jnp.int32, s_host),), {"out_shardings": s_host.with_memory_kind("device")}


@program("mem_parameter_streaming_inside_scan", MEMORIES + "#L558")
def _m8():
    s_host = NamedSharding(mesh1("x", "y", "z"), P("x", "y", "z"), memory_kind="pinned_host")

    def f(xs):
        def body(carry, x):
            x_tpu = jax.device_put(x, jax.memory.Space.Device)
            return carry, x_tpu + carry
        return jax.lax.scan(body, 1.0, xs)
    return f, (sds((16, 16, 16), jnp.float32, s_host),)


@program("mem_output_streaming", MEMORIES + "#L594")
def _m9():
    mesh = mesh1("x", "y")
    s_hbm = NamedSharding(mesh, P("x", "y"), memory_kind="device")
    return (lambda xs: xs + 1.0), (sds((8, 2), jnp.float32, s_hbm),), \
        {"out_shardings": NamedSharding(mesh, P("x", "y"), memory_kind="pinned_host")}


@program("mem_weight_offload_dp_on_output", MEMORIES + "#L610")
def _m10():
    _, s_dev, inp_dev = _inputs_82("device")
    s_host = s_dev.with_memory_kind("pinned_host")

    def f(x):
        x = x * 2
        return jax.device_put(x, s_host)
    return f, (inp_dev,)


@program("mem_output_streaming_inside_scan", MEMORIES + "#L627")
def _m11():
    mesh = mesh1("x", "y", "z")
    s_hbm = NamedSharding(mesh, P(None, "y", "z"), memory_kind="device")

    def f(xs):
        def body(carry, x):
            out_tpu = x + carry
            return carry, jax.device_put(out_tpu, NamedSharding(mesh, P("y", "z"), memory_kind="pinned_host"))
        _, res = jax.lax.scan(body, 1, xs)
        return res
    return f, (sds((16, 16, 16), jnp.int32, s_hbm),)


def ragged_copy(mesh: Mesh, num_pages: int = 8 * 1024) -> tuple[Any, ...]:
    """test_ragged_copy_on_host; 512*1024 pages of 1024 bf16 (1 GiB) cut to 8,192 pages of 128 (the
    test's mesh has 2 devices: ``mesh``'s size is the caller's, bench/public_boundaries.py)."""
    from jax import shard_map
    sharding = NamedSharding(mesh, P("x"))
    cpu_sharding = sharding.with_memory_kind("pinned_host")
    page_size = 128
    chunk_size = 8

    def write(x):
        return x.at[num_pages // 32:].set(0)

    def inner(state):
        idx, x, output = state
        chunk = jax.lax.dynamic_slice_in_dim(x, idx * chunk_size, chunk_size)
        chunk_host = jax.device_put(chunk, jax.memory.Space.Host)
        output = jax.lax.dynamic_update_slice_in_dim(output, chunk_host, idx * chunk_size, axis=0)
        return (idx + 1, x, output)

    def cond(state):
        idx, x, _ = state
        chunk = jax.lax.dynamic_slice_in_dim(x, idx * chunk_size, chunk_size)
        return (idx * chunk_size < x.shape[0]) & jnp.any(chunk > 0)

    def foo(x):
        output = jax.device_put(jnp.zeros_like(x), jax.memory.Space.Host)
        _, _, cpu_x = jax.lax.while_loop(cond, inner, (0, x, output))
        return cpu_x

    def run(x):
        x = shard_map(write, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
        return shard_map(foo, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)(x)
    return run, (sds((num_pages, page_size), jnp.bfloat16, sharding),), {"out_shardings": cpu_sharding}


@program("mem_ragged_copy_on_host", MEMORIES + "#L676")
def _m12():
    return ragged_copy(mesh1("x"))


@program("mem_device_put_transpose", MEMORIES + "#L774")
def _m13():
    host = NamedSharding(mesh1("x"), P("x"), memory_kind="pinned_host")
    device_s = host.with_memory_kind("device")

    @jax.jit
    def f(x_host):
        return jax.device_put(x_host, device_s)
    return jax.grad(lambda x: f(x).sum()), (sds((8,), jnp.float32, host),)


@program("mem_compute_no_inputs", MEMORIES + "#L820")
def _m14():
    mesh = mesh1("data")
    tpu_sharding = NamedSharding(mesh, P("data"))
    cpu_sharding = NamedSharding(mesh, P("data"), memory_kind="pinned_host")

    def init():
        tpu_array = jax.random.normal(jax.random.key(42), (16, 16))
        cpu_array = jax.random.normal(jax.random.key(42), (16, 16))
        return tpu_array, cpu_array
    return init, (), {"out_shardings": (tpu_sharding, cpu_sharding)}


def _host_g(fn: Callable[..., Any], out: Any = jax.memory.Space.Device) -> Callable[..., Any]:
    return compute_on2(compute_type="device_host", out_memory_spaces=out)(fn)


@program("mem_compute_on_basic", MEMORIES + "#L856")
def _m15():
    g = _host_g(lambda x: x * 2)

    def f(x):
        return g(x) * 3
    return f, (sds((8,), jnp.int32),)


@program("mem_compute_on_basic_out_host", MEMORIES + "#L856")
def _m16():
    g = _host_g(lambda x: x * 2)

    def h(x):
        return g(x) * 3
    return h, (sds((8,), jnp.int32),), {"out_shardings": single("pinned_host")}


@program("mem_compute_on_2d", MEMORIES + "#L886")
def _m17():
    g = _host_g(lambda x: x * 2)

    def h(x):
        return g(x) * 3
    return h, (sds((61, 163), jnp.float32),), {"out_shardings": single("pinned_host")}


@program("mem_compute_on_host_shared_sharding", MEMORIES + "#L917")
def _m18():
    mesh = mesh1("x")
    device_sharding = NamedSharding(mesh, P("x"))
    host_sharding = device_sharding.with_memory_kind("pinned_host")

    @functools.partial(compute_on2, compute_type="device_host",
                       out_memory_spaces=(jax.memory.Space.Host, jax.memory.Space.Device))
    def host_func(x, y):
        y = jax.device_put(y, host_sharding)
        out1 = x * y
        out2 = (x ** 2) * (y ** 2)
        return out1, out2

    def device_func(host_data, device_data):
        host_data, device_data = host_func(host_data, device_data)
        device_data = device_data * 2
        host_data, device_data = host_func(host_data, device_data)
        return host_data, device_data
    return device_func, (sds((8,), jnp.float32, host_sharding), sds((8,), jnp.int32, device_sharding)), \
        {"out_shardings": (host_sharding, device_sharding), "donate_argnums": 0}


@program("mem_compute_on_reduction", MEMORIES + "#L976")
def _m19():
    g = _host_g(lambda x: jnp.sum(x))

    def h(x):
        y = g(x)
        z = jnp.sum(x)
        return y * z
    return h, (sds((8,), jnp.int32),), {"out_shardings": single("pinned_host")}


@program("mem_compute_host_loop", MEMORIES + "#L1010")
def _m20():
    @_host_g
    def fn():
        k = jax.random.key(0)
        return jax.nn.initializers.lecun_normal()(k, (2, 2), jnp.float32)
    return fn, ()


@program("mem_compute_on_grad", MEMORIES + "#L1045")
def _m21():
    g = _host_g(jnp.sin)

    def f(x):
        return jnp.sum(g(x))
    return jax.grad(f), (sds((8,), jnp.float32),)


@program("mem_compute_on_remat", MEMORIES + "#L1064")
def _m22():
    def policy(prim, *avals, **params):
        return Recompute

    @_host_g
    def g(x):
        x = jnp.sin(x)
        x = jnp.sin(x)
        return jnp.sin(x)

    @functools.partial(jax.remat, policy=policy)
    def f(x):
        return jnp.sum(g(x))
    return jax.grad(f), (sds((16,), jnp.float32),)


@program("mem_host_offload_in_custom_vjp", MEMORIES + "#L1136")
def _m23():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    @_host_g
    @jax.jit
    def eq(x, y):
        return (x == y).astype(jnp.float32)

    def f_fwd(x):
        y = x * 2
        z = jax.device_put(y, jax.memory.Space.Host)
        return y, (x, z)

    def f_bwd(res, tx):
        x, z = res
        y = x * 2
        z2 = jax.device_put(y, jax.memory.Space.Host)
        return (eq(z, z2),)
    f.defvjp(f_fwd, f_bwd)
    return jax.grad(lambda x: f(x).sum()), (sds((3,), jnp.float32),)


@program("mem_scan_offload_compute_in_body", MEMORIES + "#L1201")
def _m24():
    def f(xs):
        def body(carry, x):
            out_tpu = compute_on2(lambda a, b: a + b, compute_type="device_host",
                                  out_memory_spaces=jax.memory.Space.Device)(x, carry)
            return carry, out_tpu
        _, res = jax.lax.scan(body, 1, xs)
        return res
    return f, (sds((16, 16, 16), jnp.int32),)


@program("mem_scan_offload_body_on_host", MEMORIES + "#L1201")
def _m25():
    @_host_g
    def body2(carry, x):
        return carry, x + carry

    def f2(xs):
        _, res = jax.lax.scan(body2, 1, xs)
        return res
    return f2, (sds((16, 16, 16), jnp.int32),)


@program("mem_copy_offload", MEMORIES + "#L1232")
def _m26():
    def g(x):
        return jnp.copy(x) * 2

    def f(x):
        y = compute_on2(jax.jit(g), compute_type="device_host", out_memory_spaces=jax.memory.Space.Device)(x)
        return y * 3
    return f, (sds((8,), jnp.int32),)


@program("mem_pure_host_data_and_compute", MEMORIES + "#L1255")
def _m27():
    s = NamedSharding(mesh1("x", "y"), P("x", "y"), memory_kind="pinned_host")
    g = _host_g(lambda x: x * x)
    return (lambda x: g(x)), (sds((8, 2), jnp.int32, s),), {"out_shardings": s}


@program("mem_jit_host_multi_outputs", MEMORIES + "#L1288")
def _m28():
    _, s, inp = _inputs_82(None, P("x"))

    def f(x, y):
        x, y = jnp.sin(x), jnp.cos(y)
        x = jax.device_put(x, s.with_memory_kind("pinned_host"))
        y = jax.device_put(y, s.with_memory_kind("device"))
        return x, y
    return f, (inp, inp)


@program("mem_jit_out_shardings_single_output", MEMORIES + "#L1307")
def _m29():
    mesh, _, inp = _inputs_82()
    out_s = NamedSharding(mesh, P(), memory_kind="pinned_host")
    return (lambda x: jnp.sum(x * 2)), (inp,), {"out_shardings": out_s}


@program("mem_device_put_single_output_to_host", MEMORIES + "#L1307")
def _m30():
    mesh, _, inp = _inputs_82()
    out_s = NamedSharding(mesh, P(), memory_kind="pinned_host")

    def h(x):
        x = jnp.sum(x * 2)
        return jax.device_put(x, out_s)
    return h, (inp,)


@program("mem_jit_in_out_shardings_host", MEMORIES + "#L1361")
def _m31():
    mesh, s, inp = _inputs_82("device")
    out_s = NamedSharding(mesh, P(), memory_kind="pinned_host")
    return (lambda x: jnp.sum(x)), (inp,), {"in_shardings": s, "out_shardings": out_s}


@program("mem_no_donation_across_memory_kinds", MEMORIES + "#L1477")
def _m32():
    mesh = mesh1("x", "y")
    s_hbm = NamedSharding(mesh, P("x"))
    return (lambda x: x * 2), (sds((8, 2), jnp.int32, s_hbm),), \
        {"out_shardings": s_hbm.with_memory_kind("pinned_host"), "donate_argnums": 0}


@program("mem_identity_donation_pinned_host", MEMORIES + "#L1596")
def _m33():
    s = NamedSharding(mesh1("x"), P(), memory_kind="pinned_host")
    return (lambda inp: inp), (sds((8, 2), jnp.int32, s),), {"out_shardings": s, "donate_argnums": 0}


@program("mem_mem_kind_donation_pinned_host", MEMORIES + "#L1572")
def _m34():
    s = NamedSharding(mesh1("x"), P(), memory_kind="pinned_host")
    s_dev = s.with_memory_kind("device")

    @functools.partial(compute_on2, compute_type="device_host",
                       out_memory_spaces=(jax.memory.Space.Host, jax.memory.Space.Device))
    def f(inp1, inp2):
        return inp1 * 2, inp2 * 2
    return f, (sds((8, 2), jnp.int32, s), sds((8, 2), jnp.int32, s_dev)), \
        {"out_shardings": (s, s_dev), "donate_argnums": (0, 1)}


@program("mem_compute_offload_with_donation", MEMORIES + "#L1613")
def _m35():
    sharding, p_sharding = single("device"), single("pinned_host")

    @functools.partial(compute_on2, compute_type="device_host",
                       out_memory_spaces=(jax.memory.Space.Device, jax.memory.Space.Host))
    def host_fn(x_in, y_in):
        return x_in * x_in, y_in + y_in

    def test_fn(x_in, y_in):
        return host_fn(x_in, y_in)
    return test_fn, (sds((1024,)), sds((1024,), sharding=p_sharding)), \
        {"in_shardings": (sharding, p_sharding), "out_shardings": (sharding, p_sharding), "donate_argnums": (0, 1)}


@program("mem_indexing_on_host", MEMORIES + "#L1726")
def _m36():
    @functools.partial(compute_on2, compute_type="device_host", out_memory_spaces=jax.memory.Space.Host)
    def fn2(x):
        y = jnp.ones((2, 1, 4))
        y = jax.device_put(y, jax.memory.Space.Host)
        return x.at[:, 1:2, :].set(y)
    return fn2, (sds((2, 3, 4), sharding=single("pinned_host")),)


@program("mem_offload_take_host", MEMORIES + "#L1770")
def _m37():
    @_host_g
    def peer_forward(x, experts, indices, scores):
        w = jnp.take(experts, indices.astype(int), axis=0)
        w_gate, w_down, w_up = w[..., 0], w[..., 1], w[..., 2]
        g = jnp.einsum("btd, bthkd->bthk", x, w_gate)
        x = jnp.einsum("btd, bthkd->bthk", x, w_down)
        x = x * jax.nn.gelu(g) * scores
        return jnp.einsum("bthk, bthkd->btd", x, w_up)
    return peer_forward, (sds((16, 4, 32)), sds((128, 32, 3)), sds((16, 4, 4, 2), jnp.int32), sds((16, 4, 4, 2)))


@program("mem_int4_host_compute", MEMORIES + "#L1787")
def _m38():
    g = _host_g(lambda x: x + x)

    def f(x):
        return 2 * g(x)
    return f, (sds((8,), jnp.int4),)


@program("mem_compute_on_out_mem_space", MEMORIES + "#L2495")
def _m39():
    f = compute_on2(lambda x: x * 2.0, compute_type="device_host", out_memory_spaces=jax.memory.Space.Host)
    return f, (sds((3,)),)


@program("mem_compute_on_out_mem_space_tuple", MEMORIES + "#L2508")
def _m40():
    @functools.partial(compute_on2, compute_type="device_host",
                       out_memory_spaces=(jax.memory.Space.Host, jax.memory.Space.Device))
    def f(x, y):
        return x * 2, y * 2
    return f, (sds((3,)), sds((3,)))


@program("mem_remat_offloadable", MEMORIES + "#L2535")
def _m41():
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["a", "b", "c"],
        offload_src="device", offload_dst="pinned_host")

    @functools.partial(jax.remat, policy=policy)
    def f(x):
        x = checkpoint_name(jnp.sin(x), "a")
        x = checkpoint_name(jnp.sin(x), "b")
        x = checkpoint_name(jnp.sin(x), "c")
        return jnp.sum(x)
    inp = sds((16,), sharding=NamedSharding(mesh1("x"), P("x")))
    return jax.grad(f), (inp,)


def _remat_scan(layout_change: bool) -> tuple[Any, ...]:
    s = NamedSharding(mesh1("x"), P("x"))
    shape = (256, 128)
    np_inp = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["y"], names_which_can_be_offloaded=["z", "w"],
        offload_src="device", offload_dst="pinned_host")

    @functools.partial(jax.remat, policy=policy)
    def f(x):
        def g(ys, _):
            y, _ = ys
            y = checkpoint_name(jnp.sin(y), "y")
            z = checkpoint_name(jnp.sin(y), "z")
            z = jax.lax.with_sharding_constraint(z, s)
            if layout_change:
                z = z.T
            w = checkpoint_name(jnp.sin(z), "w")
            return ((w.T if layout_change else w), jnp.sum(w)), None
        _, scan_out = jax.lax.scan(g, (x, np.array(1, dtype=np.float32)), [np_inp])[0]
        return scan_out
    return jax.grad(f), (sds(shape, sharding=s),)


@program("mem_remat_scan_offloadable", MEMORIES + "#L2581")
def _m42():
    return _remat_scan(False)


@program("mem_remat_scan_layout_change_offloadable", MEMORIES + "#L2634")
def _m43():
    return _remat_scan(True)


@program("mem_remat_offload_dot_with_no_batch_dims", MEMORIES + "#L2675")
def _m44():
    policy = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")

    @functools.partial(jax.checkpoint, policy=policy)
    def f(x):
        x = jnp.einsum("ij,jk->ik", x, x, precision=lax.Precision.HIGHEST)
        x = jnp.sin(x)
        x = jnp.einsum("ij,jk->ik", x, x, precision=lax.Precision.HIGHEST)
        x = jnp.sin(x)
        x = jnp.einsum("ij,jk->ik", x, x, precision=lax.Precision.HIGHEST)
        x = jnp.sin(x)
        return jnp.sum(x)
    return jax.grad(f), (sds((2, 2)),)


@program("mem_primitive_with_multiple_outputs", MEMORIES + "#L2706 (jax-ml/jax#25841)")
def _m45():
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["foo"],
        offload_src="device", offload_dst="pinned_host")

    @functools.partial(jax.remat, policy=policy)
    def test_fn(x):
        x1, _ = jax.lax.approx_max_k(x, k=2)
        x1 = checkpoint_name(x1, "foo")
        return jnp.sum(x1)
    return jax.grad(test_fn), (sds((128,)),)


@program("mem_compute_on_aot", MEMORIES + "#L1754")
def _m46():
    @_host_g
    def f_host(x):
        return jax.lax.platform_dependent(x, cpu=lambda x: x + 1., default=lambda x: x + 2.)
    return f_host, (sds((), jnp.float32),)


from public_programs_2 import register_more  # noqa: E402  (issues, MaxText, AOT: the second half)

register_more(program, sds, single, mesh1)
NAMES = tuple(_BUILDERS)
