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
    # fix (b) goes before step's own return (not inside the frontend's place_to_host), on its variable
    assert f"before the return at {tmp_path / 'train.py'}:{_offload_line(tmp_path) + 1}" in note, note
    assert "saved = place_to_device(saved)" in note
    assert "in <module>" not in note  # the code that compiled is not the program's path
    # XLA has spoken (right above): not quoted again as what it "will say"; no `report` in the program
    assert "XLA will say" not in note and note.count("CompileTimeHostOffloadOutputLocationMismatch") == 0
    assert "=report." not in note and "xladoctor.jax.check_offload(f, *args).suggested_out_shardings" in note


def test_explain_takes_the_exception_and_explain_log_too(tmp_path):
    p = _run(tmp_path, "explain")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("xladoctor: what this E1200 means in your program")
    assert f"train.py:{_offload_line(tmp_path)}" in p.stdout
    assert "LOG: ['E1200']" in p.stdout


# -- E0102: JAX's layout ValueError (raised for real on CPU) and the runtimes' E0102 text -------

def _column_major_call():
    """A CPU executable compiled for row-major ``w`` and a column-major ``w`` (a real jax.Array)."""
    import jax
    import numpy as np
    from jax.experimental.layout import Format, Layout

    def step(w, x):
        return (x @ w).sum()

    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    w = np.arange(40 * 256, dtype=np.float32).reshape(40, 256)
    x = jax.device_put(np.ones((8, 40), np.float32), s)
    compiled = jax.jit(step).trace(jax.device_put(w, s), x).lower().compile()
    return compiled, jax.device_put(w, Format(Layout(major_to_minor=(1, 0)), s)), x


def test_install_annotates_jax_s_real_layout_error_on_cpu():
    """On CPU JAX itself refuses the call (its ValueError, before XLA's runtime could say E0102):
    install() puts check_inputs' report for that very call under it, naming the argument ``w`` as
    JAX's message does, with the device_put that fixes it."""
    import xladoctor.jax

    compiled, w_col, x = _column_major_call()
    xladoctor.jax.install()
    try:
        with pytest.raises(ValueError, match="disagree with the layouts") as raised:
            compiled(w_col, x)
    finally:
        xladoctor.jax.uninstall()
    (note,) = raised.value.__notes__
    assert note.startswith("xladoctor: what this layout mismatch means in your program")
    assert "Argument w " in str(raised.value) and "\nw: layout mismatch" in note
    assert "w = jax.device_put(w, compiled.input_formats[0][0])" in note
    assert "TPU runtime (PjRt): rejects" in note  # one story with the TPU-tiled sizes it prints


# The TPU runtime's E0102, in libtpu's own wording (the template of the seed message in
# tests/test_e0102_messages.py) for this program's parameter 0.  It cannot be raised on CPU: JAX's
# own layout check (above) refuses the call first, and the CPU runtime compares logical sizes,
# which a relayout does not change.  So the text is raised here, from a frame holding the real
# executable and arguments, as Compiled.__call__'s frame holds them when XLA raises it.
TPU_E0102 = ("INVALID_ARGUMENT: Executable(jit_step) expected parameter 0 of size 40960 "
             "(f32[40,256]{1,0:T(8,128)}) but got buffer with incompatible size 131072 "
             "(f32[40,256]{0,1:T(8,128)}): while running replica 0 and partition 0 of a replicated "
             "computation (other replicas may have failed as well).")


def test_explain_recognises_the_runtime_e0102_text_which_carries_no_code():
    import xladoctor.jax

    compiled, w_col, x = _column_major_call()

    def call(self, *args):  # the frame the hook reads: self and args
        raise RuntimeError(TPU_E0102)

    with pytest.raises(RuntimeError) as raised:
        call(compiled, w_col, x)
    text = xladoctor.jax.explain(raised.value)
    assert text is not None and text.startswith("xladoctor: what this E0102 means in your program")
    assert "\nw: layout mismatch" in text  # the program's own leaf, from the executable and arguments
    with pytest.raises(RuntimeError) as bare:
        raise RuntimeError(TPU_E0102)
    alone = xladoctor.jax.explain(bare.value)  # no program at hand: the message explained as a log
    assert alone is not None and "E0102" in alone and "parameter 0" in alone
    assert xladoctor.jax.explain(RuntimeError("INVALID_ARGUMENT: something else")) is None


# -- %load_ext xladoctor.jax in a real IPython kernel ------------------------------------------

KERNEL_CELL = textwrap.dedent("""\
    import jax, jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding
    from frontend_ops import place_to_host
    dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
    device = SingleDeviceSharding(dev, memory_kind="device")
    x = jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=device)
    w = jax.ShapeDtypeStruct((256, 256), jnp.float32, sharding=device)

    def step(x, w):
        h = jnp.tanh(x @ w)
        saved = place_to_host(h)
        return saved, h * 2

    jax.jit(step).lower(x, w).compile()
    """)


def test_ipython_extension_annotates_a_real_e1200_in_a_kernel(tmp_path):
    """``%load_ext xladoctor.jax`` in a real kernel, then a cell whose compile-only TPU compile
    raises E1200: the traceback the notebook shows carries the explanation under XLA's message."""
    import re

    pytest.importorskip("ipykernel")
    manager = pytest.importorskip("jupyter_client.manager")
    from xladoctor.oracle import unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    env = {**os.environ, "TPU_ACCELERATOR_TYPE": "v5litepod-4", "TPU_WORKER_HOSTNAMES": "localhost",
           "ALLOW_MULTIPLE_LIBTPU_LOAD": "1", "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "examples"), *sys.path])}
    km, kc = manager.start_new_kernel(kernel_name="python3", env=env, cwd=str(tmp_path))
    errors: list[dict] = []
    try:
        loaded = kc.execute_interactive("%load_ext xladoctor.jax", timeout=120)
        assert loaded["content"]["status"] == "ok", loaded["content"]
        kc.execute_interactive(KERNEL_CELL, timeout=240,
                               output_hook=lambda m: errors.append(m["content"]) if m["msg_type"] == "error" else None)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    (error,) = errors
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error["traceback"]))
    xla = shown.index("E1200: CompileTimeHostOffloadOutputLocationMismatch")
    ours = shown.index("xladoctor: what this E1200 means in your program")
    assert xla < ours, shown[-3000:]
    note = shown[ours:]
    assert "in step: saved = place_to_host(h)" in note  # the cell's own line
    assert "saved = place_to_device(saved)" in note and "in <module>" not in note
    assert "out_shardings=(host, None)" in note and "pinned_host" in note
