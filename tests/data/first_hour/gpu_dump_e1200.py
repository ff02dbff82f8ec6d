import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples"))
import jax
import jax.numpy as jnp
from frontend_ops import place_to_host

from xladoctor.jax import check_offload


def step(x, w):
    h = jnp.tanh(x @ w)
    saved = place_to_host(h)
    return saved, h * 2
args = (jax.ShapeDtypeStruct((16, 256), jnp.float32), jax.ShapeDtypeStruct((256, 256), jnp.float32))
r = check_offload(step, *args, platform="cuda", confirm=True, topology="h100")
print(r.outcome, r.confirmation.verdict.summary() if r.confirmation else r.confirm_note)

# Recorded with jax/jaxlib 0.10.2 and XLA:GPU compile-only for h100 (xladoctor[gpu], no GPU):
# XLA_FLAGS=--xla_dump_to=DIR python gpu_dump_e1200.py
