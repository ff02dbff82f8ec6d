"""XLA's GPU compiler, compile-only, from one of XLA's GPU target configs (the ``[gpu]`` extra).

The CUDA PJRT plugin (``jax-cuda12-pjrt`` 0.10.2) builds a compile-only GPU device from a
``stream_executor.GpuTargetConfigProto`` in text form -- no GPU, no driver, no ``libcuda``:
``get_topology_desc("cuda", "cuda", target_config=TEXT, topology="1x1x1")``.  Without the
target config it looks for a visible GPU; without ``topology`` it refuses to guess a shape.
The configs are XLA's own ``xla/backends/gpu/target_config/specs/*.txtpb``, shipped in
``gpu_specs/`` (see its README for the source and the one field removed for the pinned proto).

Everything after the client is :class:`.backend.Backend`'s: the plugin takes StableHLO, HLO
text goes through XLA's converter with the memory kinds put back, and the verdict carries
the optimised module, entry layouts and memory statistics.  The HLO passes (where E1200 and
the verifier failures come from) need no toolchain; code generation afterwards needs ptxas
and libdevice, which ``nvidia-cuda-nvcc-cu12`` provides and the plugin finds on its own.
"""

from __future__ import annotations

from importlib import resources

from .backend import Backend
from .topologies import GPU_SPECS

GPU_TOPOLOGY_SHAPE = "1x1x1"
"""One host, one slice, one device: what a single-device GPU compile needs."""


def spec_text(topology: str) -> str:
    """The ``GpuTargetConfigProto`` text for a GPU ``--topology`` name (``h100``)."""
    name = GPU_SPECS[topology]
    return resources.files(__package__).joinpath("gpu_specs").joinpath(f"{name}.txtpb").read_text(encoding="utf-8")


class GpuBackend(Backend):
    """One GPU target's compile-only client, loaded once per worker."""

    def _make_topology(self, topologies, topology: str):
        return topologies.get_topology_desc("cuda", "cuda", target_config=spec_text(topology),
                                            topology=GPU_TOPOLOGY_SHAPE)
