"""JAX programs that reach E1200 on TPU, and their fixed versions.

JAX 0.10.2 guards its own ``jax.device_put`` offloads: a host value gets a
``float32<host>`` type, outputs holding one are declared ``pinned_host``, and an
output declared device memory in ``out_shardings`` gets its own move back to
device.  E1200 still happens where the annotation comes without JAX's type
change (another frontend's ``place_to_host``, see ``frontend_ops.py``) or where
the memory kinds are lost between JAX and XLA (HLO dumps).  Each entry below is
one such pattern, taken from the reports in docs (parameter/activation
offloading in scanned layers, offloads in nested scans, host compute outputs):

``PROGRAMS[name]() -> Program``: the function, its arguments, which output XLA
rejects (pytree path), the line where the tensor is moved to host, and the fixed
function that brings it back to device.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from frontend_ops import place_to_device, place_to_host  # noqa: E402

HERE = os.path.abspath(__file__)


@dataclass
class Program:
    name: str
    fn: Callable
    args: tuple
    bad_outputs: list[str]
    """Pytree paths XLA rejects (``jax.result_info``)."""
    offload_line: int
    """Line in this file where the offending tensor is moved to host."""
    fixed_fn: Callable | None = None
    """The same program with the tensor moved back to device before it is returned."""
    jit_kwargs: dict = field(default_factory=dict)


def _line(marker: str) -> int:
    with open(HERE) as f:
        for i, text in enumerate(f, start=1):
            if marker in text and "_line(" not in text:
                return i
    raise ValueError(marker)


# 1. A frontend's place_to_host on a value that is then returned.
def returned_after_compute(x):
    y = x * 2
    h = place_to_host(y)  # MARK:returned_after_compute
    return jnp.sin(h), x + 1


def returned_after_compute_fixed(x):
    y = x * 2
    h = place_to_host(y)
    return place_to_device(jnp.sin(h)), x + 1


# 2. Activation offloading in scanned layers: each layer's activation is put on host and
#    stacked (scan ys), and the stack is returned for a later backward pass.
def scanned_layers(ws, x):
    def layer(h, w):
        h = jnp.tanh(h @ w)
        return h, place_to_host(h)  # MARK:scanned_layers
    out, saved = jax.lax.scan(layer, x, ws)
    return {"out": out, "saved": saved}


def scanned_layers_fixed(ws, x):
    def layer(h, w):
        h = jnp.tanh(h @ w)
        return h, place_to_host(h)
    out, saved = jax.lax.scan(layer, x, ws)
    return {"out": out, "saved": place_to_device(saved)}


# 3. Parameter offloading in scanned layers, pure JAX: the parameters arrive in host
#    memory, each layer brings its slice to device with jax.device_put, and the step
#    returns the parameters updated on the host.  Called with concrete pinned_host
#    arrays, JAX types them float32<host> and declares that output pinned_host; lowered
#    ahead of time from jax.ShapeDtypeStruct(..., sharding=<pinned_host>) (jax 0.10.2)
#    the type has no <host>, the output is declared device memory, and XLA streams the
#    host parameter into it: E1200 on TPU.
def _device_sharding():
    return jax.sharding.SingleDeviceSharding(jax.devices()[0])


def param_offload_update(ws_host, x):
    def layer(h, w):
        w_dev = jax.device_put(w, _device_sharding())
        return jnp.tanh(h @ w_dev), None
    out, _ = jax.lax.scan(layer, x, ws_host)
    new_ws = ws_host * 0.99  # MARK:param_offload_update
    return out, new_ws


def param_offload_update_fixed(ws_host, x):
    def layer(h, w):
        w_dev = jax.device_put(w, _device_sharding())
        return jnp.tanh(h @ w_dev), None
    out, _ = jax.lax.scan(layer, x, ws_host)
    new_ws = jax.device_put(ws_host, _device_sharding().with_memory_kind("device")) * 0.99
    return out, new_ws


# 4. Offload inside nested scans (inner scan over micro-steps, outer over layers).
def nested_scans(ws, x):
    def inner(h, w):
        h = jnp.sin(h @ w)
        return h, place_to_host(h)  # MARK:nested_scans
    def outer(h, w_group):
        h, saved = jax.lax.scan(inner, h, w_group)
        return h, saved
    out, saved = jax.lax.scan(outer, x, ws)
    return out, saved


def nested_scans_fixed(ws, x):
    def inner(h, w):
        h = jnp.sin(h @ w)
        return h, place_to_host(h)
    def outer(h, w_group):
        h, saved = jax.lax.scan(inner, h, w_group)
        return h, place_to_device(saved)
    out, saved = jax.lax.scan(outer, x, ws)
    return out, saved


def _host(shape):
    dev = jax.devices()[0]
    s = jax.sharding.SingleDeviceSharding(dev, memory_kind="pinned_host")
    return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=s)


def _programs() -> dict[str, Callable[[], Program]]:
    x = jnp.ones((8, 128), jnp.float32)
    ws = jnp.ones((3, 128, 128), jnp.float32) * 0.01
    wn = jnp.ones((2, 3, 128, 128), jnp.float32) * 0.01
    return {
        "returned_after_compute": lambda: Program(
            "returned_after_compute", returned_after_compute, (x,), ["result[0]"],
            _line("MARK:returned_after_compute"), returned_after_compute_fixed),
        "scanned_layers": lambda: Program(
            "scanned_layers", scanned_layers, (ws, x), ["result['saved']"],
            _line("MARK:scanned_layers"), scanned_layers_fixed),
        "param_offload_update": lambda: Program(
            "param_offload_update", param_offload_update, (_host((3, 128, 128)), x), ["result[1]"],
            _line("MARK:param_offload_update"), param_offload_update_fixed),
        "nested_scans": lambda: Program(
            "nested_scans", nested_scans, (wn, x), ["result[1]"],
            _line("MARK:nested_scans"), nested_scans_fixed),
    }


PROGRAMS = _programs()


def main() -> int:
    from xladoctor.jax import check_offload
    status = 0
    for name, make in PROGRAMS.items():
        p = make()
        report = check_offload(p.fn, *p.args, jit_kwargs=p.jit_kwargs)
        print(f"== {name}")
        print(report)
        status |= 0 if report.ok else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
