"""A report made inside IPython names a cell's line as IPython does: ``Cell In[1], line 6``.

A real :class:`IPython.core.interactiveshell.InteractiveShell` runs the cell, so the file name is
the one IPython's compiler makes up and registers in ``linecache``, as in a Jupyter kernel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.base.cells import cell_label, place
from xladoctor.report.snippet import snippet, source_text

EXAMPLES = str(Path(__file__).resolve().parents[1] / "examples")
CELL = """\
import jax.numpy as jnp
from frontend_ops import place_to_host  # examples/: another frontend's move to host
from xladoctor.jax import check_offload
def step(x):
    h = place_to_host(jnp.tanh(x * 2))
    return h, x + 1
report = check_offload(step, jnp.ones((16, 256)))
"""


@pytest.fixture
def shell():
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    sh = interactiveshell.InteractiveShell.instance()
    yield sh
    interactiveshell.InteractiveShell.clear_instance()


def test_outside_ipython_the_file_name_stays(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert cell_label("/tmp/ipykernel_1/2.py") is None
    assert place("/tmp/ipykernel_1/2.py", 6) == "/tmp/ipykernel_1/2.py:6"
    assert place("model.py", 6, 3) == "model.py:6:3"


def test_check_offload_in_a_cell_names_the_cell(shell, monkeypatch):
    pytest.importorskip("jax")
    monkeypatch.syspath_prepend(EXAMPLES)
    result = shell.run_cell(CELL, store_history=True)
    assert result.success, result.error_in_exec
    report = shell.user_ns["report"]
    assert report.outcome == "E1200"
    text = str(report)
    assert "Cell In[1], line 6" in text  # the return statement, as IPython's traceback names it
    assert "ipykernel" not in text and "<ipython-input" not in text
    assert "Cell In[1], line 5" in text  # the move to host
    assert "h = place_to_host(jnp.tanh(x * 2))" in text  # the cell's text, from linecache
    cell_file = next(name for name, n in shell.compile._filename_map.items() if n == 1)
    assert cell_file not in text
    assert place(cell_file, 6) == "Cell In[1], line 6"
    assert source_text(cell_file, 5) == "    h = place_to_host(jnp.tanh(x * 2))"  # even "<ipython-input-...>"
    arrow = snippet(cell_file, 5, "    h = place_to_host(jnp.tanh(x * 2))", (8, 35), "moved to host")[0]
    assert arrow == " --> Cell In[1], line 5"
    assert place(__file__, 6) == f"{__file__}:6"  # a file that is no cell, in IPython: unchanged


HOOK_SCRIPT = """\
import os, sys
os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, {examples!r})
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "xladoctor.jax")
shell.run_cell('''\\
import jax, jax.numpy as jnp
from jax.experimental import topologies
from frontend_ops import place_to_host
dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
x = jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=jax.sharding.SingleDeviceSharding(dev))
def step(x):
    saved = place_to_host(jnp.tanh(x * 2))
    return saved, x + 1
try:
    jax.jit(step).lower(x).compile()
except Exception as e:
    print("NOTES:", *getattr(e, "__notes__", ()))
''', store_history=True)
"""


def test_the_load_ext_hook_names_the_cell(tmp_path):
    """``%load_ext xladoctor.jax`` in a shell: the note under a real E1200 (the compile-only TPU
    client, a child process as in test_jax_explain_hook) names the cell's lines."""
    pytest.importorskip("IPython")
    pytest.importorskip("jax")
    from xladoctor.oracle import unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    script = tmp_path / "notebook.py"
    script.write_text(HOOK_SCRIPT.format(examples=EXAMPLES))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    note = p.stdout[p.stdout.index("NOTES:"):]
    assert "xladoctor: what this E1200 means in your program" in note, p.stdout
    assert "Cell In[1], line 7" in note and "saved = place_to_host(jnp.tanh(x * 2))" in note, note
    assert "before the return at Cell In[1], line 8" in note, note
    assert "ipython-input" not in note and "ipykernel" not in note
