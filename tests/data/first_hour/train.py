import os, sys
os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, "/work/wt/h38/examples")
import jax, jax.numpy as jnp
from jax.experimental import topologies
from jax.sharding import SingleDeviceSharding
from frontend_ops import place_to_host

dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
device = SingleDeviceSharding(dev, memory_kind="device")
x = jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=device)
w = jax.ShapeDtypeStruct((256, 256), jnp.float32, sharding=device)

def step(x, w):
    h = jnp.tanh(x @ w)
    saved = place_to_host(h)  # OFFLOAD LINE
    return saved, h * 2

lo = jax.jit(step).lower(x, w)
open("step.hlo","w").write(lo.as_text("hlo", debug_info=True))
open("step.mlir","w").write(lo.as_text())
try:
    lo.compile()
except Exception as e:
    print("compile:", str(e)[:80])

# Recorded with jax/jaxlib 0.10.2 + libtpu 0.0.42.1 (compile-only v5e) as
# XLA_FLAGS=--xla_dump_to=xla_dump python train.py: xla_dump/ is that run's (its FileNames name /tmp/h38play/gen.py).
# ruff: noqa
