"""XLA's own wording for what HostOffloader logs, kept in one place."""

from __future__ import annotations


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
    return (f"Entry output {index_text} receives host memory (starting from {start}); its layout {old} is not "
            f"customized, so XLA with unmerged PR #36525 silently changes it to {new}: the caller gets this "
            "output in host memory (memory kind pinned_host). Released XLA fails with E1200 instead.")


def dropped_offload_warning(name: str, reason: str) -> str:
    return f'MoveToHost "{name}" moves nothing to host: {reason}. XLA removes it silently.'
