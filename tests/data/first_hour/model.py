"""The program behind tests/data/first_hour/step.hlo (the README's `check` example): lines 21-24
are the ones the module's metadata names."""

import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

device = jax.devices()[0]
pinned_host = SingleDeviceSharding(device, memory_kind="pinned_host")


def init(key):
    return {"w": jax.random.normal(key, (256, 256))}


# jax.jit(train_step).lower(x, params).as_text("hlo") for TPU gives step.hlo (its source_file
# made relative); the first output is offloaded but declared in device memory.
@jax.jit
def train_step(x, params):
    w = params["w"]
    y = x @ w
    h = jnp.tanh(y)
    saved = jax.device_put(h, pinned_host)
    return saved, y * y
