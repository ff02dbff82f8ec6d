"""The exception hook: a real E1200, raised by ``jax.jit(...).lower(...).compile()`` on the
compile-only TPU client, comes out with xladoctor's explanation right under XLA's message.

A child process each: the compile-only client needs its environment before jax starts, and
``install()`` patches jax for the whole process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")
ROOT = Path(__file__).resolve().parents[1]

PROGRAM = textwrap.dedent("""\
    import os, sys
    os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
    os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    sys.path.insert(0, {examples!r})
    import jax, jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding
    from frontend_ops import place_to_host
    import xladoctor.jax

    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    device = SingleDeviceSharding(dev, memory_kind="device")
    x = jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=device)
    w = jax.ShapeDtypeStruct((256, 256), jnp.float32, sharding=device)

    def step(x, w):
        h = jnp.tanh(x @ w)
        saved = place_to_host(h)  # OFFLOAD LINE
        return saved, h * 2

    MODE = sys.argv[1]
    if MODE == "install":
        xladoctor.jax.install()
        jax.jit(step).lower(x, w).compile()   # uncaught: Python prints the traceback and the note
    try:
        jax.jit(step).lower(x, w).compile()
    except Exception as e:
        print(xladoctor.jax.explain(e))
        print("LOG:", [f.code for f in xladoctor.explain_log(e).findings])
    """)


def _run(tmp_path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    from xladoctor.oracle import unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    script = tmp_path / "train.py"
    script.write_text(PROGRAM.format(examples=str(ROOT / "examples")))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, timeout=300,
                          env=env, cwd=tmp_path)


def _offload_line(tmp_path: Path) -> int:
    lines = (tmp_path / "train.py").read_text().splitlines()
    return next(i for i, ln in enumerate(lines, 1) if "OFFLOAD LINE" in ln)


def test_install_annotates_the_real_e1200_under_the_error(tmp_path):
    p = _run(tmp_path, "install")
    assert p.returncode == 1, p.stderr
    err = p.stderr
    xla = err.index("E1200: CompileTimeHostOffloadOutputLocationMismatch")
    ours = err.index("xladoctor: what this E1200 means in your program")
    assert xla < ours, err  # right under JAX's error, not before it
    note = err[ours:]
    assert f"train.py:{_offload_line(tmp_path)}" in note, note  # the Python line of the offload
    assert "saved = place_to_host(h)" in note  # the line itself
    assert "out_shardings" in note and "pinned_host" in note  # the fix in JAX's terms


def test_explain_takes_the_exception_and_explain_log_too(tmp_path):
    p = _run(tmp_path, "explain")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("xladoctor: what this E1200 means in your program")
    assert f"train.py:{_offload_line(tmp_path)}" in p.stdout
    assert "LOG: ['E1200']" in p.stdout
