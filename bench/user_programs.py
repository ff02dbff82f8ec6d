"""User-shaped JAX programs: host offloading written the way users write it (issue 19, item 4).

None of these come from :mod:`offload_gen`'s step language: each family is a small Python
program of the kind found in training code -- ``device_put`` to ``Space.Host``/``Space.Device``,
``in_shardings``/``out_shardings`` with memory kinds, host-resident and ``unpinned_host``
parameters, remat offload policies under ``grad``, scans and nested scans, fori/while/cond/
switch, ``compute_on``, optimizer state on host moved in and out each step, pytrees of
hundreds of leaves, MaxText-style scanned decoder layers with offloaded activations,
``jnp.where``/``.at[].set``/``reshape``/``astype`` identities, donation, int8/int4/fp8.
Every family draws its choices from a seeded ``random.Random``, so ``(family, seed)`` names a
program exactly and seeds give as many as wanted (:func:`programs`).  Nothing here steers away
from a known gap of the model: divergences are for the campaign to count, not to avoid.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # DEV below starts jax: not libtpu's start-up errors on CPU
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
from jax.sharding import SingleDeviceSharding

DEV = jax.devices()[0]
KINDS = ("device", "pinned_host", "unpinned_host")


def sharding(kind: str) -> SingleDeviceSharding:
    return SingleDeviceSharding(DEV, memory_kind=kind)


def sds(shape: tuple[int, ...], kind: str = "device", dtype: Any = jnp.float32) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding(kind))


@dataclass
class UserProgram:
    """One program: ``jax.jit(fn, **jit_kwargs)`` traced with ``args`` (ShapeDtypeStructs)."""

    name: str
    family: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    jit_kwargs: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, Any] = field(default_factory=dict)
    """What the family drew (printed with a divergence, to rebuild it by hand)."""

    def lower(self) -> Any:
        return jax.jit(self.fn, **self.jit_kwargs).trace(*self.args).lower(lowering_platforms=("tpu",))


def _out_kind(rng: random.Random, p_host: float = 0.4) -> str | None:
    """``out_shardings`` for one leaf: let JAX decide, device, or pinned_host."""
    r = rng.random()
    return None if r < 0.35 else "pinned_host" if r < 0.35 + p_host * 0.65 else "device"


def _outs(kinds: list[str | None]) -> Any:
    if all(k is None for k in kinds):
        return None
    leaves = [None if k is None else sharding(k) for k in kinds]
    return tuple(leaves) if len(leaves) > 1 else leaves[0]


def _act(rng: random.Random) -> Callable[[Any], Any]:
    return rng.choice((jnp.sin, jnp.tanh, lambda v: v * 2.0, lambda v: v + 1.0, jax.nn.relu))


def _to_host(v: Any) -> Any:
    return jax.device_put(v, jax.memory.Space.Host)


def _to_device(v: Any) -> Any:
    return jax.device_put(v, jax.memory.Space.Device)


# -- families ---------------------------------------------------------------------------

def device_put_host(rng: random.Random) -> dict[str, Any]:
    """An activation moved to host and returned, sometimes brought back and used first."""
    n_out, act, back = rng.randint(1, 3), _act(rng), rng.random() < 0.4
    outs = [_out_kind(rng) for _ in range(n_out)]
    use_after = rng.random() < 0.5

    def step(x, w):
        h = act(x @ w)
        res = []
        for i in range(n_out):
            hh = _to_host(h * (i + 1))
            if back:
                hh = _to_device(hh)
                if use_after:
                    hh = hh + 1.0
            res.append(hh)
        return tuple(res) if n_out > 1 else res[0]

    return dict(fn=step, args=(sds((16, 128)), sds((128, 128))), jit_kwargs={"out_shardings": _outs(outs)}
                if _outs(outs) is not None else {}, choices={"outs": outs, "back": back, "use_after": use_after})


def host_params(rng: random.Random, pinned_instead: frozenset[int] = frozenset()) -> dict[str, Any]:
    """Parameters resident in pinned/unpinned host memory: returned, computed on, or moved in first.

    ``pinned_instead``: the fix xladoctor gives for computing on an ``unpinned_host`` argument
    (bench/later_fixes.py): those arguments in ``pinned_host``, moved to device before the compute."""
    n = rng.randint(1, 3)
    kinds = [rng.choice(KINDS) for _ in range(n)]
    how = [rng.choice(("return", "compute", "to_device", "to_device_compute")) for _ in range(n)]
    outs = [_out_kind(rng) if rng.random() < 0.5 else None for _ in range(n)]
    kinds = ["pinned_host" if i in pinned_instead else k for i, k in enumerate(kinds)]

    def step(*xs):
        res = []
        for i, (x, h) in enumerate(zip(xs, how)):
            if h == "compute":
                x = (_to_device(x) if i in pinned_instead else x) * 2.0
            elif h.startswith("to_device"):
                x = _to_device(x)
                if h.endswith("compute"):
                    x = jnp.tanh(x)
            res.append(x)
        return tuple(res) if n > 1 else res[0]

    jk = {"out_shardings": _outs(outs)} if _outs(outs) is not None else {}
    return dict(fn=step, args=tuple(sds((8, 128), k) for k in kinds), jit_kwargs=jk,
                choices={"kinds": kinds, "how": how, "outs": outs})


def _policy(rng: random.Random, names: list[str]) -> tuple[str, Any]:
    which = rng.choice(("names", "names", "dot", "save_nothing"))
    if which == "names":
        return which, jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=[], names_which_can_be_offloaded=names,
            offload_src="device", offload_dst="pinned_host")
    if which == "dot":
        return which, jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
    return which, jax.checkpoint_policies.nothing_saveable


def remat_grad(rng: random.Random, outer_checkpointed: bool = False) -> dict[str, Any]:
    """Layers under ``jax.checkpoint`` with an offloading policy, differentiated.

    ``outer_checkpointed``: the fix xladoctor's loop-state warning gives for nested scans (the
    outer scan's body in ``jax.checkpoint``; bench/later_fixes.py)."""
    depth, scanned, nested = rng.randint(1, 4), rng.random() < 0.5, rng.random() < 0.25
    policy_name, policy = _policy(rng, ["act", "pre"])
    act = _act(rng)
    return_grad_host = rng.random() < 0.2

    def layer(x, w):
        pre = checkpoint_name(x @ w, "pre")
        return act(checkpoint_name(act(pre), "act"))

    layer_c = jax.checkpoint(layer, policy=policy)

    def loss(w, x):
        if scanned:
            def body(c, _):
                return layer_c(c, w), None
            if nested:
                def outer(c, _):
                    return jax.lax.scan(body, c, None, length=2)[0], None
                y = jax.lax.scan(jax.checkpoint(outer) if outer_checkpointed else outer, x, None, length=depth)[0]
            else:
                y = jax.lax.scan(body, x, None, length=depth)[0]
        else:
            y = x
            for _ in range(depth):
                y = layer_c(y, w)
        return jnp.sum(y * y)

    def step(w, x):
        g = jax.grad(loss)(w, x)
        return _to_host(g) if return_grad_host else g

    return dict(fn=step, args=(sds((128, 128)), sds((16, 128))),
                choices={"depth": depth, "scanned": scanned, "nested": nested, "policy": policy_name,
                         "grad_host": return_grad_host})


def scan_offload(rng: random.Random) -> dict[str, Any]:
    """A scan whose ys (or carry) go to host each iteration; nested and unrolled variants."""
    length, unroll, nested = rng.randint(2, 5), rng.choice((1, 1, 2)), rng.random() < 0.3
    emit = rng.choice(("ys", "ys_back", "carry_sum"))
    outs = [_out_kind(rng), None]
    act = _act(rng)

    def inner(c, _):
        c = act(c)
        return c, _to_host(c)

    def run(x):
        c, ys = jax.lax.scan(inner, x, None, length=length, unroll=unroll)
        if emit == "ys_back":
            ys = _to_device(ys).sum(axis=0)
        elif emit == "carry_sum":
            ys = c + _to_device(ys).sum(axis=0)
        return c, ys

    def step(x):
        if nested:
            def outer(c, _):
                c2, ys = run(c)
                return c2, ys
            c, ys = jax.lax.scan(outer, x, None, length=2)
            return ys, c
        c, ys = run(x)
        return ys, c

    jk = {"out_shardings": _outs(outs)} if _outs(outs) is not None else {}
    return dict(fn=step, args=(sds((8, 128)),), jit_kwargs=jk,
                choices={"length": length, "unroll": unroll, "nested": nested, "emit": emit, "outs": outs})


def control_flow(rng: random.Random) -> dict[str, Any]:
    """``fori_loop``/``while_loop``/``cond``/``switch`` with host moves inside and around them."""
    kind = rng.choice(("fori", "while", "cond", "switch"))
    where = rng.choice(("inside_back", "inside_out", "after"))
    out = _out_kind(rng)
    act = _act(rng)

    def body_value(v):
        h = _to_host(act(v))
        return _to_device(h) if where == "inside_back" else h

    def step(x, k):
        if kind == "fori":
            y = jax.lax.fori_loop(0, 3, lambda i, v: body_value(v) if where != "after" else act(v), x)
        elif kind == "while":
            y = jax.lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, body_value(s[1]) if where != "after"
                                                                     else act(s[1])), (0, x))[1]
        elif kind == "cond":
            y = jax.lax.cond(k > 0, lambda v: body_value(v) if where != "after" else act(v),
                             lambda v: body_value(v * 2.0) if where != "after" else v * 2.0, x)
        else:
            branches = [lambda v, i=i: body_value(v + i) if where != "after" else act(v + i) for i in range(3)]
            y = jax.lax.switch(jnp.clip(k, 0, 2), branches, x)
        return _to_host(y) if where == "after" else y

    jk = {"out_shardings": sharding(out)} if out is not None else {}
    return dict(fn=step, args=(sds((8, 128)), jax.ShapeDtypeStruct((), jnp.int32)), jit_kwargs=jk,
                choices={"kind": kind, "where": where, "out": out})


def compute_on_host(rng: random.Random) -> dict[str, Any]:
    """``compute_on('device_host')`` on values moved to host, the result returned or moved back."""
    from jax.experimental.compute_on import compute_on

    back, arg_kind, out = rng.random() < 0.5, rng.choice(("device", "pinned_host")), _out_kind(rng)

    @compute_on("device_host")
    @jax.jit
    def host_fn(v):
        return v * 3.0 + 1.0

    def step(x):
        h = x if arg_kind == "pinned_host" else _to_host(x)
        y = host_fn(h)
        return _to_device(y) if back else y

    jk = {"out_shardings": sharding(out)} if out is not None else {}
    return dict(fn=step, args=(sds((8, 128), arg_kind),), jit_kwargs=jk,
                choices={"back": back, "arg": arg_kind, "out": out})


def optimizer_on_host(rng: random.Random) -> dict[str, Any]:
    """Adam-like moments held in host memory: moved in, updated, moved out each step."""
    n = rng.randint(1, 4)
    state_out = rng.choice(("pinned_host", None, "device"))
    move_out = rng.random() < 0.7
    state_kind = rng.choice(("pinned_host", "pinned_host", "device"))

    def step(params, m, v, g):
        new_p, new_m, new_v = [], [], []
        for p, mi, vi, gi in zip(params, m, v, g):
            mi, vi = _to_device(mi), _to_device(vi)
            mi = 0.9 * mi + 0.1 * gi
            vi = 0.99 * vi + 0.01 * gi * gi
            new_p.append(p - 0.01 * mi / (jnp.sqrt(vi) + 1e-8))
            new_m.append(_to_host(mi) if move_out else mi)
            new_v.append(_to_host(vi) if move_out else vi)
        return new_p, new_m, new_v

    shp = [(8, 128)] * n
    args = ([sds(s) for s in shp], [sds(s, state_kind) for s in shp], [sds(s, state_kind) for s in shp],
            [sds(s) for s in shp])
    jk = {}
    if state_out is not None:
        st = [sharding(state_out)] * n
        jk = {"out_shardings": ([sharding("device")] * n, st, st)}
    return dict(fn=step, args=args, jit_kwargs=jk,
                choices={"n": n, "state_out": state_out, "move_out": move_out, "state_kind": state_kind})


def big_pytree(rng: random.Random) -> dict[str, Any]:
    """A pytree of hundreds of leaves, some offloaded, with per-leaf out_shardings."""
    n = rng.choice((60, 120, 250))
    host = sorted(rng.sample(range(n), rng.randint(1, 4)))
    declare = rng.choice(("all_host_ones", "none", "miss_one"))

    def step(tree):
        out = {}
        for i, (k, v) in enumerate(sorted(tree.items())):
            out[k] = _to_host(v * 2.0) if i in host else v + 1.0
        return out

    keys = [f"layer_{i:03d}" for i in range(n)]
    tree = {k: sds((8, 128)) for k in keys}
    jk = {}
    if declare != "none":
        marked = host if declare == "all_host_ones" else host[1:]
        jk = {"out_shardings": {k: sharding("pinned_host" if i in marked else "device") for i, k in enumerate(keys)}}
    return dict(fn=step, args=(tree,), jit_kwargs=jk, choices={"n": n, "host": host, "declare": declare})


def maxtext_decoder(rng: random.Random) -> dict[str, Any]:
    """Scanned decoder layers (MaxText's shape): remat with offloaded named activations, grad."""
    layers, names = rng.randint(2, 4), rng.sample(["decoder_layer_input", "query_proj", "mlpwo"], rng.randint(1, 2))
    offload = rng.random() < 0.8

    def decoder_layer(x, p):
        x = checkpoint_name(x, "decoder_layer_input")
        q = checkpoint_name(x @ p["wq"], "query_proj")
        h = jax.nn.gelu(q) @ p["wo"]
        return x + checkpoint_name(h, "mlpwo")

    if offload:
        policy = jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=[], names_which_can_be_offloaded=names,
            offload_src="device", offload_dst="pinned_host")
    else:
        policy = jax.checkpoint_policies.save_only_these_names(*names)
    layer = jax.checkpoint(decoder_layer, policy=policy, prevent_cse=False)

    def loss(params, x):
        def body(c, p):
            return layer(c, p), None
        y, _ = jax.lax.scan(body, x, params)
        return jnp.mean(y * y)

    def step(params, x):
        return jax.value_and_grad(loss)(params, x)

    params = {"wq": sds((layers, 128, 128)), "wo": sds((layers, 128, 128))}
    return dict(fn=step, args=(params, sds((16, 128))), choices={"layers": layers, "names": names,
                                                                "offload": offload})


def identities(rng: random.Random) -> dict[str, Any]:
    """A host value through jnp.where / .at[].set / reshape / astype before it is returned."""
    op = rng.choice(("where_same", "where_const", "at_set", "reshape", "astype", "reshape_back", "select_pair"))
    out = _out_kind(rng, 0.5)

    def step(x, k):
        h = _to_host(jnp.sin(x))
        if op == "where_same":
            y = jnp.where(k > 0, h, h)
        elif op == "where_const":
            y = jnp.where(True, h, x)
        elif op == "at_set":
            y = h.at[0].set(h[0])
        elif op == "reshape":
            y = h.reshape(16, 64)
        elif op == "astype":
            y = h.astype(jnp.float32)
        elif op == "reshape_back":
            y = h.reshape(16, 64).reshape(8, 128)
        else:
            y = jax.lax.select(k > 0, h, _to_host(x))
        return y

    jk = {"out_shardings": sharding(out)} if out is not None else {}
    return dict(fn=step, args=(sds((8, 128)), jax.ShapeDtypeStruct((), jnp.int32)), jit_kwargs=jk,
                choices={"op": op, "out": out})


def donation(rng: random.Random) -> dict[str, Any]:
    """A donated argument whose update is returned on host (or on device)."""
    out, host_arg = rng.choice(("pinned_host", "device", None)), rng.random() < 0.3

    def step(state, x):
        new = state + x
        return _to_host(new) if out != "device" else new

    jk: dict[str, Any] = {"donate_argnums": (0,)}
    if out is not None:
        jk["out_shardings"] = sharding(out)
    return dict(fn=step, args=(sds((8, 128), "pinned_host" if host_arg else "device"), sds((8, 128))),
                jit_kwargs=jk, choices={"out": out, "host_arg": host_arg})


def narrow_dtypes(rng: random.Random) -> dict[str, Any]:
    """int8 / int4 / fp8 / bf16 buffers offloaded, in shapes that do and do not fill a tile."""
    dtype = rng.choice((jnp.int8, jnp.int4, jnp.float8_e4m3fn, jnp.bfloat16, jnp.uint8))
    rows = rng.choice((8, 32, 64, 128))
    out, back = _out_kind(rng, 0.6), rng.random() < 0.3

    def step(x):
        h = _to_host(x.astype(dtype))
        return _to_device(h).astype(jnp.float32) if back else h

    jk = {"out_shardings": sharding(out)} if out is not None else {}
    return dict(fn=step, args=(sds((rows, 128)),), jit_kwargs=jk,
                choices={"dtype": jnp.dtype(dtype).name, "rows": rows, "out": out, "back": back})


def in_shardings_kinds(rng: random.Random) -> dict[str, Any]:
    """Memory kinds given through ``in_shardings`` rather than the arguments' own shardings."""
    kinds = [rng.choice(("device", "pinned_host")) for _ in range(2)]
    use = rng.choice(("add_on_device", "return_first", "sum_host"))
    out = _out_kind(rng)

    def step(a, b):
        if use == "add_on_device":
            return _to_device(a) + _to_device(b)
        if use == "return_first":
            return a
        return a + b

    jk: dict[str, Any] = {"in_shardings": tuple(sharding(k) for k in kinds)}
    if out is not None:
        jk["out_shardings"] = sharding(out)
    return dict(fn=step, args=(jax.ShapeDtypeStruct((8, 128), jnp.float32),) * 2, jit_kwargs=jk,
                choices={"kinds": kinds, "use": use, "out": out})


FAMILIES: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    f.__name__: f for f in (device_put_host, host_params, remat_grad, scan_offload, control_flow, compute_on_host,
                            optimizer_on_host, big_pytree, maxtext_decoder, identities, donation, narrow_dtypes,
                            in_shardings_kinds)}


def build(family: str, seed: int) -> UserProgram:
    """The program ``(family, seed)`` names."""
    made = FAMILIES[family](random.Random(f"{family}:{seed}"))
    return UserProgram(f"{family}:{seed}", family, made["fn"], made["args"], made.get("jit_kwargs") or {},
                       made.get("choices") or {})


def programs(seed: int = 0, count: int | None = None, families: list[str] | None = None) -> Iterator[UserProgram]:
    """Programs round-robin over the families, seeds from ``seed`` up (``count``: how many in all;
    ``None``: without end).  1,000 seeds x 13 families = 13,000 distinct programs."""
    names = families or list(FAMILIES)
    i = 0
    while count is None or i < count:
        yield build(names[i % len(names)], seed + i // len(names))
        i += 1
