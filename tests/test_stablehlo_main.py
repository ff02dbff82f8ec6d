"""Reading @main's memory kinds and pytree names from real jax StableHLO, and applying them."""

import pytest

from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.stablehlo_main import apply_memory_kinds, read_main_signature

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402


def _host(dev):
    return SingleDeviceSharding(dev, memory_kind="pinned_host")


def test_pytree_outputs_kinds_and_names():
    dev = jax.devices()[0]
    f = jax.jit(lambda x, y: {"a": x * 2, "b": (y, x)},
                out_shardings={"a": _host(dev), "b": (SingleDeviceSharding(dev), SingleDeviceSharding(dev))})
    lowered = f.lower(jnp.ones(3), jnp.ones(2))
    sig = read_main_signature(lowered.as_text())
    assert [(r.memory_kind, r.name) for r in sig.results] == [
        ("pinned_host", "result['a']"), ("device", "result['b'][0]"), ("device", "result['b'][1]")]
    module = apply_memory_kinds(parse_module(lowered.as_text("hlo")), sig)
    assert str(module.entry_computation_layout.result) == "(f32[3]{0:S(5)}, f32[2]{0}, f32[3]{0})"


def test_single_result_and_host_argument():
    dev = jax.devices()[0]
    g = jax.jit(lambda x: x * 2, out_shardings=_host(dev))
    lowered = g.lower(jax.ShapeDtypeStruct((3,), jnp.float32, sharding=_host(dev)))
    sig = read_main_signature(lowered.as_text())
    assert [a.on_host for a in sig.arguments] == [True]
    assert [(r.memory_kind, r.name) for r in sig.results] == [("pinned_host", "result")]
    module = apply_memory_kinds(parse_module(lowered.as_text("hlo")), sig)
    assert str(module.entry_computation_layout) == "(f32[3]{0:S(5)})->f32[3]{0:S(5)}"


def test_text_without_main_gives_an_empty_signature():
    assert read_main_signature("HloModule m") == read_main_signature("")
    assert read_main_signature("").results == ()
