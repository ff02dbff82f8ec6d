"""docs/jax.md, "[tpu] on a machine without a TPU": with libtpu installed, jax's first
``jax.devices()`` (or the first trace) on a CPU-only machine prints libtpu's start-up errors and
takes seconds.  That is jax's plugin discovery in the user's own process, not xladoctor's; the
documented way out is ``JAX_PLATFORMS=cpu``.  Followed as a user would (a fresh interpreter, as
``python train_check.py``): jax starts quietly and ``check_offload`` still predicts for the TPU,
since lowering for TPU needs no TPU backend."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("jax")

PROGRAM = """
import jax, jax.numpy as jnp
from xladoctor.jax import check_offload
print(jax.devices())
report = check_offload(lambda x: jax.device_put(jax.device_put(x * 2, jax.memory.Space.Host), jax.memory.Space.Device) + 1,
                       jax.ShapeDtypeStruct((8, 128), jnp.float32))
print("outcome", report.outcome, report.platform)
print(report)
"""
LIBTPU_NOISE = ("could not determine TPU accelerator type", "unexpected worker hostname",
                "Failed to find host bounds", "TPU_WORKER_HOSTNAMES")


def test_the_documented_jax_platforms_setting_starts_jax_quietly():
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "CpuDevice" in run.stdout
    assert "outcome ok tpu" in run.stdout  # the TPU's verdict, from a CPU-only jax
    assert "checked 1 move to host memory" in run.stdout
    for noise in LIBTPU_NOISE:
        assert noise not in run.stderr, run.stderr[-2000:]
