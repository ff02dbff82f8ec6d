"""Host-offload analysis: what XLA's HostOffloader pass does with a module, and E1200.

The model is **V3** of the pass (openxla/xla @ 0b1e957, 2026, see
``/work/shared/docs/host-offload.md``): S(5) cleared from instructions first,
deferred dynamic-update-slice resolution, a same-shape ``copy`` on host data is
host compute, and the program-end rule ``EnsureEntryLayoutIsHostMemory`` (an
output reached by host memory is E1200 only when its layout is customized;
otherwise XLA moves that output to host memory).  ``strict=True`` selects the
V1/V2 rule (any such output not in host memory is E1200), which is also what TPU
layouts, always tiled, amount to.  Where V4 differs (explicit operand index for
the inserted host copy, tuple-shaped MoveToHost) the V3 behaviour is reproduced,
including its CHECK crash when a host value feeds a multi-operand consumer.

Pre-optimization modules (not ``is_scheduled=true``) first get XLA's CallInliner
and tuple folding on the private copy (``inline_calls=None`` by default; see
:mod:`.inline`), since HostOffloader only ever sees inlined code.  HostOffloadLegalize
(moving layout-changing copies out of offload chains) runs first, as in XLA (see :mod:`.legalize`).

Public API::

    from xladoctor.offload import analyze_host_offload, fix_host, fix_device
    result = analyze_host_offload(module, strict=False)
    result.error        # the E1200 XLA reports (or None); result.errors: every offending output
    result.host_positions, result.host_compute, result.warnings, result.outputs_moved_to_host
"""

from .analysis import analyze_host_offload
from .fixes import fix_device, fix_host
from .positions import Position
from .result import (DroppedOffload, DusOutcome, HostComputeConversion, HostOffloadResult, InsertedInstruction,
                     OutputMismatch, OutputMovedToHost, PassFailure, PathHop, WalkStart)

__all__ = ["analyze_host_offload", "fix_host", "fix_device", "Position", "HostOffloadResult", "OutputMismatch",
           "PassFailure", "PathHop", "HostComputeConversion", "InsertedInstruction", "DusOutcome",
           "DroppedOffload", "OutputMovedToHost", "WalkStart"]
