"""``place_to_host`` / ``place_to_device`` as another frontend writes them (torch_xla style).

JAX's own ``jax.device_put(x, host_sharding)`` changes the value's type to
``float32<host>[...]``, so JAX knows which outputs hold host memory and declares
them (``mhlo.memory_kind``) or adds a move back to device.  Frontends that emit
the placement annotation directly (PyTorch/XLA's ``place_to_host``, hand-written
lowerings, older JAX) only add the custom call; the output stays declared as
device memory, and XLA reports E1200 at compile time on TPU.  These two
primitives reproduce that so the examples can show it with jax on CPU.
"""

from __future__ import annotations

from jax.extend.core import Primitive
from jax.interpreters import mlir

place_to_host_p = Primitive("place_to_host")
place_to_device_p = Primitive("place_to_device")

for _prim, _kind in ((place_to_host_p, "pinned_host"), (place_to_device_p, "device")):
    _prim.def_impl(lambda x: x)
    _prim.def_abstract_eval(lambda x: x)

    def _lowering(ctx, x, _kind=_kind):
        # The same custom call JAX emits for device_put inside jit, on every platform.
        from jax._src.interpreters import mlir as _mlir
        return [_mlir.wrap_with_memory_kind(ctx.module_context, x, _kind, ctx.avals_out[0])]

    mlir.register_lowering(_prim, _lowering)


def place_to_host(x):
    """Annotate ``x`` to live in host memory (``annotate_device_placement`` to ``pinned_host``)."""
    return place_to_host_p.bind(x)


def place_to_device(x):
    """Annotate ``x`` to come back to device memory."""
    return place_to_device_p.bind(x)
