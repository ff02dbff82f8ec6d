"""``analyze_host_offload``: the public entry point of the E1200 analysis."""

from __future__ import annotations

from ..ir.module import HloModule
from .clone import clone_module
from .result import HostOffloadResult
from .simulator import HostOffloaderSimulation, OffloadOptions


def analyze_host_offload(module: HloModule, strict: bool = False, *, disable_host_compute: bool = False,
                         allow_h2h_copy: bool = False) -> HostOffloadResult:
    """Predict what XLA's HostOffloader (V3) does with ``module``; ``module`` is not modified.

    ``strict`` selects the program-end rule: ``False`` is today's XLA (an output
    reached by host memory is an error only when its layout is customized: tiles,
    index/pointer type, element size; otherwise XLA silently puts that output in
    host memory, reported in ``outputs_moved_to_host`` and ``warnings``); ``True``
    is older XLA and what TPU layouts amount to (any output not in host memory is
    E1200).  ``disable_host_compute`` / ``allow_h2h_copy`` mirror the XLA debug
    options of the same meaning.
    """
    if module.entry is None or module.entry_computation_layout is None:
        raise ValueError("module has no entry computation")
    options = OffloadOptions(strict, disable_host_compute, allow_h2h_copy)
    sim = HostOffloaderSimulation(clone_module(module), module, options)
    return sim.run()
