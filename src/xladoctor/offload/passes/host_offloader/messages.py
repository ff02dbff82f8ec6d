"""XLA's own wording for what HostOffloader logs, kept in one place (byte for byte, so not labels).

Our own two notes beside them are labels (``labels/en.toml`` ``[offload]``).
"""

from __future__ import annotations

from ....base.labels import label


def host_compute_warning(name: str) -> str:
    """The ``LOG(WARNING)`` for a device op that would run on host data (wording since 2025)."""
    return (f'Found an instruction ("{name}") which does device compute in host memory space. Converting into '
            "host compute. This is likely to have a very slow execution time. If you're using JAX, use "
            "device_put() to move the inputs to the device so that computation happens on the device.")


def slice_not_ending_warning(opcode: str, name: str) -> str:
    return (f"Encountered {opcode} on tensor which is in host memory. {name} does not move the tensor back to "
            f"device. {name} will be converted into host compute.")


X64_SPLIT_WARNING = ("64-bit type on device is decomposed into 32-bit types very early on so host offloader only "
                     "sees 32-bit types. Thus the current handling of 64-bit type host offloading might be "
                     "sub-optimal")

HOST_COMPUTE_DISABLED = "Automatic host compute offloading is disabled."


def output_moved_warning(index_text: str, old: str, new: str, start: str) -> str:
    """Our note for the silent entry-layout rewrite of unmerged PR #36525 (VLOG(2) there)."""
    return label("offload.output_moved_warning", index=index_text, old=old, new=new, start=start)


def dropped_offload_warning(name: str, reason: str) -> str:
    """Our note for a MoveToHost XLA removes without a word (nothing under it reaches host memory)."""
    return label("offload.dropped_offload_warning", name=name, reason=reason)


def redundant_move_to_host_warning(start: str, names: list[str]) -> str:
    """Our note for the MoveToHosts after a host computation's outputs that XLA bypasses (already host memory)."""
    return label("offload.redundant_move_to_host", start=start, names=", ".join(names))
