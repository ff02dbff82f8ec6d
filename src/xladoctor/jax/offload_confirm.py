"""``check_offload(..., confirm=True)``: compile the same program with the real TPU compiler.

The program is lowered for TPU (the lowering the prediction used, when it was for TPU) and
its StableHLO -- memory kinds included -- is compiled in the oracle's worker process
(:mod:`xladoctor.oracle`).  The comparison is the one ``xladoctor offload --confirm`` makes.
"""

from __future__ import annotations

from typing import Any

from ..offload.result import HostOffloadResult
from ..oracle import INSTALL_HINT, Comparison, compare, prediction_of, shared_worker
from .lowering import LoweredProgram, lower


def confirm_program(program: LoweredProgram, result: HostOffloadResult, fn: Any, args: tuple,
                    jit_kwargs: dict, topology: str,
                    kwargs: dict | None = None) -> tuple[Comparison | None, str | None]:
    """``(comparison, None)``, or ``(None, note)`` when no real compiler can run here."""
    worker = shared_worker(topology)
    why = worker.unavailable
    if why is not None:
        return None, f"real compiler not run: {why}" + ("" if INSTALL_HINT in why else f"; {INSTALL_HINT}")
    lowered = program.lowered if program.platform == "tpu" else lower(fn, args, jit_kwargs, "tpu", kwargs)
    verdict = worker.compile_stablehlo(lowered.as_text(), want_text=False)
    return compare(prediction_of(result, program.module), verdict), None
