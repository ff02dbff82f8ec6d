"""E0102 before the call: an array in another layout than the executable was compiled for.

``params["w"]`` is put on the device column-major (``Layout(major_to_minor=(1, 0))``)
while the step was compiled for the default row-major layout.  JAX would refuse the
call with "Computation was compiled for input layouts that disagree..." (past JAX,
XLA says E0102); ``check_inputs`` says so first, with the pytree path and both
physical sizes (here and under TPU tiling), and ``fix_inputs`` relays it out.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.layout import Format, Layout

from xladoctor.jax import check_inputs, fix_inputs


def step(params, x):
    return jnp.tanh(x @ params["w"].T + params["b"]).sum()


def build():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    w = np.arange(256 * 40, dtype=np.float32).reshape(256, 40) / 1000
    b = np.linspace(0, 1, 256, dtype=np.float32)
    x = jax.device_put(np.ones((8, 40), np.float32), s)
    params_row = {"w": jax.device_put(w, s), "b": jax.device_put(b, s)}
    params_col = {"w": jax.device_put(w, Format(Layout(major_to_minor=(1, 0)), s)), "b": params_row["b"]}
    compiled = jax.jit(step).trace(params_row, x).lower().compile()
    return compiled, params_row, params_col, x


def main() -> int:
    compiled, params_row, params_col, x = build()
    report = check_inputs(compiled, params_col, x)
    print(report)
    try:
        compiled(params_col, x)
        print("JAX accepted the call")
    except ValueError as e:
        print("JAX:", str(e).splitlines()[0])
    args, kwargs = fix_inputs(compiled, params_col, x)
    same = bool(compiled(*args, **kwargs) == compiled(params_row, x))
    print("after fix_inputs:", check_inputs(compiled, *args, **kwargs), "| same result:", same)
    return 0 if (not report.ok and same) else 1


if __name__ == "__main__":
    sys.exit(main())
