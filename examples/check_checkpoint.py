"""A checkpoint written under another layout, checked against a compiled step.

The restored state is described three ways: arrays (one restored column-major),
``jax.ShapeDtypeStruct`` carrying a ``Format``, and plain metadata dicts such as
a checkpoint index might store (``{"shape", "dtype", "layout"}``, the layout in
XLA's spelling, here the TPU-tiled one).  ``check_checkpoint`` names the leaves the
step will reject; ``relayout_checkpoint`` moves arrays to the executable's formats
and turns metadata into restore targets.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.layout import Format, Layout

from xladoctor.jax import check_checkpoint, relayout_checkpoint


def train_step(state, batch):
    grads = jax.tree_util.tree_map(lambda p: p * 0.0 + batch.mean(), state)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, state, grads)


def build():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    kernel = np.arange(64 * 200, dtype=np.float32).reshape(64, 200)
    bias = np.ones((200,), np.float32)
    state = {"dense": {"kernel": jax.device_put(kernel, s), "bias": jax.device_put(bias, s)}}
    batch = jax.device_put(np.ones((4, 64), np.float32), s)
    compiled = jax.jit(train_step).trace(state, batch).lower().compile()
    restored = {"dense": {"kernel": jax.device_put(kernel, Format(Layout(major_to_minor=(1, 0)), s)),
                          "bias": jax.device_put(bias, s)}}
    metadata = {"dense": {"kernel": {"shape": (64, 200), "dtype": "float32", "layout": "{0,1:T(8,128)}"},
                          "bias": {"shape": (200,), "dtype": "float32", "layout": "{0}"}}}
    return compiled, state, restored, metadata, batch


def main() -> int:
    compiled, state, restored, metadata, batch = build()
    print(check_checkpoint(compiled, restored))
    fixed = relayout_checkpoint(compiled, restored)
    same = all(bool(jnp.array_equal(a, b)) for a, b in zip(jax.tree_util.tree_leaves(compiled(fixed, batch)),
                                                          jax.tree_util.tree_leaves(compiled(state, batch))))
    print("relaid out; same step result:", same)
    print(check_checkpoint(compiled, metadata))
    print("restore targets:", relayout_checkpoint(compiled, metadata))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
