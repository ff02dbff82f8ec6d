"""An offload document's ``details`` typed once for the pages (findings/details_wire.py, issue 37):
the same facts in-process and across ``check -j``'s process boundary, and no page reads them as a dict."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from xladoctor.cli.main import main
from xladoctor.findings import wire
from xladoctor.findings.details_wire import Failure, OffloadFacts, offload_facts

DATA = Path(__file__).parent / "data" / "offload"
REPORT = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "report"


def _offload_entry(path: Path) -> dict:
    from xladoctor.report.check_json import file_entry
    from xladoctor.route.dispatch import check_path
    from xladoctor.route.options import Options

    return file_entry(check_path(str(path), True, Options()))["offload"]


@pytest.mark.parametrize("name", ["02_dus_first_operand_not_broadcast.hlo", "57_tanh_on_host_memory.hlo"])
def test_the_same_facts_in_process_and_read_back(name: str) -> None:
    doc = _offload_entry(DATA / name)
    here = offload_facts(doc)
    across = offload_facts(wire.from_wire(wire.to_wire(doc)))  # what a check -j worker's entry gives
    assert here == across
    assert here.errors or here.failures or here.host_compute  # the module has something to draw
    assert all(isinstance(e, wire.Record) for e in across.errors)  # records typed at the boundary
    assert all(isinstance(f, Failure) for f in across.failures)


def test_failures_and_host_positions_are_typed() -> None:
    facts = offload_facts(_offload_entry(DATA / "02_dus_first_operand_not_broadcast.hlo"))
    raw = json.loads(wire.to_wire(_offload_entry(DATA / "02_dus_first_operand_not_broadcast.hlo")))["details"]
    assert [f.first for f in facts.failures] == [bool(f.get("first")) for f in raw["failures"]]
    assert facts.host_keys == {(p["instruction"], tuple(p.get("shape_index") or ())) for p in raw["host_positions"]}
    assert facts.failures and facts.host_positions


def test_a_document_without_details_has_no_facts() -> None:
    assert offload_facts({}) == OffloadFacts()


def test_the_pages_read_offload_details_only_through_the_typed_reader() -> None:
    for module in sorted(REPORT.glob("html*.py")):
        tree = ast.parse(module.read_text())
        named = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(tree)
                 if isinstance(n, (ast.Name, ast.Attribute))}
        read = [n.args[0] for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "get" and n.args]
        read += [n.slice for n in ast.walk(tree) if isinstance(n, ast.Subscript)]
        keys = {k.value for k in read if isinstance(k, ast.Constant)}  # the keys looked up, as get() or [...]
        assert "details_of" not in named, module.name
        assert not keys & {"failures", "host_positions", "outputs_moved_to_host", "host_compute"}, module.name


def test_check_j2_page_is_the_serial_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pages = []
    for jobs in ("1", "2"):
        out = tmp_path / f"page{jobs}.html"
        main(["check", str(DATA), "-j", jobs, "--html", str(out)])
        pages.append(out.read_text())
    capsys.readouterr()
    assert pages[0] == pages[1]
