"""Start jax's backends without the GPU/TPU plugins' noise on a machine that has neither.

``pip install 'xladoctor[test]'`` brings the CUDA plugin (``[gpu]``: XLA:GPU compile-only) and
libtpu (``[tpu]``).  On a machine without a GPU or TPU, jax's first use of a backend then prints
the CUDA plugin's ``cudart_stub.cc:31] Could not find cuda drivers`` lines (absl, before logging
is set up, four times), a ``Jax plugin configuration error`` with its traceback (the CUDA version
check), and libtpu's attempt at a TPU (jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.42.1) -- and ends
with the CPU backend.  ``xladoctor.jax`` is often what starts jax in a user's process (a test
with ``assert_no_e1200``, the exception hook), so that noise looked like xladoctor's.

When nothing of an accelerator is on the machine (no ``/dev/nvidia*`` or ``/proc/driver/nvidia``,
no TPU's ``/dev/accel*`` or ``/dev/vfio/N``, no ROCm ``/dev/kfd``), jax is imported and its backends
are started here, once, as ``xladoctor.jax`` is imported, before anything else of it uses jax:

* when the user chose no platforms (``JAX_PLATFORMS`` unset, ``jax_platforms`` unset), ``cpu`` is
  chosen, the backend jax would have ended with, so the plugins are not initialised;
* jaxlib's import and the plugins' still log the ``cudart_stub`` lines from C++, on file descriptor
  2: while jax is imported and the backends start, descriptor 2 goes to a temporary file, and every
  line of it but those is written back to stderr (a user who imported jax first saw them already).

With an accelerator present nothing is done (the plugins are needed and their messages may matter),
and backends already started are left alone (the noise, if any, came with the user's own jax).  A
platform the user chose that cannot start raises later, at the user's own call, as it would have.
"""

from __future__ import annotations

import glob
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

NOISE = re.compile(r"cudart_stub\.cc:\d+\] Could not find cuda drivers on your machine"
                   r"|^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$")
"""The lines the CUDA plugin's import writes on a machine without a GPU, whatever the platforms."""
_ACCELERATOR_NODES = ("/dev/nvidia[0-9]*", "/dev/nvidiactl", "/proc/driver/nvidia", "/dev/accel[0-9]*",
                      "/dev/vfio/[0-9]*", "/dev/kfd")
"""NVIDIA's driver, a TPU (v2/v3 ``/dev/accel*``; v4 and later, v5e included, ``/dev/vfio/N``), ROCm."""


def has_accelerator() -> bool:
    return any(glob.glob(pattern) for pattern in _ACCELERATOR_NODES)


def _started() -> bool:
    from jax._src import xla_bridge

    return bool(getattr(xla_bridge, "_backends", None))


@contextmanager
def _without_plugin_noise() -> Iterator[None]:
    """File descriptor 2 into a temporary file for the block; its lines but :data:`NOISE` back to stderr."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [ln for ln in caught.read().decode("utf-8", "replace").splitlines(keepends=True)
                    if not NOISE.search(ln.rstrip("\n"))]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()


def start_quietly() -> bool:
    """Import jax and start its backends as the module's docstring says; True when this call
    started them (False: an accelerator is here, or they were started before)."""
    if has_accelerator():
        return False
    with _without_plugin_noise():
        import jax  # the CUDA plugin's stubs log while jaxlib loads, before any backend starts

        if _started():
            return False
        if not os.environ.get("JAX_PLATFORMS") and not jax.config.jax_platforms:
            jax.config.update("jax_platforms", "cpu")
        try:
            jax.devices()
        except RuntimeError:  # a platform the user chose that cannot start: theirs to see, at their call
            return False
    return True
