"""``explain LOG --hlo MODULE``: each predicted E1200 is written by the one serialiser
(``findings/serialise.py``, from the finding ``offload`` reports), byte for byte the record the
command wrote before by walking the analysis' dataclasses (kept below as the reference).

Inputs: the bundled examples and the host-offload scenario corpus; each module's log is the
E1200 message XLA would print for it (the analysis' own wording), so the log's start matches.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from xladoctor.catalogue.scanner import scan_text
from xladoctor.commands.explain import attach_offload_analysis
from xladoctor.findings.from_log import plain
from xladoctor.offload.analysis import analyze_host_offload
from xladoctor.syntax.hlo_parser import parse_module

ROOT = Path(__file__).resolve().parent.parent
MODULES = [*sorted((ROOT / "src" / "xladoctor" / "examples").glob("*.hlo")),
           *sorted((Path(__file__).parent / "data" / "offload").glob("*.hlo"))]


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> list[Path]:
    """The corpus, and modules bench/offload_gen.py builds (as test_findings_routes does)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from offload_gen import build_hlo, hlo_spec
    finally:
        sys.path.remove(str(ROOT / "bench"))
    out = tmp_path_factory.mktemp("generated")
    generated = []
    for seed in range(40):
        p = out / f"gen_{seed:02d}.hlo"
        p.write_text(build_hlo(hlo_spec(random.Random(seed))))
        generated.append(p)
    return MODULES + generated


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
        log = "".join(f"INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
                      f"Tensor which is moved to host (starting from {e['start']}) is returned from the entry "
                      f"computation but the layout for this output is not set to host memory.\n"
                      for e in reference[:1]) + "unrelated line\n"
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
