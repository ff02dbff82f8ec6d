import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

policy = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=[], names_which_can_be_offloaded=["act"],
    offload_src="device", offload_dst="pinned_host")


def layer(w, x):
    h = checkpoint_name(jnp.tanh(x @ w), "act")
    return jnp.sin(h @ w)


def loss(w, x):
    return jnp.sum(jax.checkpoint(layer, policy=policy)(w, x))


lowered = jax.jit(jax.grad(loss)).trace(jnp.ones((256, 256)), jnp.ones((16, 256))).lower(lowering_platforms=("tpu",))
open("remat_offload.hlo", "w").write(lowered.as_text("hlo"))
open("remat_offload.mlir", "w").write(lowered.as_text())

# Recorded with jax/jaxlib 0.10.2 on CPU: JAX_PLATFORMS=cpu python remat_offload.py
