"""What counts as a move to host, a move to device, and host compute.

XLA's front ends (JAX ``device_put``, offloading remat policies) emit
``annotate_device_placement`` custom calls carrying ``_xla_buffer_placement``;
``ConvertMemoryPlacementToInternalAnnotations`` turns them into the internal
``MoveToHost``/``MoveToDevice`` targets before HostOffloader runs.  The analysis
treats both spellings alike, so it can read HLO from either side of that pass.
"""

from __future__ import annotations

from ..ir.instruction import HloInstruction
from ..ir.opcodes import ASYNC_START, CUSTOM_CALL
from ..ir.rare_fields import CALLS
from ..ir.shape import HOST_MEMORY_KINDS
from ..syntax.attributes import unquote

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

# Final: the compiled core (setup.py) has each string put where it is read, not read from here.
ANNOTATE_DEVICE_PLACEMENT: Final = "annotate_device_placement"
BUFFER_PLACEMENT_ATTR: Final = "_xla_buffer_placement"
DEVICE_PLACEMENT: Final = "device"

MOVE_TO_HOST: Final = "MoveToHost"
MOVE_TO_DEVICE: Final = "MoveToDevice"
ALLOCATE_BUFFER: Final = "AllocateBuffer"
X64_SPLITS = frozenset({"X64SplitLow", "X64SplitHigh"})
ANNOTATION_TARGETS = frozenset({MOVE_TO_HOST, MOVE_TO_DEVICE, ANNOTATE_DEVICE_PLACEMENT})
"""The only custom-call targets :func:`is_move_to_host` / :func:`is_move_to_device` accept (a cheap
filter before them)."""

COMPUTE_TYPE_ATTR: Final = "_xla_compute_type"
COMPUTE_TYPE_HOST: Final = "host"
HOST_THREAD: Final = "host"


def placement(instr: HloInstruction) -> str | None:
    """The ``_xla_buffer_placement`` of an ``annotate_device_placement`` call, else None."""
    extra = instr._extra  # the target and frontend attributes read from their store, as their properties
    if instr.opcode is not CUSTOM_CALL or extra is None or type(extra) is CALLS \
            or extra.number != ANNOTATE_DEVICE_PLACEMENT:  # read them (two Python calls, interpreted)
        return None
    return extra.frontend_attributes.get(BUFFER_PLACEMENT_ATTR)


def is_move_to_host(instr: HloInstruction) -> bool:
    """``MoveToHost``, or ``annotate_device_placement`` to pinned/unpinned host."""
    # The target and the placement read from their store, as is_annotation reads them: the
    # custom_call_target property and placement() were two Python calls a custom call
    # (the report of dead moves asks each removed one: 21k at jax_entry 100k).
    extra = instr._extra
    if instr.opcode is not CUSTOM_CALL or extra is None or type(extra) is CALLS:
        return False  # (no target: a ``Calls`` holds none)
    target = extra.number  # a target is a string: a number here equals neither
    return target == MOVE_TO_HOST or (target == ANNOTATE_DEVICE_PLACEMENT
                                      and extra.frontend_attributes.get(BUFFER_PLACEMENT_ATTR) in HOST_MEMORY_KINDS)


def is_move_to_device(instr: HloInstruction) -> bool:
    """``MoveToDevice``, or ``annotate_device_placement`` to ``device``."""
    extra = instr._extra  # (read as is_move_to_host reads it)
    if instr.opcode is not CUSTOM_CALL or extra is None or type(extra) is CALLS:
        return False
    target = extra.number
    return target == MOVE_TO_DEVICE or (target == ANNOTATE_DEVICE_PLACEMENT
                                        and extra.frontend_attributes.get(BUFFER_PLACEMENT_ATTR) == DEVICE_PLACEMENT)


def is_annotation(instr: HloInstruction) -> bool:
    """:func:`is_move_to_host` or :func:`is_move_to_device`, the placement read once (jax's
    ``annotate_device_placement`` calls: 10k a module at ``jax_entry`` 100k, each asked twice)."""
    extra = instr._extra  # the target and frontend attributes read from their store, as their properties read them
    if instr.opcode is not CUSTOM_CALL or extra is None or type(extra) is CALLS:
        return False  # (no target: a ``Calls`` holds none)
    target = extra.number  # a target is a string: a number here equals none of these
    if target in (MOVE_TO_HOST, MOVE_TO_DEVICE):
        return True
    if target != ANNOTATE_DEVICE_PLACEMENT:
        return False
    where = extra.frontend_attributes.get(BUFFER_PLACEMENT_ATTR)
    return where in HOST_MEMORY_KINDS or where == DEVICE_PLACEMENT


def is_allocate_buffer(instr: HloInstruction) -> bool:
    return instr.opcode is CUSTOM_CALL and instr.custom_call_target == ALLOCATE_BUFFER


def is_host_async_start(instr: HloInstruction) -> bool:
    """``async-start`` with ``async_execution_thread="host"`` (JAX ``compute_on('device_host')``)."""
    if instr.opcode is not ASYNC_START:
        return False
    raw = instr.attributes.get("async_execution_thread")
    return raw is not None and unquote(raw) == HOST_THREAD  # XLA's string decoding, as async_sugar's


def is_host_compute(instr: HloInstruction) -> bool:
    return instr.frontend_attributes.get(COMPUTE_TYPE_ATTR) == COMPUTE_TYPE_HOST


def is_sharding_marker(instr: HloInstruction) -> bool:
    """A one-operand custom call that keeps its operand's shape and is no placement annotation:
    jax's ``Sharding`` (and the like), which a value passes through unchanged."""
    target = instr.custom_call_target or ""
    return (instr.opcode is CUSTOM_CALL and placement(instr) is None and not target.startswith(
        ("Move", "annotate")) and len(instr.operands) == 1 and instr.shape == instr.operands[0].shape)
