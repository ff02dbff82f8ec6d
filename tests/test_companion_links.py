"""A companion ``NAME.mlir`` that is a symlink, or that cannot be read (issue 35's leftover): a
symlink to a regular file is read as the StableHLO beside the module and every output names the
file read (``link_to``); a dangling symlink, a folder or a FIFO is refused in one line naming it,
by every command that reads companions (``offload``, ``check``, ``hlo``, the Python API).
Before, such a file was passed over without a word and the module analysed without its kinds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from json_schema_check import schema_errors

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = ["offload", "check", "hlo"]


def _run(*argv, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), JAX_PLATFORMS="cpu", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          env=env, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def lowered():
    """A pinned_host argument computed on and returned to device memory (E1200 on TPU: only its
    StableHLO says so), and an unrelated program."""
    host = SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=host)
    e1200 = jax.jit(lambda v: v * 2.0).trace(x).lower(lowering_platforms=("tpu",))
    y = jax.ShapeDtypeStruct((4, 16), jnp.float32)
    other = jax.jit(lambda v: (v + 1.0, v)).trace(y).lower(lowering_platforms=("tpu",))
    return {"e1200": e1200, "other": other}


def _module(tmp_path, lowered):
    (tmp_path / "job").mkdir()
    hlo = tmp_path / "job" / "step.hlo"
    hlo.write_text(lowered["e1200"].as_text("hlo"))
    (tmp_path / "elsewhere").mkdir()
    return hlo


def test_a_symlinked_companion_is_read_and_named_by_every_command(tmp_path, lowered):
    hlo = _module(tmp_path, lowered)
    real = tmp_path / "elsewhere" / "lowering.mlir"
    real.write_text(lowered["e1200"].as_text())
    (tmp_path / "job" / "step.mlir").symlink_to(real)
    want = {"path": str(tmp_path / "job" / "step.mlir"), "found": "beside", "link_to": str(real)}
    off = _run("offload", hlo, "--json")
    doc = json.loads(off.stdout)
    assert off.returncode == 1 and doc["details"]["outcome"] == "E1200", off.stderr
    assert doc["stablehlo"] == want and schema_errors(doc, "offload") == []
    chk = json.loads(_run("check", "-j1", "--json", hlo).stdout)["files"][0]
    assert chk["offload"]["details"]["outcome"] == "E1200" and chk["offload"]["stablehlo"] == want
    summary = json.loads(_run("hlo", hlo, "--json").stdout)
    assert summary["stablehlo"] == want and schema_errors(summary, "hlo") == []
    said = f"step.mlir, a symlink to {real}"
    for command in COMMANDS:
        assert said in _run(command, hlo).stdout, command


def test_the_python_api_reads_a_symlinked_companion(tmp_path, lowered):
    from xladoctor.report.check_json import file_entry
    from xladoctor.route.hlo_text import check_hlo

    hlo = _module(tmp_path, lowered)
    real = tmp_path / "elsewhere" / "lowering.mlir"
    real.write_text(lowered["e1200"].as_text())
    (tmp_path / "job" / "step.mlir").symlink_to(real)
    entry = file_entry(check_hlo(hlo.read_text(), str(hlo)))
    assert entry["offload"]["details"]["outcome"] == "E1200" and entry["offload"]["stablehlo"]["link_to"] == str(real)


def _unreadable(tmp_path, how: str) -> str:
    """``step.mlir`` beside the module as ``how`` says; what the refusal says of it."""
    link = tmp_path / "job" / "step.mlir"
    if how == "dangling":
        link.symlink_to(tmp_path / "elsewhere" / "gone.mlir")
        return f"a dangling symlink (to '{tmp_path / 'elsewhere' / 'gone.mlir'}')"
    if how == "link-to-folder":
        link.symlink_to(tmp_path / "elsewhere")
        return f"a symlink (to '{tmp_path / 'elsewhere'}') to a folder, not a regular file"
    if how == "folder":
        link.mkdir()
        return "a folder, not a regular file"
    os.mkfifo(link)
    return "a FIFO, not a regular file"


@pytest.mark.parametrize("how", ["dangling", "link-to-folder", "folder", "fifo"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_companion_that_cannot_be_read_is_refused_in_one_line(tmp_path, lowered, command, how):
    hlo = _module(tmp_path, lowered)
    why = _unreadable(tmp_path, how)
    p = _run(command, hlo)
    assert p.returncode == 2, (p.stdout, p.stderr)
    (line,) = [x for x in p.stderr.splitlines() if "step.mlir:" in x]
    assert line == (f"{tmp_path / 'job' / 'step.mlir'}:1:1: the StableHLO beside {hlo} cannot be read: {why}; "
                     "give the right one with --stablehlo, or move this one away")


def test_a_symlinked_companion_of_another_program_is_refused_with_both_signatures(tmp_path, lowered):
    hlo = _module(tmp_path, lowered)
    real = tmp_path / "elsewhere" / "other.mlir"
    real.write_text(lowered["other"].as_text())
    (tmp_path / "job" / "step.mlir").symlink_to(real)
    for command in COMMANDS:
        p = _run(command, hlo)
        assert p.returncode == 2 and "this StableHLO is not the program" in p.stderr, (command, p.stderr)
        assert "(f32[4,16]) -> (f32[4,16], f32[4,16])" in p.stderr


def test_stablehlo_named_with_the_option_passes_over_an_unreadable_one_beside(tmp_path, lowered):
    hlo = _module(tmp_path, lowered)
    _unreadable(tmp_path, "dangling")
    right = tmp_path / "elsewhere" / "right.ir"
    right.write_text(lowered["e1200"].as_text())
    doc = json.loads(_run("offload", hlo, "--stablehlo", right, "--json").stdout)
    assert doc["details"]["outcome"] == "E1200" and doc["stablehlo"] == {"path": str(right), "found": "option"}


def test_check_of_a_folder_reports_the_unreadable_companion_and_checks_the_rest(tmp_path, lowered):
    hlo = _module(tmp_path, lowered)
    _unreadable(tmp_path, "dangling")
    (tmp_path / "job" / "ok.hlo").write_text(lowered["other"].as_text("hlo"))
    p = _run("check", "-j1", "--json", tmp_path / "job")
    doc = json.loads(p.stdout)
    assert p.returncode == 2, p.stderr
    files = {os.path.basename(f["path"]): f for f in doc["files"]}
    assert "cannot be read: a dangling symlink" in files["step.hlo"]["error"]
    assert "error" not in files["ok.hlo"] and str(hlo) in files["step.hlo"]["error"]
