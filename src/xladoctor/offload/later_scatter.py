"""A scatter into a buffer that is a host-memory argument (openxla/xla#34565 as the chip runs it).

Called with an array already in ``pinned_host``, ``x.at[...].set(y)`` updates the host buffer
where it is (JAX leaves the result in ``pinned_host``; with a ``ShapeDtypeStruct`` it writes
``device`` and HostOffloader raises E1200 first).  libtpu 0.0.42.1 then fails after HostOffloader,
by what the scatter is:

* ``host-argument-slice-update``: one window at constant indices that overwrites
  (``x.at[a:a+n].set(y)``, which the TPU compiler rewrites into a dynamic-update-slice): on a
  rank-1 buffer ``UNIMPLEMENTED: Lane slice updating is not supported in async dynamic update
  slice yet`` (every width 1 to 1,000, offset, f32/bf16/s32/s8, update on host or device, result
  left on host or moved to device); on full-width rows of a ``[512, 128]`` buffer, 32-bit rows
  whose count is neither a divisor nor a multiple of 8 (5, 7, 9) and one 16-bit row abort the
  compiler (``Check failed: ... Sublane slicing size not multiple of update chunk sublane size``);
  1, 2, 4, 8, 16 and 24 f32 rows and 8 to 32 bf16 rows compile.
* ``host-argument-scatter``: any other scatter (``x.at[i].set(y)``/``.add``, indices and update
  on host or device, flat or rows, f32/bf16, result on host or moved to device) runs as host
  compute, which XLA:CPU's thunk emitter rejects: ``INTERNAL: RET_CHECK failure
  (.../cpu/thunk_emitter.cc:412) instruction->has_backend_config() Fusion must have backend
  config``.

Measured with libtpu compile-only (``bench/public_boundaries.py scatter``, 44 variants) and on a
real v5e chip (``tests/data/chip/round5-public.jsonl``: both of #34565's programs); elementwise
compute on the same argument left on host (``x * 2 + 1``) compiles and is not matched.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..base.labels import label
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import BITCAST, CONSTANT, COPY, PARAMETER
from ..ir.shape import HOST_MEMORY_SPACE, Shape
from ..ir.tpu_layouts import LIBTPU
from .annotations import is_sharding_marker
from .kinds import Status
from .result import PassFailure


def host_argument_scatters(module: HloModule, scatters: list[HloInstruction]) -> Iterator[PassFailure]:
    """A failure for each scatter whose buffer is an entry argument in host memory (see above);
    ``scatters``: the entry's scatters, in order (:func:`.later_scan.instructions_of`)."""
    assert module.entry is not None and module.entry_computation_layout is not None
    params = module.entry_computation_layout.parameters
    for scatter in scatters:
        if len(scatter.operands) != 3 or not scatter.shape.is_array:
            continue
        buffer = _through_markers(scatter.operands[0])
        number = buffer.parameter_number
        if buffer.opcode is not PARAMETER or number is None or number >= len(params):
            continue
        declared = params[number]
        if not declared.is_array or declared.memory_space != HOST_MEMORY_SPACE:
            continue
        update = scatter.operands[2].shape
        if not _one_window_at_constant(scatter):
            yield PassFailure(Status.INTERNAL, label(
                "offload.later_host_scatter", libtpu=LIBTPU, instruction=scatter.name, param=number,
                shape=str(declared.without_layout())), scatter.name)
        elif len(declared.dimensions) == 1:
            yield PassFailure(Status.UNIMPLEMENTED, label(
                "offload.later_host_slice_update", libtpu=LIBTPU, instruction=scatter.name, param=number,
                shape=str(declared.without_layout()), update=str(update.without_layout())), scatter.name)
        elif _rows_fail(declared, update):
            yield PassFailure(Status.CHECK, label(
                "offload.later_host_rows_update", libtpu=LIBTPU, instruction=scatter.name, param=number,
                shape=str(declared.without_layout()), update=str(update.without_layout())), scatter.name)


def _through_markers(instr: HloInstruction) -> HloInstruction:
    while is_sharding_marker(instr) or instr.opcode in (BITCAST, COPY):
        instr = instr.operands[0]
    return instr


def _ints(text: str | None) -> list[int]:
    return [int(t) for t in (text or "").replace("{", " ").replace("}", " ").replace(",", " ").split()]


def _one_window_at_constant(scatter: HloInstruction) -> bool:
    """The scatter JAX writes for ``x.at[a:b].set(y)``: constant indices, the whole update one window,
    a combiner returning the update (the form the TPU compiler turns into a dynamic-update-slice;
    the same criteria as the ``scatter_to_dus`` pre-pass)."""
    indices, updates = scatter.operands[1], scatter.operands[2]
    called = scatter.called.get("to_apply") or []
    root = called[0].root if len(called) == 1 else None
    try:
        window = _ints(scatter.attributes.get("update_window_dims"))
    except ValueError:
        return False
    return indices.opcode is CONSTANT and len(window) == len(updates.shape.dimensions) and \
        root is not None and root.opcode is PARAMETER and root.parameter_number == 1


def _rows_fail(buffer: Shape, update: Shape) -> bool:
    """Full-width rows of a rank-2 or higher buffer whose count the measurements show to abort:
    32-bit counts neither dividing nor a multiple of 8; one row of a 16-bit type."""
    if len(update.dimensions) != len(buffer.dimensions) or update.dimensions[-1] != buffer.dimensions[-1]:
        return False
    rows, bits = update.dimensions[-2], buffer.element_type.bits
    if bits == 32:
        return rows % 8 != 0 and 8 % rows != 0
    return bits == 16 and rows == 1
