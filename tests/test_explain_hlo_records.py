"""``explain LOG --hlo MODULE``: each predicted E1200 is written by the one serialiser
(``findings/serialise.py``, from the finding ``offload`` reports), byte for byte the record the
command wrote before by walking the analysis' dataclasses (kept below as the reference).

Inputs: the bundled examples and the host-offload scenario corpus; each module's log is the
E1200 message XLA would print for it (the analysis' own wording), so the log's start matches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlo_corpus import CORPUS, ROOT, generated_hlo
from xladoctor.catalogue.scanner import scan_text
from xladoctor.findings.from_log import plain
from xladoctor.offload.analysis import analyze_host_offload
from xladoctor.route.log import attach_offload_analysis
from xladoctor.syntax.hlo_parser import parse_module


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> list[Path]:
    """The corpus, and 40 modules bench/offload_gen.py builds."""
    return CORPUS + generated_hlo(tmp_path_factory.mktemp("generated"), 40)


def _reference(path: Path) -> list[dict]:
    """The records as ``attach_offload_analysis`` wrote them before: the dataclasses walked as JSON."""
    result = analyze_host_offload(parse_module(path.read_text(), source=str(path)))
    return [plain(e) for e in result.errors]


def test_records_are_byte_identical_to_the_dataclass_walk(modules):
    compared = 0
    for path in modules:
        reference = _reference(path)
        if not reference:
            continue
        log = (f"INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
               f"Tensor which is moved to host (starting from {reference[0]['start']}) is returned from the entry "
               f"computation but the layout for this output is not set to host memory.\nunrelated line\n")
        findings = scan_text(log)
        attach_offload_analysis(str(path), findings)
        (e1200,) = [f for f in findings if f.code == "E1200"]
        offload = e1200.analysis["offload"]
        assert offload["matched_start"], path
        expected = [e for e in reference if e["start"] == reference[0]["start"]]
        assert json.dumps(offload["errors"], ensure_ascii=False) == json.dumps(expected, ensure_ascii=False), path
        compared += len(expected)
    assert compared >= 20


def test_unmatched_start_keeps_every_record():
    path = ROOT / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"
    findings = scan_text("E1200: CompileTimeHostOffloadOutputLocationMismatch:\nTensor which is moved to host "
                         "(starting from nothing.1) is returned from the entry computation but the layout for "
                         "this output is not set to host memory.\n")
    attach_offload_analysis(str(path), findings)
    offload = findings[0].analysis["offload"]
    assert not offload["matched_start"]
    assert json.dumps(offload["errors"]) == json.dumps(_reference(path))
