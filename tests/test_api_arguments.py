"""Issue 23 item 9: the Python API refuses what JAX refuses, and says what to pass instead.

Real jax programs, compiled on this machine's CPU backend; JAX's own call is the oracle: where
it refuses the arguments, ``check_inputs`` must not say they match.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from xladoctor.jax import check_inputs, check_offload  # noqa: E402


@pytest.fixture(scope="module")
def dict_exe():
    return jax.jit(lambda d: d["a"] + 1).lower({"a": jnp.ones(3)}).compile()


@pytest.fixture(scope="module")
def tuple_exe():
    return jax.jit(lambda t: t[0] + t[1]).lower((jnp.ones(2), jnp.ones(2))).compile()


def _jax_refuses(exe, *args) -> bool:
    try:
        exe(*args)
    except (TypeError, ValueError):
        return True
    return False


def test_a_renamed_dict_key_is_a_structure_error(dict_exe):
    renamed = {"b": jnp.ones(3)}
    assert _jax_refuses(dict_exe, renamed)
    report = check_inputs(dict_exe, renamed)
    assert not report.ok and "leaves match" not in str(report)
    assert "pytree is not the one the executable was compiled for" in report.structure_error
    assert "'a'" in report.structure_error and "'b'" in report.structure_error
    assert check_inputs(dict_exe, {"a": jnp.ones(3)}).ok


def test_a_list_where_a_tuple_was_compiled_is_a_structure_error(tuple_exe):
    as_list = [jnp.ones(2), jnp.ones(2)]
    assert _jax_refuses(tuple_exe, as_list)
    report = check_inputs(tuple_exe, as_list)
    assert not report.ok and report.structure_error
    assert check_inputs(tuple_exe, (jnp.ones(2), jnp.ones(2))).ok


def test_a_jitted_function_is_a_clear_type_error():
    jitted = jax.jit(lambda x: x + 1)
    with pytest.raises(TypeError, match=r"check_inputs takes a compiled executable, not a .*jax\.jit\(f\)\.lower"):
        check_inputs(jitted, jnp.ones(2))


def test_an_unknown_platform_is_refused():
    with pytest.raises(ValueError, match="unknown platform 'bogus'"):
        check_offload(lambda x: x + 1, jnp.ones(2), platform="bogus")
