"""Can the real TPU compiler run here?  Answered without importing jax.

libtpu ships only for Linux x86-64 (and aarch64 wheels that jax 0.10.2 does not pin), and
it needs ``jax``/``jaxlib`` of the pinned versions beside it.  ``XLADOCTOR_NO_TPU_ORACLE=1``
makes this say "unavailable" on purpose, so the no-extra path can be tested on a machine
that has the extra.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys

from ..labels import label

INSTALL_HINT = label("oracle.install_hint")
DISABLE_ENV = "XLADOCTOR_NO_TPU_ORACLE"
PINNED = {"jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.42.1"}


def unavailable_reason() -> str | None:
    """``None`` when a worker can be started, else one line saying why not."""
    if os.environ.get(DISABLE_ENV):
        return label("oracle.switched_off", env=DISABLE_ENV)
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        return label("oracle.wrong_platform", platform=sys.platform, machine=platform.machine())
    for module in ("jax", "jaxlib", "libtpu"):
        if importlib.util.find_spec(module) is None:
            return label("oracle.not_installed", module=module, hint=INSTALL_HINT)
    return None


def available() -> bool:
    return unavailable_reason() is None
