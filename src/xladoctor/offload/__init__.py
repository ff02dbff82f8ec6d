"""Host-offload analysis: what XLA's HostOffloader pass does with a module, and E1200.

The model is the pass as shipped (openxla/xla ``baf3aac993``, which libtpu 0.0.42.1
and jaxlib 0.10.2 carry; see :mod:`.rules`): S(5) cleared from instructions first,
deferred dynamic-update-slice resolution, a same-shape ``copy`` on host data is host
compute, one walk per operand slot a MoveToHost feeds, MoveToDevice kept as the end
of every walk, and the program-end rule: any entry output reached by host memory
whose layout is not host memory is E1200, tiled or not.  ``rule="unmerged-pr-36525"``
selects the never-released variant (E1200 only for a customized layout, otherwise
the output silently becomes host memory).  The real TPU compiler is the judge:
``bench/offload_campaign.py`` compares the two; :mod:`xladoctor.oracle.divergences` lists what differs.

Pre-optimization modules (not ``is_scheduled=true``) first get XLA's CallInliner
and tuple folding on the private copy (``inline_calls=None`` by default; see
:mod:`.passes.call_inliner`), since HostOffloader only ever sees inlined code.  HostOffloadLegalize
(moving layout-changing copies out of offload chains) runs first, as in XLA (see :mod:`.passes.host_offload_legalize`).

Public API::

    from xladoctor.offload import analyze_host_offload, fix_host, fix_device
    result = analyze_host_offload(module)             # rule="shipped"
    result.error        # the E1200 XLA reports (or None); result.errors: every offending output
    result.host_positions, result.host_compute, result.warnings, result.outputs_moved_to_host
"""

from .analysis import analyze_host_offload
from .fixes import fix_device, fix_host
from .positions import Position
from .result import (
                     DroppedOffload,
                     DusOutcome,
                     HostComputeConversion,
                     HostOffloadResult,
                     InsertedInstruction,
                     OutputMismatch,
                     OutputMovedToHost,
                     PassFailure,
                     PathHop,
                     WalkStart,
)

__all__ = ["analyze_host_offload", "fix_host", "fix_device", "Position", "HostOffloadResult", "OutputMismatch",
           "PassFailure", "PathHop", "HostComputeConversion", "InsertedInstruction", "DusOutcome",
           "DroppedOffload", "OutputMovedToHost", "WalkStart"]
