"""A module lowered for CPU is named so from the texts ``Lowered.as_text`` gives, not only from a
dump's file name: ``offload X.hlo --stablehlo X.mlir`` on jax's CPU lowering notes that the
verdict cannot stand for TPU/GPU (the CPU lowering drops the placement annotations), and the
same program lowered for TPU, or a TPU program that returns a host argument as it is, gets no
such note.  ``as_text("hlo")`` alone prints no memory kinds, so it carries no evidence either way."""

from __future__ import annotations

import contextlib
import io

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402

from xladoctor.cli.main import main  # noqa: E402

NOTE = "this module was lowered for CPU"


def offload(tmp_path, lowered) -> tuple[int, str]:
    (tmp_path / "x.hlo").write_text(lowered.as_text("hlo"))
    (tmp_path / "x.mlir").write_text(lowered.as_text())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["offload", str(tmp_path / "x.hlo"), "--stablehlo", str(tmp_path / "x.mlir")])
    return rc, out.getvalue()


def step(x):
    return jax.device_put(jnp.sin(x), jax.memory.Space.Host), x * 2


X = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def test_cpu_lowering_is_noted_from_the_texts(tmp_path):
    rc, out = offload(tmp_path, jax.jit(step).trace(X).lower())
    assert rc == 0 and NOTE in out and "mhlo.memory_kind" in out


def test_tpu_lowering_of_the_same_program_is_not(tmp_path):
    rc, out = offload(tmp_path, jax.jit(step).trace(X).lower(lowering_platforms=("tpu",)))
    assert rc == 0 and NOTE not in out


def test_a_host_argument_returned_as_it_is_is_not_taken_for_cpu(tmp_path):
    host = jax.ShapeDtypeStruct((8, 128), jnp.float32,
                                sharding=SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host"))
    lowered = jax.jit(lambda h: h, out_shardings=host.sharding).trace(host).lower(lowering_platforms=("tpu",))
    _, out = offload(tmp_path, lowered)
    assert NOTE not in out


@pytest.mark.parametrize("target", ["file", "folder"])
def test_check_notes_the_cpu_lowering_of_a_file_and_of_its_folder(tmp_path, target):
    """``check`` pairs ``x.hlo`` with the ``x.mlir`` beside it, in a folder as for the file itself:
    the note came for neither (the entry kept the provenance read before the StableHLO was)."""
    lowered = jax.jit(step).trace(X).lower()
    (tmp_path / "x.hlo").write_text(lowered.as_text("hlo"))
    (tmp_path / "x.mlir").write_text(lowered.as_text())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(tmp_path / "x.hlo") if target == "file" else str(tmp_path)])
    assert rc == 0 and NOTE in out.getvalue()
    # the x.mlir read with x.hlo is not "skipped (not HLO text or logs)": it said so in a folder
    assert out.getvalue().rstrip().splitlines()[-1] == "1 file checked, 0 findings"
