"""`xladoctor explain FILE|-`: every XLA error in a log, once per distinct error, with fields and fixes."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from xladoctor.catalogue import load_catalogue
from xladoctor.catalogue.fields import extract, parse_byte_size
from xladoctor.catalogue.scanner import LogScanner, scan_text
from xladoctor.cli.main import main

LOGS = Path(__file__).parent / "data" / "logs"
CAT = load_catalogue()
NOISE = ("I1031 08:00:00.000001  1234 tpu_client.cc:88] Starting TPU system\n"
         "2025-10-31 08:00:01,000 - INFO - epoch 3 step 120 loss 2.31 (expected parameter count ok)\n")


def codes(findings):
    return [f.code for f in findings]


def run_json(capsys, *argv):
    rc = main(["explain", *argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_seed_samples_full_story(capsys):
    rc, doc = run_json(capsys, str(LOGS / "seeds.log"))
    assert rc == 1 and doc["schema_version"] == 2 and doc["mode"] == "scan"
    e0102, e1200 = doc["findings"]
    assert (e0102["code"], e0102["line"], e0102["count"]) == ("E0102", 2, 1)
    assert e0102["fields"] == {
        "executable": "jit_embedding_pipeline_step_fn", "parameter": 2482, "expected_size": 5242880,
        "actual_size": 1638400, "expected_shape": "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}",
        "actual_shape": "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}", "replica": 0, "partition": 0, "format": "tpu",
        "variant": "size"}
    assert e0102["analysis"]["expected_physical_bytes"] == 5242880
    assert e0102["analysis"]["actual_physical_bytes"] == 1638400
    assert e0102["analysis"]["expected"]["padded_dimensions"] == [
        {"dim": 2, "size": 40, "padded_size": 128, "tile_entry": 128, "physical_position": 0}]
    assert e1200["code"] == "E1200" and e1200["line"] == 4 and e1200["fields"]["start"] == "tuple.64"
    fixes = " ".join(e1200["fixes"])
    assert 'memory_kind="pinned_host"' in fixes and "jax.device_put(x, device_sharding)" in fixes
    assert "entry computation layout" in fixes


def test_seed_samples_text_report(capsys):
    assert main(["explain", str(LOGS / "seeds.log"), "--width", "100"]) == 1
    out = capsys.readouterr().out
    assert "seeds.log:2: E0102 RuntimeProgramInputMismatch" in out
    # The story in sentences; the numbers behind it (printed sizes, tilings, defaults) are the JSON's,
    # and fields the message already shows are not repeated (issue 22: ~60 lines for one E0102).
    assert "dimension 2 (40) is padded to 128" in out and "different dimension order" in out
    assert "dim=2, size=40, padded_size=128" not in out and "expected_physical_bytes" not in out
    assert "printed_size" not in out and "size_matches_shape" not in out and "start_kind" not in out
    assert "start: tuple.64" not in out and "tuple.64" in out and "2 distinct XLA errors found" in out
    assert "(+3 general fixes: `xladoctor explain E0102`; every fix is in --json)" in out
    e0102 = out[:out.index("seeds.log:4:")]
    assert len(e0102.splitlines()) <= 36, e0102
    assert "['" not in out and "', '" not in out


def test_seed_samples_persian(capsys):
    assert main(["explain", str(LOGS / "seeds.log"), "--lang", "fa", "--bidi", "logical",
                 "--width", "200"]) == 1
    out = capsys.readouterr().out
    assert "\u2066jax.device_put(x, device_sharding)\u2069" in out
    plain = out.replace("\u2066", "").replace("\u2069", "").replace("\u200f", "")
    assert "عدم تطابق خروجی Host Offload" in plain and "tuple.64" in plain


def test_same_error_from_256_replicas_is_one_finding():
    msg = ("E1031 10:00:{s:02d}.{r:06d}  {pid} tpu_executable.cc:412] XlaRuntimeError: INVALID_ARGUMENT: "
           "Executable(jit_step) expected parameter 7 of size 6144 (f32[5,4,3]{{0,1,2:T(4,128)}}) but got buffer "
           "with incompatible size 10240 (f32[5,4,3]{{2,1,0}}): while running replica {r} and partition {p} of a "
           "replicated computation (other replicas may have failed as well).\n")
    text = NOISE + "".join(msg.format(s=r % 60, r=r, pid=1000 + r, p=r % 4) + NOISE for r in range(256))
    [finding] = scan_text(text)
    assert finding.code == "E0102" and finding.count == 256 and finding.line == 3
    assert len(finding.lines) == 20 and finding.lines[1] == 6
    actual = finding.analysis["actual"]
    assert actual["size_matches_shape"] is False and actual["physical_bytes"] == 240
    assert "T(4,128) on {2,1,0}" in actual["tilings_matching_printed_size"]


def test_distinct_errors_stay_distinct():
    a = "INVALID_ARGUMENT: Tensor which is moved to host (starting from tuple.64) is returned from the entry computation but the layout for this output is not set to host memory.\n"
    b = a.replace("tuple.64", "copy.7")
    found = scan_text(a + b + a)
    assert [(f.fields["start"], f.count) for f in found] == [("tuple.64", 2), ("copy.7", 1)]


def test_coded_multiline_message_in_traceback_with_offload_trace(capsys):
    rc, doc = run_json(capsys, str(LOGS / "traceback_e1200.log"))
    assert rc == 1
    [f] = doc["findings"]
    assert f["code"] == "E1200" and f["line"] == 10 and f["fields"]["start"] == "square.790"
    assert f["text"].endswith("See https://openxla.org/xla/errors/error_1200 for more details.")
    assert [h["instruction"] for h in f["analysis"]["trace"]] == ["square.790", "tuple.12", "ROOT.tuple.99"]
    assert f["analysis"]["trace"][1]["shape_index"] == "{1}"


def test_wrapped_messages_and_all_runtime_formats(capsys):
    _rc, doc = run_json(capsys, str(LOGS / "wrapped.log"))
    found = doc["findings"]
    assert [f["code"] for f in found] == ["E0102", "E2002", "E1000", "E0102", "E0102"]
    tpu, mosaic, hbm, cpu, se = found
    assert tpu["line"] == 2 and tpu["fields"]["replica"] == 0 and tpu["text"].count("\n") == 3
    assert tpu["analysis"]["expected_physical_bytes"] == 5242880
    assert mosaic["fields"]["tiling"] == "(16, 128)" and mosaic["text"].count("\n") == 3
    assert hbm["fields"]["used_bytes"] == parse_byte_size("34.82G") + parse_byte_size("174.10G")
    assert hbm["fields"]["limit_bytes"] == parse_byte_size("95.74G")
    assert hbm["analysis"]["larger_user"] == "sparsecore"
    assert cpu["fields"]["format"] == "cpu_gpu" and cpu["fields"]["expected_size"] == 4096
    assert se["fields"]["format"] == "stream_executor" and se["fields"]["parameter"] == 1


@pytest.mark.parametrize("entry", list(CAT), ids=lambda e: e.code)
def test_each_example_found_among_noise(entry):
    found = scan_text(NOISE + entry.example + "\n" + NOISE)
    assert codes(found) == [entry.code]
    assert found[0].line == 3


@pytest.mark.parametrize("entry", [e for e in CAT if not e.generic], ids=lambda e: e.code)
def test_each_example_found_when_wrapped_at_60_columns(entry):
    wrapped = "\n".join(textwrap.fill(line, 60, break_long_words=False, break_on_hyphens=False)
                        for line in entry.example.splitlines())
    found = scan_text(NOISE + wrapped + "\n" + NOISE)
    assert codes(found) == [entry.code]


def test_generic_header_around_known_message_reports_specific_code():
    text = ("jax.errors.JaxRuntimeError: INTERNAL: E0012: Internal:\n"
            "Mosaic failed to compile TPU kernel: failed to legalize operation 'arith.mulf'\n"
            "See https://openxla.org/xla/errors/error_0012 for more details.\n")
    [f] = scan_text(text)
    assert f.code == "E2xxx" and f.fields["coded_as"] == "E0012"


@pytest.mark.parametrize("text,value", [
    ("16.00G", 16 << 30), ("1.5GiB", 3 << 29), ("123456 bytes", 123456), ("0B", 0), ("8.00M", 8 << 20),
    ("512K", 512 << 10), ("3", 3),
])
def test_parse_byte_size(text, value):
    assert parse_byte_size(text) == value


def test_parse_byte_size_rejects_garbage():
    with pytest.raises(ValueError):
        parse_byte_size("12 parsecs")


def test_memory_error_fields():
    f, a = extract("E0100", CAT.get("E0100").example)
    assert f["requested_bytes"] == 8 << 20 and f["free_bytes"] == round(6.43 * (1 << 20))
    assert a["likely_cause"] == "out_of_memory"
    f, a = extract("E0101", CAT.get("E0101").example)
    assert f["reserve_bytes"] == round(29.49 * (1 << 30)) and f["free_bytes"] == round(147.64 * (1 << 20))
    assert f["program"] == "jit_embedding_pipeline_step_fn" and f["partition"] == 34
    f, _ = extract("E1000", CAT.get("E1000").example)
    assert (f["used_bytes"], f["limit_bytes"], f["excess_bytes"]) == (
        round(49.34 * (1 << 30)), 32 << 30, round(17.34 * (1 << 30)))
    f, _ = extract("E1001", "RESOURCE_EXHAUSTED: Allocation (size=134217728) would exceed memory (size=67108864) "
                            ":: #allocation25 [shape = 'u8[134217728]{0}', space=vmem, size = 0x8000000, tag = "
                            "'scoped memory for ragged_gated_matmul_kernel.2'] :: ragged_gated_matmul_kernel.2")
    assert (f["used_bytes"], f["limit_bytes"], f["excess_bytes"]) == (134217728, 67108864, 67108864)
    assert f["custom_kernel"] is True


HALT = ("Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device "
        "check-failure. Node 0 halted unexpectedly at tag:pc TensorCoreSequencer:23:0x292 "
        "(from TensorCoreSequencer:23:0xd74a): ")


@pytest.mark.parametrize("tail,scenario,sub", [
    ("observed errors are: [Hardware]", "infrastructure_failure", None),
    ("observed errors are: [Network, Power]", "infrastructure_failure", None),
    ("observed errors are: [User]", "hardware_constraint_violation", None),
    ("scheckne: An unexpected leader shows up in the launch group with a different launch id than the current "
     "group leader.", "compiler_assertion", "launch_group_mismatch"),
    ("BoundsCheck 92 [deref of %s931] for %937 = dma.hbm_to_vmem [thread:$0]", "compiler_assertion",
     "bounds_check_failure"),
    ("Semaphore (scratch argument 1) has a nonzero value upon exit from a Mosaic kernel. Make sure every DMA is "
     "awaited, and every semaphore signal is paired with a wait.", "compiler_assertion", "mosaic_synchronization"),
    ("something else entirely", "uncategorized", None),
])
def test_core_halt_scenarios(tail, scenario, sub):
    [f] = scan_text(NOISE + HALT + tail + "\n")
    assert f.code == "E0200" and f.fields["pc"] == "TensorCoreSequencer:23:0x292"
    assert (f.analysis["scenario"], f.analysis["sub_type"]) == (scenario, sub)


def test_core_halt_from_many_nodes_is_one_finding():
    text = "".join(HALT.replace("Node 0", f"Node {n}") + "observed errors are: [Hardware]\n" for n in range(8))
    [f] = scan_text(text)
    assert f.count == 8


def test_tiny_chunks_give_same_findings_and_lines():
    text = (LOGS / "wrapped.log").read_text() + NOISE * 50 + (LOGS / "traceback_e1200.log").read_text()
    whole = scan_text(text)
    import xladoctor.catalogue.scanner as scanner_mod
    old = scanner_mod.WINDOW_CHARS
    scanner_mod.WINDOW_CHARS = 700  # force many trims of the sliding window
    try:
        chunked = LogScanner().scan_binary(io.BytesIO(text.encode()), chunk_bytes=97)
    finally:
        scanner_mod.WINDOW_CHARS = old
    assert [(f.code, f.line, f.count, f.fields) for f in chunked] == [(f.code, f.line, f.count, f.fields)
                                                                       for f in whole]
    assert whole[-1].code == "E1200" and whole[-1].analysis["trace"]


def test_invalid_utf8_is_tolerated(tmp_path, capsys):
    p = tmp_path / "bin.log"
    p.write_bytes(b"\xff\xfe garbage\n" + CAT.get("E3001").example.encode() + b"\n")
    rc, doc = run_json(capsys, str(p))
    assert rc == 1 and [f["code"] for f in doc["findings"]] == ["E3001"]


def test_clean_log_exit_0(tmp_path, capsys):
    p = tmp_path / "clean.log"
    p.write_text(NOISE * 10)
    rc, doc = run_json(capsys, str(p))
    assert rc == 0 and doc["findings"] == []
    assert main(["explain", str(p)]) == 0
    assert "no XLA error found" in capsys.readouterr().out


def test_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((LOGS / "seeds.log").read_bytes())))
    rc, doc = run_json(capsys, "-")
    assert rc == 1 and doc["source"] == "<stdin>" and len(doc["findings"]) == 2


def test_directory_is_an_input_error(tmp_path, capsys):
    assert main(["explain", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


E1200_HLO = """HloModule m, entry_computation_layout={(f32[8,128]{1,0:T(8,128)})->(f32[8,128]{1,0:T(8,128)})}

ENTRY main {
  p = f32[8,128]{1,0:T(8,128)} parameter(0)
  sine.1 = f32[8,128]{1,0:T(8,128)} sine(p)
  mth = f32[8,128]{1,0:T(8,128)} custom-call(sine.1), custom_call_target="MoveToHost"
  ROOT tuple.64 = (f32[8,128]{1,0:T(8,128)}) tuple(mth)
}
"""


def test_hlo_hook_runs_the_offload_analysis(tmp_path, capsys):
    hlo = tmp_path / "m.hlo"
    hlo.write_text(E1200_HLO)
    rc, doc = run_json(capsys, str(LOGS / "seeds.log"), "--hlo", str(hlo))
    assert rc == 1
    e1200 = next(f for f in doc["findings"] if f["code"] == "E1200")
    offload = e1200["analysis"]["offload"]
    assert offload["matched_start"] is True
    [err] = offload["errors"]
    assert err["start"] == "tuple.64" and err["origin_instruction"] == "mth"
    assert [h["instruction"] for h in err["path"]] == ["mth", "tuple.64"]
    assert main(["explain", str(LOGS / "seeds.log"), "--hlo", str(hlo), "--width", "120"]) == 1
    out = capsys.readouterr().out
    assert "-> mth (custom-call)\n" in out and "-> tuple.64{0} (tuple)" in out  # as check draws a hop


def test_one_error_printed_by_a_traceback_and_by_replica_logs_is_one_finding():
    from xladoctor.catalogue.scanner import scan_text
    msg = ("INVALID_ARGUMENT: Executable(jit_f) expected parameter 3 of size 5242880 "
           "(bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got buffer with incompatible size 1638400 "
           "(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}): while running replica {r} and partition 0 of a replicated "
           "computation (other replicas may have failed as well).")
    text = ("jaxlib.xla_extension.XlaRuntimeError: " + msg.replace("{r}", "0") + "\n"
            + "".join(f"E1130 09:12:05.000002  4243 pjrt_executable.cc:301] Execution failed: {msg.replace('{r}', str(r))}\n"
                      for r in range(1, 4)))
    findings = scan_text(text)
    assert [(f.code, f.count, f.line) for f in findings] == [("E0102", 4, 1)]


def test_no_empty_analysis_heading(capsys, monkeypatch):
    # PjRt's memory-space E0102 has fields and fixes but nothing to analyse: no bare "Analysis:".
    text = ("XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_f) got a parameter buffer for parameter 3 in an "
            "unexpected memory space 'pinned_host'\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["explain", "-", "--width", "100"]) == 1
    out = capsys.readouterr().out
    assert "E0102 RuntimeProgramInputMismatch" in out and "'pinned_host'" in out  # said once, in XLA's words
    assert "Analysis:" not in out and "Fixes:" in out
