"""The StableHLO alone (issue 37): ``check model.mlir`` with no HLO beside it gets the verdict its
HLO gets, by jaxlib's conversion; without jax it is an input error naming the extra, never clean."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from xladoctor.cli.main import main

DATA = Path(__file__).parent / "data" / "first_hour" / "lowered"


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["check", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_lone_mlir_gets_the_verdict_of_its_hlo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("jax")
    lone = tmp_path / "step.mlir"
    shutil.copy(DATA / "step.mlir", lone)  # alone: no step.hlo beside it
    code, doc = _check(capsys, str(lone))
    _, with_hlo = _check(capsys, str(DATA / "step.hlo"))
    entry, reference = doc["files"][0], with_hlo["files"][0]
    assert entry["path"] == str(lone) and entry["kind"] == "hlo"
    assert code == 1 and doc["verdict"] == "findings"
    codes = sorted(d["code"] for d in doc["diagnostics"]["findings"])
    assert codes == sorted(d["code"] for d in with_hlo["diagnostics"]["findings"]) == ["E1200"]
    assert entry["offload"]["details"]["errors"][0]["output_index"] == \
        reference["offload"]["details"]["errors"][0]["output_index"] == [0]
    # located in the converted HLO, which is not the file: no .mlir line is shown under an HLO line number
    assert {d["location"]["path"] for d in doc["diagnostics"]["findings"]} == {f"<{lone} as HLO>"}


def test_lone_mlir_without_jax_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax._src.lib", None)  # import fails as it does without the extra
    lone = tmp_path / "step.mlir"
    shutil.copy(DATA / "step.mlir", lone)
    code, doc = _check(capsys, str(lone))
    assert code == 2 and doc["verdict"] != "clean"
    assert doc["files"][0]["kind"] == "error"
    assert "xladoctor[jax]" in doc["files"][0]["error"] and doc["files"][0]["error"].startswith(f"{lone}:1:1: ")


def test_mlir_beside_its_hlo_is_still_its_companion(capsys: pytest.CaptureFixture[str]) -> None:
    _, doc = _check(capsys, str(DATA / "step.hlo"), str(DATA / "step.mlir"))
    kinds = {f["path"]: f["kind"] for f in doc["files"]}
    assert kinds == {str(DATA / "step.hlo"): "hlo", str(DATA / "step.mlir"): "skipped"}


def test_mlir_in_a_folder_walk_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(DATA / "step.mlir", tmp_path / "other.mlir")
    code, doc = _check(capsys, str(tmp_path))
    assert code == 0 and doc["files"][0]["kind"] == "skipped"


def test_offload_of_a_lone_mlir_agrees_with_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("jax")
    lone = tmp_path / "step.mlir"
    shutil.copy(DATA / "step.mlir", lone)
    code = main(["offload", str(lone), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and [d["code"] for d in doc["diagnostics"]["findings"]] == ["E1200"]
    assert doc["diagnostics"]["inputs"] == [f"<{lone} as HLO>"]  # its lines are the HLO's, not the file's
    assert doc["stablehlo"]["path"] == str(lone) and doc["memory_kinds"]["known"]


def test_offload_of_a_lone_mlir_without_jax_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jax._src.lib", None)
    lone = tmp_path / "step.mlir"
    shutil.copy(DATA / "step.mlir", lone)
    code = main(["offload", str(lone)])
    captured = capsys.readouterr()
    assert code == 2 and "xladoctor[jax]" in captured.err and captured.out == ""
