"""Real jax programs compiled for TPU (libtpu, no TPU needed) with ``--xla_dump_to``, for the
same-findings test (tests/test_findings_routes.py).

Why a child process: ``XLA_FLAGS`` is read once when the backend starts, so each dump directory
needs a fresh interpreter.  ``python tests/findings_jax_dumps.py OUT GROUP`` writes

* ``OUT/dump/``: what XLA dumped while compiling the group's programs for a v5e topology
  (``*.before_optimizations.txt`` carries the memory kinds in its entry layout);
* ``OUT/stages/NAME.hlo`` / ``NAME.mlir``: ``Lowered.as_text("hlo", debug_info=True)`` and
  ``Lowered.as_text()`` (StableHLO, with JAX's memory kinds and result names);
* ``OUT/stages/NAME.json``: ``xladoctor.jax.check_offload(lowered).to_json()["diagnostics"]``
  and the real compiler's outcome (``compiled`` or the error's first line).

Programs mirror examples/offload_programs.py with the topology's device in the shardings:
``param_offload_update`` is issue 10's p7 (scanned layers with ``pinned_host`` weights).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _programs(group: str):
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    sys.path.insert(0, str(EXAMPLES))
    from frontend_ops import place_to_device, place_to_host

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    host = SingleDeviceSharding(dev, memory_kind="pinned_host")
    device = SingleDeviceSharding(dev, memory_kind="device")
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=device)
    ws_host = jax.ShapeDtypeStruct((3, 128, 128), jnp.float32, sharding=host)
    ws = jax.ShapeDtypeStruct((3, 128, 128), jnp.float32, sharding=device)

    def param_offload_update(ws_host, x):
        def layer(h, w):
            return jnp.tanh(h @ jax.device_put(w, device)), None
        out, _ = jax.lax.scan(layer, x, ws_host)
        return out, ws_host * 0.99

    def returned_after_compute(x):
        return jnp.sin(place_to_host(x * 2)), x + 1

    def scanned_layers(ws, x):
        def layer(h, w):
            h = jnp.tanh(h @ w)
            return h, place_to_host(h)
        out, saved = jax.lax.scan(layer, x, ws)
        return {"out": out, "saved": saved}

    def scanned_layers_fixed(ws, x):
        def layer(h, w):
            h = jnp.tanh(h @ w)
            return h, place_to_host(h)
        out, saved = jax.lax.scan(layer, x, ws)
        return {"out": out, "saved": place_to_device(saved)}

    groups = {
        "a": [("param_offload_update", param_offload_update, (ws_host, x)),
              ("returned_after_compute", returned_after_compute, (x,))],
        "b": [("scanned_layers", scanned_layers, (ws, x)),
              ("scanned_layers_fixed", scanned_layers_fixed, (ws, x))],
    }
    return groups[group]


def main(out: Path, group: str) -> None:
    os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
    os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # other processes may hold libtpu's lock file
    os.environ["XLA_FLAGS"] = f"--xla_dump_to={out / 'dump'}"
    import jax

    from xladoctor.jax import check_offload

    stages = out / "stages"
    stages.mkdir(parents=True, exist_ok=True)
    for name, fn, args in _programs(group):
        fn.__name__ = fn.__qualname__ = name
        lowered = jax.jit(fn).lower(*args)
        (stages / f"{name}.hlo").write_text(lowered.as_text("hlo", debug_info=True))
        (stages / f"{name}.mlir").write_text(lowered.as_text())
        diagnostics = check_offload(lowered).to_json()["diagnostics"]
        try:
            lowered.compile()
            outcome = "compiled"
        except Exception as e:  # the compiler's verdict, recorded for the test to compare
            outcome = str(e).splitlines()[0]
        (stages / f"{name}.json").write_text(json.dumps({"diagnostics": diagnostics, "compiler": outcome}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
