"""Reports display themselves in Jupyter: a small notebook, executed by nbclient in a real
IPython kernel, builds a check_offload, a check_inputs and an explain_log report; each cell's
rich output must be the ``--html`` page (self-contained: nothing fetched) showing the finding,
and its plain output the text report.
"""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
if importlib.util.find_spec("jax") is None:  # not imported here: the kernel imports it
    pytest.skip("jax is not installed (pip install 'xladoctor[jax]')", allow_module_level=True)

EXAMPLE_LOG = Path(__file__).resolve().parent.parent / "src" / "xladoctor" / "examples" / "tpu_job.log"

CELLS = [
    # 0: E1200 (a host-memory parameter streamed into a device output, lowered for TPU)
    '''import jax, jax.numpy as jnp, numpy as np
from jax.experimental.layout import Format, Layout
from xladoctor.jax import check_offload, check_inputs
import xladoctor

host = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
w_spec = jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=host)

def update(w_host):
    return w_host * 0.99

check_offload(update, w_spec)''',
    # 1: the same program fixed: a clean report
    '''def update_fixed(w_host):
    return jax.device_put(w_host, jax.memory.Space.Device) * 0.99

check_offload(update_fixed, w_spec)''',
    # 2: E0102 / JAX's layout ValueError: column-major weights for a row-major executable
    '''s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
w = np.arange(40 * 256, dtype=np.float32).reshape(40, 256)
x = jax.device_put(np.ones((8, 40), np.float32), s)
compiled = jax.jit(lambda w, x: (x @ w).sum()).trace(jax.device_put(w, s), x).lower().compile()
check_inputs(compiled, jax.device_put(w, Format(Layout(major_to_minor=(1, 0)), s)), x)''',
    # 3: a log
    f'xladoctor.explain_log({str(EXAMPLE_LOG)!r})',
]

# Anything that would make the page fetch: scripts, images or frames from elsewhere, style
# sheets, fonts.  (Links a reader may follow, <a href="https://openxla.org/...">, load nothing;
# url(#id) is an SVG marker inside the page.)
EXTERNAL = re.compile(r"""\bsrc\s*=\s*["']?(?:[a-z]+:)?//|@import|url\(\s*["']?(?!#|data:)|<link\b""", re.I)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    where = tmp_path_factory.mktemp("notebook")
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(where)}})
    client.execute()
    results = []
    for cell in nb.cells:
        shown = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert len(shown) == 1, cell.outputs
        results.append(shown[0].data)
    return results


def _page(data: dict) -> str:
    """The page inside the cell's iframe (``srcdoc`` unescaped once, as the browser reads it)."""
    frame = data["text/html"]
    m = re.fullmatch(r'<iframe srcdoc="([^"]*)" sandbox="allow-scripts" style="[^"]*"></iframe>', frame)
    assert m, frame[:200]
    page = html.unescape(m.group(1))
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert not EXTERNAL.search(page), EXTERNAL.search(page)
    return page


def test_e1200_report_shows_the_start_and_fixes(outputs: list[dict]) -> None:
    page = _page(outputs[0])
    assert "E1200" in page and "w_host.1" in page  # XLA's start instruction
    assert "Tensor which is moved to host (starting from w_host.1)" in page
    assert "S(5)" in page  # the host fix: the entry result in host memory
    text = outputs[0]["text/plain"]
    assert text.startswith("E1200 on tpu: output {") and "(result" in text.splitlines()[0] and "argument w_host arrives in host memory" in text


def test_clean_report_says_so(outputs: list[dict]) -> None:
    page = _page(outputs[1])
    assert "No host-offload problem predicted." in page and '<article class="e1200"' not in page
    assert "no E1200 on tpu: checked 1 argument in host memory" in outputs[1]["text/plain"]


def test_e0102_report_shows_the_parameter(outputs: list[dict]) -> None:
    page = _page(outputs[2])
    assert html.unescape(page).count("w = jax.device_put(w") >= 1  # the Python name, as JAX's own error
    assert "f32[40,256]{1,0}" in page and "f32[40,256]{0,1}" in page
    assert "jax.device_put(w, compiled.input_formats[0][0])" in html.unescape(page)
    assert outputs[2]["text/plain"].startswith("w: layout mismatch")


def test_log_report_shows_each_code(outputs: list[dict]) -> None:
    page = _page(outputs[3])
    assert "E0102" in page and "RuntimeProgramInputMismatch" in page and "E1200" in page
    assert "expected parameter 2482 of size 5242880" in page
    text = outputs[3]["text/plain"]
    assert "tpu_job.log:6: E0102 RuntimeProgramInputMismatch (x3)" in text
