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


# the same policy with a name the program never gives (checkpoint_name "act"): it offloads nothing
typo = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=[], names_which_can_be_offloaded=["activation"],
    offload_src="device", offload_dst="pinned_host")


def loss_typo(w, x):
    return jnp.sum(jax.checkpoint(layer, policy=typo)(w, x))


for name, f in (("remat_offload", loss), ("remat_offload_typo", loss_typo)):
    lowered = jax.jit(jax.grad(f)).trace(jnp.ones((256, 256)), jnp.ones((16, 256))).lower(lowering_platforms=("tpu",))
    with open(f"{name}.hlo", "w") as hlo, open(f"{name}.mlir", "w") as mlir:
        hlo.write(lowered.as_text("hlo"))
        mlir.write(lowered.as_text())

# Recorded with jax/jaxlib 0.10.2 on CPU: JAX_PLATFORMS=cpu python remat_offload.py
