"""Random host-offload programs for the differential campaign (``offload_campaign.py``).

Why a spec instead of code: a program is a small list of steps over values (every
value is an ``f32[8,128]``), so the campaign can print it, rebuild it, and shrink a
disagreement by dropping steps.  Two builders read the same kind of spec:

* :func:`build_jax` -- a JAX function and its arguments: ``jax.device_put`` to
  ``pinned_host``/``device`` (JAX adds its own guards), a frontend's bare placement
  annotation (``place_to_host``/``place_to_device`` of ``examples/frontend_ops.py``,
  which has no guard: the source of real E1200s), ``scan`` and nested ``scan`` with
  offloads in the body, remat with ``save_and_offload_only_these_names`` /
  ``offload_dot_with_no_batch_dims`` under ``jax.grad``, ``compute_on("device_host")``,
  ``out_shardings`` with memory kinds, and AOT host parameters (``ShapeDtypeStruct``
  with a ``pinned_host`` sharding);
* :func:`build_hlo` -- pre-optimisation HLO text (MoveToHost/MoveToDevice custom
  calls, elementwise ops, broadcast buffers written by dynamic-update-slice and read
  by dynamic-slice, tuples, host parameters and host results in the entry layout).
"""

from __future__ import annotations

import os
import random
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "examples")

UNARY = ("sin", "tanh", "neg", "double")
BINARY = ("add", "mul")
KINDS = ("device", "pinned_host")


# -- specs ------------------------------------------------------------------------------

def _pick(rng: random.Random, n_values: int, recent_bias: float = 0.6) -> int:
    """A value index, most often one of the last few (so offloads meet their consumers)."""
    if n_values > 2 and rng.random() < recent_bias:
        return rng.randrange(max(0, n_values - 3), n_values)
    return rng.randrange(n_values)


def jax_spec(rng: random.Random) -> dict[str, Any]:
    n_args = rng.randint(1, 3)
    args = [rng.choice(KINDS) if rng.random() < 0.3 else "device" for _ in range(n_args)]
    steps: list[tuple] = []
    n = n_args
    for _ in range(rng.randint(1, 7)):
        r = rng.random()
        a = _pick(rng, n)
        if r < 0.25:
            steps.append(("un", rng.choice(UNARY), a))
        elif r < 0.35:
            steps.append(("bin", rng.choice(BINARY), a, _pick(rng, n)))
        elif r < 0.47:
            steps.append(("to_host_fe", a))
        elif r < 0.55:
            steps.append(("to_dev_fe", a))
        elif r < 0.63:
            steps.append(("to_host_jax", a))
        elif r < 0.68:
            steps.append(("to_dev_jax", a))
        elif r < 0.80:
            body = [rng.choice((("un", rng.choice(UNARY)), ("to_host_fe",), ("to_dev_fe",), ("to_host_jax",),
                                ("to_dev_jax",))) for _ in range(rng.randint(1, 3))]
            steps.append(("scan", a, tuple(body), rng.random() < 0.3, rng.choice(("carry", "ys", "both"))))
        elif r < 0.90:
            steps.append(("remat", a, rng.choice(("names", "dot", "none")), rng.random() < 0.4))
        else:
            steps.append(("compute_on", a))
        n += 1
    outs = sorted(set(rng.sample(range(n), k=rng.randint(1, min(3, n)))) | {n - 1})
    if rng.random() < 0.5:
        out_kinds: list[str | None] = [rng.choice(KINDS) if rng.random() < 0.4 else "device" for _ in outs]
    else:
        out_kinds = [None] * len(outs)
    return {"level": "jax", "args": args, "steps": steps, "outs": outs, "out_kinds": out_kinds}


def hlo_spec(rng: random.Random) -> dict[str, Any]:
    n_args = rng.randint(1, 3)
    args = [rng.choice(KINDS) if rng.random() < 0.3 else "device" for _ in range(n_args)]
    steps: list[tuple] = []
    n = n_args
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        a = _pick(rng, n)
        if r < 0.28:
            steps.append(("un", rng.choice(UNARY), a))
        elif r < 0.40:
            steps.append(("bin", rng.choice(BINARY), a, _pick(rng, n)))
        elif r < 0.62:
            steps.append(("mth", a))
        elif r < 0.78:
            steps.append(("mtd", a))
        elif r < 0.90:
            # a [4,8,128] buffer (broadcast, maybe moved to host) written at row i with value a,
            # maybe read back (dynamic-slice) and moved to device
            steps.append(("dus", a, rng.random() < 0.6, rng.random() < 0.6, rng.random() < 0.6))
        else:
            steps.append(("tuple_gte", a, _pick(rng, n)))
        n += 1
    outs = sorted(set(rng.sample(range(n), k=rng.randint(1, min(3, n)))) | {n - 1})
    out_kinds = [rng.choice(KINDS) if rng.random() < 0.3 else "device" for _ in outs]
    return {"level": "hlo", "args": args, "steps": steps, "outs": outs, "out_kinds": out_kinds,
            "tuple_root": len(outs) > 1 or rng.random() < 0.5}


def spec(rng: random.Random, level: str) -> dict[str, Any]:
    if level == "both":
        level = rng.choice(("jax", "hlo"))
    return jax_spec(rng) if level == "jax" else hlo_spec(rng)


def operands_of(step: tuple) -> list[int]:
    """The value indices a step reads (for shrinking)."""
    kind = step[0]
    if kind in ("un",):
        return [step[2]]
    if kind in ("bin", "tuple_gte"):
        return [step[2], step[3]] if kind == "bin" else [step[1], step[2]]
    return [step[1]]


# -- JAX builder ------------------------------------------------------------------------

def _frontend():
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    from frontend_ops import place_to_device, place_to_host

    return place_to_host, place_to_device


def build_jax(sp: dict[str, Any]):
    """``(jitted function, args)`` for a ``jax`` spec (lowered for TPU by the caller)."""
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name
    from jax.sharding import SingleDeviceSharding

    place_to_host, place_to_device = _frontend()
    dev = jax.devices()[0]
    host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    device = SingleDeviceSharding(dev, memory_kind="device")
    w = jnp.full((128, 128), 0.01, jnp.float32)

    def unary(name, v):
        return {"sin": jnp.sin, "tanh": jnp.tanh, "neg": jnp.negative, "double": lambda t: t * 2}[name](v)

    def body_op(op, v):
        if op[0] == "un":
            return unary(op[1], v)
        if op[0] == "to_host_fe":
            return place_to_host(v)
        if op[0] == "to_dev_fe":
            return place_to_device(v)
        if op[0] == "to_host_jax":
            return jax.device_put(v, host)
        return jax.device_put(v, device)

    def scan_step(v, body, nested, emit):
        # jax.device_put changes the carry's type (float32<host>), which scan refuses unless
        # the body ends in the carry's own memory kind: try the body as generated, then
        # closed by a move back to device, then to host.
        for close in ((), (("to_dev_jax",),), (("to_host_jax",),)):
            try:
                return _scan_step(v, tuple(body) + close, nested, emit)
            except TypeError:
                if close == (("to_host_jax",),):
                    raise
        raise AssertionError("unreachable")

    def _scan_step(v, body, nested, emit):
        def inner(c, _):
            for op in body:
                c = body_op(op, c)
            return c, c if emit != "carry" else None

        def run(c):
            c2, ys = jax.lax.scan(inner, c, None, length=3)
            if emit == "carry":
                return c2
            total = ys.sum(axis=0)
            return total if emit == "ys" else c2 + total

        if nested:
            def outer(c, _):
                return run(c), None
            return jax.lax.scan(outer, v, None, length=2)[0]
        return run(v)

    def remat_step(v, policy_name, scanned):
        if policy_name == "names":
            policy = jax.checkpoint_policies.save_and_offload_only_these_names(
                names_which_can_be_saved=[], names_which_can_be_offloaded=["act"],
                offload_src="device", offload_dst="pinned_host")
        elif policy_name == "dot":
            policy = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
        else:
            policy = None

        def layer(x):
            return jnp.sin(checkpoint_name(x @ w, "act"))

        layer_c = jax.checkpoint(layer, policy=policy) if policy is not None else jax.checkpoint(layer)

        def loss(x):
            if scanned:
                y, _ = jax.lax.scan(lambda c, _: (layer_c(c), None), x, None, length=3)
            else:
                y = layer_c(layer_c(x))
            return jnp.sum(y)

        return jax.grad(loss)(v)

    def compute_on_step(v):
        from jax.experimental.compute_on import compute_on

        @compute_on("device_host")
        @jax.jit
        def on_host(t):
            return jnp.sin(t) * 2

        return on_host(v)

    def f(*xs):
        vals = list(xs)
        for st in sp["steps"]:
            k = st[0]
            if k == "un":
                vals.append(unary(st[1], vals[st[2]]))
            elif k == "bin":
                a, b = vals[st[2]], vals[st[3]]
                vals.append(a + b if st[1] == "add" else a * b)
            elif k in ("to_host_fe", "to_dev_fe", "to_host_jax", "to_dev_jax"):
                vals.append(body_op((k,), vals[st[1]]))
            elif k == "scan":
                vals.append(scan_step(vals[st[1]], st[2], st[3], st[4]))
            elif k == "remat":
                vals.append(remat_step(vals[st[1]], st[2], st[3]))
            elif k == "compute_on":
                vals.append(compute_on_step(vals[st[1]]))
            elif k == "id":
                vals.append(vals[st[1]])
            else:
                raise ValueError(k)
        outs = tuple(vals[i] for i in sp["outs"])
        return outs if len(outs) > 1 else outs[0]

    kw: dict[str, Any] = {}
    if any(k is not None for k in sp["out_kinds"]):
        shard = tuple(SingleDeviceSharding(dev, memory_kind=k or "device") for k in sp["out_kinds"])
        kw["out_shardings"] = shard if len(shard) > 1 else shard[0]
    args = tuple(jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=SingleDeviceSharding(dev, memory_kind=k))
                 for k in sp["args"])
    return jax.jit(f, **kw), args


def jax_source(sp: dict[str, Any]) -> str:
    """The spec as readable pseudo-code (for repros)."""
    lines = [f"args: {', '.join(f'v{i}: f32[8,128] in {k}' for i, k in enumerate(sp['args']))}"]
    n = len(sp["args"])
    for st in sp["steps"]:
        lines.append(f"v{n} = {st[0]}({', '.join(str(x) for x in st[1:])})")
        n += 1
    kinds = sp["out_kinds"]
    lines.append(f"return {', '.join(f'v{i}' for i in sp['outs'])}" +
                 (f"  # out_shardings memory kinds {kinds}" if any(k is not None for k in kinds) else ""))
    return "\n".join(lines)


# -- HLO builder ------------------------------------------------------------------------

_HLO_UNARY = {"sin": "sine", "tanh": "tanh", "neg": "negate", "double": None}


def build_hlo(sp: dict[str, Any]) -> str:
    """Pre-optimisation HLO text for an ``hlo`` spec, in XLA's post order.

    Two choices keep the programs about HostOffloader rather than other passes: the
    dynamic-update-slice/dynamic-slice row index is a parameter (``idx``, last), as in a
    scanned loop, because constant indices let XLA's AlgebraicSimplifier turn the pair into
    pad/slice before the pass; and the instructions are written in post order, the order
    XLA's HLO -> StableHLO -> HLO route (how the oracle feeds HLO text to libtpu) leaves
    them in, which decides the order of each value's users and so of the walks.
    """
    text = _build_hlo_text(sp)
    return _in_post_order(text)


def _in_post_order(text: str) -> str:
    from xladoctor.syntax.hlo_parser import parse_module

    module = parse_module(text)
    head, _, rest = text.partition("\nENTRY main {\n")
    body = rest.rsplit("\n}", 1)[0].split("\n")
    by_name = {ln.split("=", 1)[0].strip().removeprefix("ROOT ").strip(): ln for ln in body}
    ordered = [by_name[i.name] for i in module.entry.post_order()]
    return head + "\nENTRY main {\n" + "\n".join(ordered) + "\n}\n"


def _build_hlo_text(sp: dict[str, Any]) -> str:
    arr = "f32[8,128]"
    lines: list[str] = []
    names: list[str] = []
    for i, _ in enumerate(sp["args"]):
        names.append(f"p{i}")
        lines.append(f"  p{i} = {arr} parameter({i})")
    index_param = len(sp["args"])
    lines.append(f"  idx = s32[] parameter({index_param})")
    extra = 0

    def fresh(base: str) -> str:
        nonlocal extra
        extra += 1
        return f"{base}.{extra}"

    for st in sp["steps"]:
        k = st[0]
        if k == "un":
            v = names[st[2]]
            op = _HLO_UNARY[st[1]]
            name = fresh(st[1])
            if op is None:
                c = fresh("two")
                lines.append(f"  {c} = f32[] constant(2)")
                b = fresh("bc")
                lines.append(f"  {b} = {arr} broadcast({c}), dimensions={{}}")
                lines.append(f"  {name} = {arr} multiply({v}, {b})")
            else:
                lines.append(f"  {name} = {arr} {op}({v})")
        elif k == "bin":
            name = fresh(st[1])
            lines.append(f"  {name} = {arr} {'add' if st[1] == 'add' else 'multiply'}({names[st[2]]}, "
                         f"{names[st[3]]})")
        elif k in ("mth", "mtd"):
            name = fresh(k)
            target = "MoveToHost" if k == "mth" else "MoveToDevice"
            lines.append(f'  {name} = {arr} custom-call({names[st[1]]}), custom_call_target="{target}"')
        elif k == "dus":
            _, a, buf_host, upd_host, back_to_dev = st
            z = fresh("zero")
            lines.append(f"  {z} = s32[] constant(0)")
            i = "idx"
            c = fresh("c0")
            lines.append(f"  {c} = f32[] constant(0)")
            buf = fresh("buf")
            lines.append(f"  {buf} = f32[4,8,128] broadcast({c}), dimensions={{}}")
            if buf_host:
                m = fresh("mth_buf")
                lines.append(f'  {m} = f32[4,8,128] custom-call({buf}), custom_call_target="MoveToHost"')
                buf = m
            r = fresh("upd")
            lines.append(f"  {r} = f32[1,8,128] reshape({names[a]})")
            if upd_host:
                m = fresh("mth_upd")
                lines.append(f'  {m} = f32[1,8,128] custom-call({r}), custom_call_target="MoveToHost"')
                r = m
            d = fresh("dus")
            lines.append(f"  {d} = f32[4,8,128] dynamic-update-slice({buf}, {r}, {i}, {z}, {z})")
            s = fresh("ds")
            lines.append(f"  {s} = f32[1,8,128] dynamic-slice({d}, {i}, {z}, {z}), dynamic_slice_sizes={{1,8,128}}")
            if back_to_dev:
                m = fresh("mtd_ds")
                lines.append(f'  {m} = f32[1,8,128] custom-call({s}), custom_call_target="MoveToDevice"')
                s = m
            name = fresh("row_out")
            lines.append(f"  {name} = {arr} reshape({s})")
        elif k == "tuple_gte":
            t = fresh("pair")
            lines.append(f"  {t} = ({arr}, {arr}) tuple({names[st[1]]}, {names[st[2]]})")
            name = fresh("first")
            lines.append(f"  {name} = {arr} get-tuple-element({t}), index=0")
        elif k == "id":
            name = names[st[1]]
        else:
            raise ValueError(k)
        names.append(name)
    outs = [names[i] for i in sp["outs"]]

    def layout(kind: str | None) -> str:
        return "{1,0:S(5)}" if kind == "pinned_host" else "{1,0}"

    params = ", ".join([f"{arr}{layout(k)}" for k in sp["args"]] + ["s32[]"])
    # A bare root is possible only when the one output is the last instruction defined.
    bare_root = (not sp.get("tuple_root", True) and len(outs) == 1 and lines
                 and lines[-1].startswith(f"  {outs[0]} = ") and outs[0] not in names[:len(sp["args"])])
    if bare_root:
        result = f"{arr}{layout(sp['out_kinds'][0])}"
        lines[-1] = lines[-1].replace(f"  {outs[0]} = ", f"  ROOT {outs[0]} = ", 1)
    else:
        result = "(" + ", ".join(f"{arr}{layout(k)}" for k in sp["out_kinds"]) + ")"
        lines.append(f"  ROOT out = ({', '.join([arr] * len(outs))}) tuple({', '.join(outs)})")
    header = f"HloModule gen, entry_computation_layout={{({params})->{result}}}"
    return header + "\nENTRY main {\n" + "\n".join(lines) + "\n}\n"
