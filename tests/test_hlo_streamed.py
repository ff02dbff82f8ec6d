"""``hlo``'s instruction entries are made only as ``hlo --json`` writes them (issue 36 item 3):
the streamed document is json's text of the summary held whole, on every bundled and test
module, and the text report makes none of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xladoctor.base.escape import json_text
from xladoctor.base.json_plain import Streamed, plain_stream
from xladoctor.cli.main import main
from xladoctor.findings.schema_files import schema_id
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.triage import hlo_summary
from xladoctor.triage.hlo_summary import summarize

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted([*(ROOT / "tests" / "data" / "offload").glob("*.hlo"),
                  *(ROOT / "src" / "xladoctor" / "examples").glob("*.hlo")])

# a bidi override and a non-ASCII name: the document's pieces go through json_text one by one
ODD = """HloModule odd, entry_computation_layout={(f32[8]{0})->f32[8]{0:S(5)}}
ENTRY e {
  p0 = f32[8]{0} parameter(0), metadata={op_name="w\u202e\u00e9" source_file="/x/\u4e2d.py" source_line=3}
  ROOT m = f32[8]{0} custom-call(p0), custom_call_target="MoveToHost"
}
"""


def _streamed(doc: object) -> str:
    pieces: list[str] = []
    plain_stream(doc, pieces.append)
    return "".join(pieces)


def test_the_corpus_modules_are_read_from_disk():
    assert len(MODULES) > 100


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_streamed_summary_is_the_held_summary_text(path):
    module = parse_module(path.read_text(), str(path))
    streamed = summarize(module, streamed=True)
    assert all(type(c["instructions"]) is Streamed for c in streamed["computations"])
    assert _streamed(streamed) == json.dumps(summarize(module), indent=2, ensure_ascii=False)


def test_hlo_json_writes_the_held_documents_bytes(tmp_path, capsys):
    path = tmp_path / "odd.hlo"
    path.write_text(ODD, encoding="utf-8")
    assert main(["hlo", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    held = {"schema_version": 1, "$schema": schema_id("hlo"), "command": "hlo",
            **summarize(parse_module(ODD, str(path))), "stablehlo": None}
    assert out == json_text(json.dumps(held, indent=2, ensure_ascii=False)) + "\n"
    assert "\\u202e" in out and "\u00e9" in out  # the override escaped, the rest as it is


def test_hlo_text_makes_no_instruction_entry(tmp_path, capsys, monkeypatch):
    def refused(comp):
        raise AssertionError("an instruction entry made for the text report")

    monkeypatch.setattr(hlo_summary, "_entries", refused)
    path = tmp_path / "odd.hlo"
    path.write_text(ODD, encoding="utf-8")
    assert main(["hlo", str(path)]) == 0
    assert "MoveToHost 1" in capsys.readouterr().out
