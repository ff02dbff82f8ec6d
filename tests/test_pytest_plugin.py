"""The pytest plugin, run the way users get it: loaded through the ``pytest11`` entry point
declared in pyproject.toml, in a separate pytest process (pytester), on real JAX programs.

The entry point is installed for the child process as a distribution on its PYTHONPATH
(a ``.dist-info`` with the ``entry_points.txt`` that pyproject.toml declares), so these tests
check the declaration itself, whether or not this checkout was pip-installed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

PROGRAMS = '''
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.layout import Format, Layout


def host_weights():
    """Parameters that arrive in host memory (AOT: a ShapeDtypeStruct with a pinned_host sharding)."""
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    return jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=s)


def update(w_host):
    new_w = w_host * 0.99  # streams the host parameter into a device output: E1200 on TPU
    return new_w


def update_fixed(w_host):
    w = jax.device_put(w_host, jax.memory.Space.Device)
    return w * 0.99


def step(w, x):
    return (x @ w).sum()


def compiled_and_arrays():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    w = np.arange(40 * 256, dtype=np.float32).reshape(40, 256)
    x = jax.device_put(np.ones((8, 40), np.float32), s)
    row = jax.device_put(w, s)
    col = jax.device_put(w, Format(Layout(major_to_minor=(1, 0)), s))
    return jax.jit(step).trace(row, x).lower().compile(), row, col, x
'''

TESTS = '''
from xladoctor.testing.pytest_plugin import assert_inputs_match
from programs import compiled_and_arrays, host_weights, update, update_fixed


def test_fixed_program(xladoctor_offload):
    xladoctor_offload(update_fixed, host_weights())


def test_offloading_program(xladoctor_offload):
    xladoctor_offload(update, host_weights())


def test_matching_arguments(xladoctor_inputs):
    compiled, row, _, x = compiled_and_arrays()
    xladoctor_inputs(compiled, row, x)


def test_column_major_weights():
    compiled, _, col, x = compiled_and_arrays()
    assert_inputs_match(compiled, col, x)
'''


def _entry_point() -> tuple[str, str]:
    """``(name, module)`` of the pytest11 entry point pyproject.toml declares."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        eps = tomllib.load(f)["project"]["entry-points"]["pytest11"]
    assert len(eps) == 1
    return next(iter(eps.items()))


def _installed_entry_point(where: Path) -> Path:
    """A distribution that declares pyproject's pytest11 entry point, as pip would install it."""
    name, module = _entry_point()
    dist = where / "site" / "xladoctor_entry_point-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: xladoctor-entry-point\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[pytest11]\n{name} = {module}\n")
    return dist.parent


def _env_path(pytester: pytest.Pytester, *extra: Path) -> None:
    parts = [str(p) for p in extra] + [str(SRC), str(pytester.path)]
    pytester._monkeypatch.setenv("PYTHONPATH", os.pathsep.join(parts))


@pytest.fixture
def user_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    # Not imported here: pytester restores sys.modules after each test, and a second import of
    # jaxlib's native modules in one process aborts it.
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed (pip install 'xladoctor[jax]')")
    pytester.makepyfile(programs=PROGRAMS, test_user=TESTS)
    _env_path(pytester, _installed_entry_point(pytester.path))
    return pytester


def test_plugin_loads_by_entry_point_and_fails_with_the_report(user_suite: pytest.Pytester) -> None:
    result = user_suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    # E1200: the failure is the text report: the host argument, the user's own line, both fixes.
    assert "test_user.py::test_offloading_program FAILED" in out or "FAILED test_user.py::test_offloading_program" in out
    assert "xladoctor: update would fail to compile" in out
    assert "starting from w_host" in out
    assert "argument w_host arrives in host memory" in out
    written = (user_suite.path / "programs.py").read_text().splitlines()
    line = next(i for i, text in enumerate(written, 1) if "new_w = w_host * 0.99" in text)
    assert f"programs.py:{line} in update" in out
    assert "jax.device_put" in out and "pinned_host" in out
    # E0102: the column-major leaf, both layouts and the device_put fix.
    assert "FAILED test_user.py::test_column_major_weights" in out
    assert "w: layout mismatch" in out  # the Python name, as JAX's own error says "Argument w"
    assert "f32[40,256]{1,0}" in out and "f32[40,256]{0,1}" in out
    assert "w = jax.device_put(w, compiled.input_formats[0][0])" in out
    assert "test_fixed_program" not in out.split("short test summary")[-1]


def test_confirm_option_reaches_the_real_compiler(user_suite: pytest.Pytester) -> None:
    from xladoctor.oracle import unavailable_reason

    why = unavailable_reason()
    if why is not None:
        pytest.skip(f"real TPU compiler unavailable: {why}")
    result = user_suite.runpytest_subprocess("-p", "no:cacheprovider", "--xladoctor-confirm",
                                             "-k", "offloading_program or fixed_program")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "real TPU compiler (v5e:2x2)" in out and "agrees with the prediction" in out


def test_options_are_listed_in_help(pytester: pytest.Pytester) -> None:
    _env_path(pytester, _installed_entry_point(pytester.path))
    result = pytester.runpytest_subprocess("--help")
    assert "--xladoctor-confirm" in result.stdout.str() and "--xladoctor-platform" in result.stdout.str()


def test_without_jax_pytest_still_runs(pytester: pytest.Pytester) -> None:
    """A jax that cannot be imported: unrelated tests pass, the fixture fails saying what to install."""
    blocker = pytester.path / "nojax"
    (blocker / "jax").mkdir(parents=True)
    (blocker / "jax" / "__init__.py").write_text("raise ImportError('jax is not installed here')\n")
    pytester.makepyfile(test_plain=textwrap.dedent('''
        def test_unrelated():
            assert 1 + 1 == 2

        def test_uses_fixture(xladoctor_offload):
            xladoctor_offload(print)
    '''))
    _env_path(pytester, blocker, _installed_entry_point(pytester.path))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "pip install 'xladoctor[jax]'" in result.stdout.str()


def test_loading_the_plugin_imports_no_jax() -> None:
    code = "import sys, xladoctor.testing.pytest_plugin; print(sorted(m for m in ('jax', 'numpy') if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"
