"""One host tensor returned N times (issue 36): each output is still a finding with both fixes,
but the report and its JSON grow linearly in N, and each finding's edits, applied to the text
as written, give the module that fix makes for that output alone.

A pytree whose leaves share an offloaded activation lowers to ``ROOT t = tuple(h, h, ..., h)``.
Each output's path runs through ``t``, and each fix edits the ROOT line and the entry layout:
written whole per output, the JSON held N copies of the widest lines of the module (hundreds of
MB at 2,000 outputs).  Now a hop in a tuple of more than 16 elements names the element's shape,
and the edits of such a line are spans (``start_column``/``end_column``).  No timings here:
``bench/bench_all.py --only shapes`` times the rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from xladoctor.cli.main import main
from xladoctor.offload import fix_device, fix_host
from xladoctor.route.module_analysis import analyse_module, parse_hlo
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

ROOT = Path(__file__).resolve().parent.parent


def _fan_return(n: int) -> str:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from ir_shapes import fan_return
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return fan_return(n)


def _offload_json(path: Path, capsys) -> dict:
    assert main(["offload", str(path), "--json"]) == 1
    return json.loads(capsys.readouterr().out)


def apply_json_edits(text: str, edits: list[dict]) -> str:
    """What an editor does with the JSON's edits: whole lines, or a span of one line."""
    lines = text.splitlines(keepends=True)
    for e in sorted(edits, key=lambda e: (e["start_line"], e.get("start_column") or 0), reverse=True):
        if e.get("start_column") is not None:
            line = lines[e["start_line"] - 1]
            lines[e["start_line"] - 1] = line[:e["start_column"] - 1] + e["content"] + line[e["end_column"] - 1:]
        else:
            lines[e["start_line"] - 1:e["end_line"] - 1] = [e["content"]]
    return "".join(lines)


def test_the_json_grows_linearly_with_the_returned_copies(tmp_path, capsys):
    sizes = {}
    for n in (40, 80, 160):
        path = tmp_path / f"fan_{n}.hlo"
        path.write_text(_fan_return(n))
        doc = _offload_json(path, capsys)
        assert len(doc["details"]["errors"]) == n and len(doc["diagnostics"]["findings"]) == n
        sizes[n] = len(json.dumps(doc))
    assert sizes[80] / sizes[40] < 2.1 and sizes[160] / sizes[80] < 2.1, sizes


def test_a_hop_through_the_wide_root_tuple_names_the_element(tmp_path, capsys):
    path = tmp_path / "fan.hlo"
    path.write_text(_fan_return(30))
    doc = _offload_json(path, capsys)
    for finding in doc["diagnostics"]["findings"]:
        last = finding["path"][-1]
        assert last["instruction"] == "t" and last["shape"] == "f32[8,128]{1,0}"
    assert {h["shape"] for e in doc["details"]["errors"] for h in e["path"]} == {"f32[8,128]{1,0}"}


@pytest.mark.parametrize("n", [3, 30])
def test_each_findings_edits_give_the_module_its_fix_makes(n, tmp_path, capsys):
    """Narrow (whole-line edits, as before) and wide (spans): applied to the written text, each
    output's edits parse to the module ``fix_host`` / ``fix_device`` make for that output alone."""
    text = _fan_return(n)
    path = tmp_path / "fan.hlo"
    path.write_text(text)
    doc = _offload_json(path, capsys)
    module = parse_hlo(text, str(path))
    result = analyse_module(module, text, str(path)).result
    spans = 0
    for finding, err in zip(doc["diagnostics"]["findings"], result.errors):
        assert finding["fields"]["output_index"] == list(err.output_index)
        for fix in finding["fixes"]:
            spans += sum("start_column" in e for e in fix["edits"])
            make = fix_host if fix["kind"] == "host-output" else fix_device
            expected = print_module(make(module, result.replace(errors=[err])))
            assert print_module(parse_module(apply_json_edits(text, fix["edits"]))) == expected
    assert (spans > 0) == (n > 16)
