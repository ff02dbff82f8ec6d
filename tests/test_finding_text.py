"""One text renderer per finding kind (report/finding_text.py), and ``check`` drawing findings through it.

The offload corpus (tests/data/offload: E1200s, pass failures, CHECK crashes) and the example
log go through ``check --json``; the text drawn from each file's ``diagnostics`` must say what
the same document's own ``offload`` keys say (output index and layout, XLA's sentence, every
hop with its ShapeIndex and Python line, both fixes, every failure).
"""

from __future__ import annotations

import json
from pathlib import Path

from test_offload_scenarios import FILES
from xladoctor.base.labels import glossary
from xladoctor.catalogue.logscan import scan_file
from xladoctor.cli.main import main
from xladoctor.findings import Finding, FindingKind, Report, from_json, to_json
from xladoctor.findings.from_log import log_findings
from xladoctor.ir.shape import format_shape_index
from xladoctor.report.check_text import render_text
from xladoctor.report.finding_text import RENDERERS, render_finding

EXAMPLES = Path(__file__).parent.parent / "src" / "xladoctor" / "examples"


def _check_doc(paths: list[str], capsys) -> dict:
    main(["check", "--json", *paths])
    return json.loads(capsys.readouterr().out)


def _legacy_lines(off: dict) -> list[str]:
    """What the offload document's own keys say, in the words check prints."""
    lines = []
    for e in off["details"]["errors"]:
        # the one name of an output (glossary.output): ``output {}`` is "the whole result" unnamed
        output = glossary.output(format_shape_index(tuple(e["output_index"])), "en",
                                 ((e.get("fix") or {}).get("host") or {}).get("result_name"))
        lines.append(f"   E1200 predicted for {output} ({e['output_layout']})")
        for hop in e["path"]:
            idx = format_shape_index(tuple(hop["shape_index"])) if hop["shape_index"] else ""
            where = f"  at {hop['location']}" if hop.get("location") else ""
            lines.append(f"      -> {hop['instruction']}{idx} ({hop['opcode']}){where}")
        if e.get("fix"):
            lines.append(f"      fix (a) keep it on host: {output} -> {e['fix']['host']['entry_result_layout']}")
    lines.extend(f"   XLA would fail: {fail['message']}" for fail in off["details"]["failures"])
    return lines


def test_every_kind_has_one_renderer():
    assert set(RENDERERS) == set(FindingKind)


def test_check_text_of_the_offload_corpus_says_what_its_document_says(capsys):
    doc = _check_doc([str(p) for p in FILES], capsys)
    text = render_text(doc, "en")
    failures = errors = 0
    for f in doc["files"]:
        off = f.get("offload")
        if off is None:
            continue
        errors += len(off["details"]["errors"])
        failures += len(off["details"]["failures"])
        section = text.split(f"== {f['path']}\n", 1)
        if not off["details"]["errors"] and not off["details"]["failures"]:
            continue
        body = section[1].split("\n\n", 1)[0]
        missing = [line for line in _legacy_lines(off) if not any(b.startswith(line) for b in body.splitlines())]
        assert not missing, (f["path"], missing)
    assert errors >= 10 and failures >= 3


def test_a_finding_draws_the_same_after_a_json_round_trip(capsys):
    scan = scan_file(str(EXAMPLES / "tpu_job.log"), parallel=False)
    doc = _check_doc([str(p) for p in FILES[:20]] + [str(EXAMPLES / "e1200_offloaded_activation.hlo")], capsys)
    back = from_json(doc["diagnostics"])
    assert isinstance(back, Report)
    findings: list[Finding] = [*log_findings(scan.findings, scan.source), *back.findings]
    kinds = {f.kind for f in findings}
    assert {FindingKind.LOGGED_ERROR, FindingKind.OFFLOAD_OUTPUT_MISMATCH, FindingKind.OFFLOAD_PASS_FAILURE} <= kinds
    for f in findings:
        again = from_json(to_json(f))
        assert isinstance(again, Finding)
        assert render_finding(again) == render_finding(f)
        assert f.code in render_finding(f)[0] or "E1200" in render_finding(f)[0] or "XLA would fail" in render_finding(f)[0]


def test_the_summary_fix_leaves_the_jax_snippet_to_offload(capsys):
    doc = _check_doc([str(EXAMPLES / "e1200_offloaded_activation.hlo")], capsys)
    (f,) = from_json(doc["diagnostics"]).findings  # type: ignore[union-attr]
    lines = render_finding(f)
    assert lines[2:4] == ["   -> custom-call.5 (custom-call)  at /home/user/model.py:23", "   -> tuple.7{0} (tuple)"]
    assert lines[-2:] == ["   fix (a) keep it on host: output {0} -> f32[16,256]{1,0:T(8,128)S(5)}",
                          "   fix (b) bring it back to device: move-to-device after custom-call.5 (/home/user/model.py:23)"]
    assert all("JAX" in x.text for x in f.fixes) and not any("JAX" in line for line in lines)


def test_offload_text_of_the_corpus_draws_every_finding_of_its_document():
    """``offload``'s full text (report/offload_text.py) against the same analysis' JSON keys."""
    from test_offload_scenarios import load, rule_of
    from xladoctor.offload import analyze_host_offload
    from xladoctor.offload.fixes import suggest_fixes
    from xladoctor.offload.report import details_json
    from xladoctor.report.offload_text import render_text as offload_text

    seen_failures = seen_hops = 0
    for path in FILES:
        module, _, options = load(path)
        result = analyze_host_offload(module, rule_of(options))
        fixes = suggest_fixes(module, result)
        lines = offload_text(path.name, module, result, fixes, False).splitlines()
        doc = details_json(result, fixes)
        for e in doc["errors"]:
            output = glossary.output(format_shape_index(tuple(e["output_index"])), "en",
                                     ((e.get("fix") or {}).get("host") or {}).get("result_name"))
            heading = f"{output} ({e['output_layout']})  ("
            assert any(line.startswith(heading) for line in lines), (path.name, heading)
            for hop in e["path"]:
                idx = format_shape_index(tuple(hop["shape_index"])) if hop["shape_index"] else ""
                where = f"  {hop['location']}" if hop["location"] else ""
                comp = f" [{hop['computation']}]" if hop["computation"] else ""
                assert f"    {hop['instruction']}{idx} = {hop['shape']} {hop['opcode']}{comp}{where}" in lines, path.name
                seen_hops += 1
        for fail in doc["failures"]:
            at = f" (at {fail['instruction']})" if fail["instruction"] else ""
            assert any(line.endswith(f": {fail['message']}{at}") for line in lines), (path.name, fail)
            seen_failures += 1
    assert seen_failures >= 3 and seen_hops >= 20


def test_input_mismatch_and_compiler_verdict_draw_code_place_message_and_fixes(tmp_path, capsys):
    module = ("HloModule m, entry_computation_layout={(f32[8,128]{%s}, bf16[16,1280,40]{%s})->f32[8,128]{1,0}}\n\n"
              "ENTRY e {\n  p0 = f32[8,128]{%s} parameter(0)\n  p1 = bf16[16,1280,40]{%s} parameter(1)\n"
              "  ROOT n = f32[8,128]{1,0} negate(p0)\n}\n")
    (tmp_path / "a.hlo").write_text(module % (("1,0:T(8,128)", "2,1,0:T(8,128)(2,1)") * 2))
    (tmp_path / "b.hlo").write_text(module % (("0,1:T(8,128)", "1,2,0:T(8,128)(2,1)") * 2))
    main(["inputs", str(tmp_path / "a.hlo"), "--supplied", str(tmp_path / "b.hlo"), "--json"])
    report = from_json(json.loads(capsys.readouterr().out)["diagnostics"])
    assert isinstance(report, Report) and report.findings
    for f in report.findings:
        assert f.kind is FindingKind.INPUT_MISMATCH
        lines = render_finding(f)
        assert lines[0].startswith(f"{f.code} {f.name}: ") and lines[1] == "   " + f.message.splitlines()[0]
        assert [line.removeprefix("   fix: ") for line in lines[2:]] == [x.text.split("; JAX: ")[0] for x in f.fixes]
    places = {f.location.instruction for f in report.findings}
    assert places <= {"p0", "p1", None} and places & {"p0", "p1"}

    from test_findings_model import _recorded_confirm
    from xladoctor.findings.from_offload import offload_findings

    d3, result, confirm = _recorded_confirm("D3_move_to_host_only_used_by_non_aliasing_custom_call")
    (verdict,) = offload_findings(result, (), "d3.hlo", d3, confirm=confirm)
    assert render_finding(verdict)[:2] == [f"E0002 {verdict.name}: {verdict.title}",
                                           "   Custom emitter for Foo not found"]
