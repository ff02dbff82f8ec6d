"""Both E1200 remedies round-trip: the edited module parses in jaxlib and re-analyses clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_offload_scenarios import FILES, load, rule_of
from xladoctor.cli.main import main
from xladoctor.offload import analyze_host_offload, fix_device, fix_host
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

E1200_FILES = [p for p in FILES if "outcome=E1200" in p.read_text()]


def test_there_are_e1200_scenarios():
    assert len(E1200_FILES) >= 6


@pytest.mark.parametrize("how", ["host", "device"])
@pytest.mark.parametrize("path", E1200_FILES, ids=[p.stem for p in E1200_FILES])
def test_fix_round_trip(path: Path, how: str):
    module, _, options = load(path)
    rule = rule_of(options)
    result = analyze_host_offload(module, rule)
    assert result.errors
    fixed = (fix_host if how == "host" else fix_device)(module, result)
    text = print_module(fixed)
    again = analyze_host_offload(parse_module(text), rule)
    assert again.errors == [], text
    assert print_module(module) != text  # the input module itself is untouched
    jaxlib_hlo = pytest.importorskip("jaxlib._hlo")
    assert jaxlib_hlo.hlo_module_from_text(text).name == module.name


def test_fix_host_sets_s5_only_on_offending_output():
    module, _, _ = load(next(p for p in FILES if p.stem.startswith("M1_")))
    result = analyze_host_offload(module)
    fixed = fix_host(module, result)
    assert str(fixed.entry_computation_layout.result) == "(f32[256]{0:T(128)S(5)}, f32[256]{0:T(128)S(5)})"
    assert str(module.entry_computation_layout.result) == "(f32[256]{0:T(128)}, f32[256]{0:T(128)})"


def test_fix_device_uses_jax_annotation_when_module_does():
    module, _, _ = load(next(p for p in FILES if p.stem.startswith("J1_")))
    fixed = fix_device(module, analyze_host_offload(module))
    root = fixed.entry.root
    mtd = root.operands[0]
    assert mtd.custom_call_target == "annotate_device_placement"
    assert mtd.frontend_attributes == {"_xla_buffer_placement": "device"}
    assert mtd.operands[0].name == "tanh.1"


def test_cli_exit_codes_json_and_fix(tmp_path, capsys):
    src = next(p for p in FILES if p.stem.startswith("D1_"))
    body = "\n".join(ln for ln in src.read_text().splitlines() if not ln.startswith("//"))
    hlo = tmp_path / "d1.hlo"
    hlo.write_text(body)
    assert main(["offload", str(hlo), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 2 and doc["details"]["outcome"] == "E1200"
    err = doc["details"]["error"]
    assert err["code"] == "E1200" and err["start"] == "t" and err["output_index"] == []
    assert err["message"].splitlines() == [
        "E1200: CompileTimeHostOffloadOutputLocationMismatch:",
        "Tensor which is moved to host (starting from t) is returned from the entry computation but the layout "
        "for this output is not set to host memory.",
        "See https://openxla.org/xla/errors/error_1200 for more details."]
    assert err["trace"] == [{"instruction": "t", "shape_index": []}]
    assert doc["details"]["host_compute"][0]["instruction"] == "t"
    # version 2: the top level is what a user or CI reads, the analysis is under details only
    assert list(doc) == ["schema_version", "$schema", "command", "verdict", "provenance", "stablehlo", "memory_kinds",
                         "diagnostics", "details"]
    assert {"errors", "host_positions", "warnings", "outputs_moved_to_host", "walks", "vlog"} <= set(doc["details"])
    out = tmp_path / "fixed.hlo"
    assert main(["offload", str(hlo), "--fix", "device", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["offload", str(out)]) == 0
    assert main(["offload", str(hlo), "--trace"]) == 1
    text = capsys.readouterr().out
    assert "Instruction trace leading to error:\n    {Instr: t, ShapeIndex: {}}" in text


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY main {\n  ROOT p = f32[2] bogus(0)\n}\n")
    assert main(["offload", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err
