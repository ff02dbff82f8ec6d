"""``--run`` in this very process, for a Python caller whose jax already holds the chip.

A TPU chip takes one process at a time.  The command line never opens it itself, so
:class:`.run_chip.ChipRunner` gives the chip to a worker process, which a halt or a libtpu CHECK
can end without ending the command.  A notebook or a training script that calls
``check_offload(..., run=True)`` has usually opened the chip already (any jax call on the TPU
does); a worker would then find the chip busy.  There the one way to run is here: the same
:func:`.run_main.serve` the worker runs, on this process's own device.  What that costs is said
in docs/chip.md: a program that halts the core or aborts libtpu ends the caller's process, as
calling the program itself would.
"""

from __future__ import annotations

import sys
from typing import Any


def process_holds_chip(target: str = "tpu") -> bool:
    """Whether jax in this process has already opened a ``target`` backend with devices.

    Never imports jax and never initialises a backend: a caller that has not touched the chip
    leaves it to the worker process, which keeps the caller safe from a halt."""
    if "jax" not in sys.modules:
        return False
    try:
        from jax._src import xla_bridge

        if not xla_bridge.backends_are_initialized():
            return False
        backend = xla_bridge.backends().get(target)
        return backend is not None and bool(backend.devices())
    except Exception:  # jax's private API moved, or the backend failed: let the worker try
        return False


class InProcessRunner:
    """:class:`.run_chip.ChipRunner`'s ``judge`` on this process's own chip (same replies)."""

    def __init__(self, target: str = "tpu"):
        import jax

        from .run_main import _chip_backend

        self.device = jax.devices(target)[0]
        self.chip = {"platform": self.device.platform, "device_kind": getattr(self.device, "device_kind", ""),
                     "count": len(jax.devices(target))}
        self._backend = _chip_backend([self.device])

    def judge(self, kind: str, text: str, run: bool, seed: int = 0) -> dict[str, Any]:
        """Compile on the chip and, with ``run``, run once and compare with the CPU."""
        from .run_main import serve

        request = {"kind": kind, "text": text, "run": run, "seed": seed}
        return {"chip": self.chip, **serve(request, self._backend, self.device)}
