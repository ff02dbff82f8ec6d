"""Can the real compiler for a target run here?  Answered without importing jax.

TPU: libtpu ships only for Linux x86-64 (and aarch64 wheels that jax 0.10.2 does not pin),
and it needs ``jax``/``jaxlib`` of the pinned versions beside it.  GPU: the CUDA PJRT plugin
(``jax-cuda12-pjrt``/``jax-cuda12-plugin``, the ``[gpu]`` extra) is Linux x86-64 too; code
generation after the HLO passes needs ptxas and libdevice from ``nvidia-cuda-nvcc-cu12``.
``XLADOCTOR_NO_TPU_ORACLE=1`` / ``XLADOCTOR_NO_GPU_ORACLE=1`` make this say "unavailable" on
purpose, so the no-extra path can be tested on a machine that has the extra.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys

from ..base.labels import label
from .topologies import DEFAULT_TOPOLOGY, platform_of

INSTALL_HINT = label("oracle.install_hint")
GPU_INSTALL_HINT = label("oracle.gpu_install_hint")
DISABLE_ENV = "XLADOCTOR_NO_TPU_ORACLE"
GPU_DISABLE_ENV = "XLADOCTOR_NO_GPU_ORACLE"
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.42.1"}
GPU_PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2", "jax-cuda12-pjrt": "0.10.2", "jax-cuda12-plugin": "0.10.2"}
_GPU_MODULES = (("jax", "jax"), ("jaxlib", "jaxlib"), ("jax_plugins.xla_cuda12", "jax-cuda12-plugin"),
                ("nvidia.cuda_nvcc", "nvidia-cuda-nvcc-cu12"))


def install_hint(topology: str = DEFAULT_TOPOLOGY) -> str:
    """The one line saying which extra gives the compiler for ``topology``."""
    return GPU_INSTALL_HINT if platform_of(topology) == "cuda" else INSTALL_HINT


def unavailable_reason(topology: str = DEFAULT_TOPOLOGY) -> str | None:
    """``None`` when a worker for ``topology`` can be started, else one line saying why not."""
    gpu = platform_of(topology) == "cuda"
    env = GPU_DISABLE_ENV if gpu else DISABLE_ENV
    if os.environ.get(env):
        return label("oracle.gpu_switched_off" if gpu else "oracle.switched_off", env=env)
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        return label("oracle.gpu_wrong_platform" if gpu else "oracle.wrong_platform",
                     platform=sys.platform, machine=platform.machine())
    modules = _GPU_MODULES if gpu else (("jax", "jax"), ("jaxlib", "jaxlib"), ("libtpu", "libtpu"))
    for module, package in modules:
        if _missing(module):
            return label("oracle.not_installed", module=package, hint=install_hint(topology))
    return None


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:  # the parent package is missing
        return True


def available(topology: str = DEFAULT_TOPOLOGY) -> bool:
    return unavailable_reason(topology) is None
