"""Targets the oracle compiles for: TPU topologies and GPU target configs.

TPU names are those ``jax.experimental.topologies`` takes (libtpu's compile-only client).
GPU names map to one of XLA's GPU target-config specs shipped in ``gpu_specs/`` (a
``GpuTargetConfigProto`` in text form), from which the CUDA PJRT plugin builds a compile-only
device with no GPU and no driver.  Kept import-free so the CLI can offer ``--topology``
without loading the oracle.
"""

DEFAULT_TOPOLOGY = "v5e:2x2"
TPU_TOPOLOGIES = ("v5e:2x2", "v4:2x2x1", "v5p:2x2x1", "v6e:2x2")
DEFAULT_GPU_TOPOLOGY = "h100"
GPU_SPECS = {"h100": "h100_sxm", "a100": "a100_sxm_80"}
"""``--topology`` name -> the spec file (XLA's name, ``gpu_specs/<name>.txtpb``)."""
GPU_TOPOLOGIES = tuple(GPU_SPECS)
TOPOLOGIES = TPU_TOPOLOGIES + GPU_TOPOLOGIES

_GPU_PLATFORMS = frozenset({"cuda", "gpu"})


def platform_of(topology: str) -> str:
    """``"cuda"`` for a GPU target, ``"tpu"`` otherwise (what JAX lowers for)."""
    return "cuda" if topology in GPU_SPECS else "tpu"


def default_topology(platform: str | None) -> str:
    """The target a prediction for ``platform`` is confirmed on when none is named."""
    return DEFAULT_GPU_TOPOLOGY if platform in _GPU_PLATFORMS else DEFAULT_TOPOLOGY


def is_gpu_platform(platform: str | None) -> bool:
    return platform in _GPU_PLATFORMS
