"""docs/jax.md, "[tpu] and [gpu] on a machine without a TPU or GPU": with libtpu installed, jax's first
``jax.devices()`` (or the first trace) on a CPU-only machine prints libtpu's start-up errors and
takes seconds.  That is jax's plugin discovery in the user's own process, not xladoctor's; the
documented way out is ``JAX_PLATFORMS=cpu``.  Followed as a user would (a fresh interpreter, as
``python train_check.py``): jax starts quietly and ``check_offload`` still predicts for the TPU,
since lowering for TPU needs no TPU backend.

Without the setting (issue 38): with ``[test]`` installed (the CUDA plugin and libtpu come with it),
``import xladoctor.jax`` starts jax quietly itself where there is no accelerator
(``xladoctor/jax/quiet_start.py``), so the commands, the Python API and the pytest plugin print
nothing of them; those cases run without ``JAX_PLATFORMS`` (tests/conftest.py sets it for the
suite, which would hide exactly this)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

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


# -- without JAX_PLATFORMS: xladoctor.jax's quiet start ----------------------------------------

from xladoctor.jax.quiet_start import _without_plugin_noise, has_accelerator  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOISE = re.compile(r"cuda|plugin|traceback|absl|libtpu_init|TPU_ACCELERATOR_TYPE|TPU worker", re.I)

API = textwrap.dedent("""\
    import numpy as np
    import xladoctor.jax

    def f(x):
        return x + 1

    print(xladoctor.jax.check_offload(f, np.ones((8, 128), np.float32)))
    """)
PLUGIN_TEST = textwrap.dedent("""\
    import numpy as np

    def test_f(xladoctor_offload):
        xladoctor_offload(lambda x: x * 2, np.ones((8, 128), np.float32))
    """)


def _child(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    if has_accelerator():
        pytest.skip("this machine has a GPU or TPU: the plugins' messages are theirs to print here")
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def _quiet(p: subprocess.CompletedProcess[str]) -> None:
    noisy = [ln for ln in (p.stdout + p.stderr).splitlines() if NOISE.search(ln)]
    assert not noisy, noisy[:5]


def test_the_python_api_starts_jax_without_plugin_noise(tmp_path):
    pytest.importorskip("jax")
    (tmp_path / "api.py").write_text(API)
    p = _child([sys.executable, "api.py"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "no E1200 on tpu" in p.stdout
    _quiet(p)


def test_the_pytest_plugin_and_the_commands_are_quiet(tmp_path):
    pytest.importorskip("jax")
    (tmp_path / "test_user.py").write_text(PLUGIN_TEST)
    p = _child([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "test_user.py"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    _quiet(p)
    step = ROOT / "tests" / "data" / "first_hour" / "step.hlo"
    for argv in (["check", str(step)], ["explain", "E1200"], ["offload", str(step)]):
        p = _child([sys.executable, "-m", "xladoctor", *argv], tmp_path)
        assert p.returncode in (0, 1), p.stderr
        _quiet(p)


def test_only_the_plugins_lines_are_taken_from_stderr(capfd):
    with _without_plugin_noise():
        os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n")
        os.write(2, b"I0000 00:00:1.2 1 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will"
                    b" not be used.\n")
        os.write(2, b"a message of the user's own\n")
        print("and Python's", file=sys.stderr)
    err = capfd.readouterr().err
    # (under capfd, Python's sys.stderr is pytest's own object, so its line may come first)
    assert sorted(err.splitlines()) == ["a message of the user's own", "and Python's"]
