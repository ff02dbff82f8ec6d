"""The `shape` and `hlo` commands end to end: output, JSON keys, exit codes, bad input."""

import json
import os
import subprocess
import sys

import pytest

from xladoctor.cli.main import main

SEED = "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"
HLO = """HloModule m, entry_computation_layout={(f32[8,128]{1,0:T(8,128)}, f32[100]{0:T(256)})->f32[8,128]{1,0:T(8,128)S(5)}}
ENTRY e {
  p0 = f32[8,128]{1,0} parameter(0), metadata={op_name="params['w']"}
  p1 = f32[100]{0} parameter(1)
  ROOT m = f32[8,128]{1,0} custom-call(p0), custom_call_target="MoveToHost"
}
"""


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_shape_text(capsys):
    code, out, err = run(["shape", SEED], capsys)
    assert code == 0 and err == ""
    assert "5,242,880 B" in out and "1,638,400 B" in out and "3.20x" in out
    assert "0     2           40       128    128" in out


def test_shape_json(capsys):
    _code, out, _ = run(["shape", SEED, "--json"], capsys)
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    assert (doc["shape"], doc["logical_bytes"], doc["physical_bytes"]) == (SEED, 1_638_400, 5_242_880)
    assert doc["dims"][0] == {"dim": 2, "size": 40, "padded_size": 128, "tile_entry": 128, "physical_position": 0,
                              "wasted_bytes": 3_604_480}


def test_shape_stdin_many(capsys, monkeypatch):
    _code, out, _ = run(["shape", "-", "--json"], capsys, stdin="# comment\nf32[3]{0:T(128)}\n\n(s32[], f32[2])\n",
                       monkeypatch=monkeypatch)
    doc = json.loads(out)
    assert [s["physical_bytes"] for s in doc["shapes"]] == [512, 12]
    assert [leaf["index"] for leaf in doc["shapes"][1]["leaves"]] == [[0], [1]]


def test_shape_stdin_error_points_at_the_line(capsys, monkeypatch):
    code, out, err = run(["shape", "-"], capsys, stdin="f32[2]\n  f32[2,3]{1}\n", monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err == "<stdin>:2:11: Dimensions size is 2, but minor to major size is 1.\n"


def test_bad_shape_is_one_line_exit_2(capsys):
    code, out, err = run(["shape", "f32[2,3]{1,0"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("<shape>:1:13: expected '}' to end the layout")


def test_a_layout_jaxlib_keeps_is_read_with_one_warning_line(capsys):
    """Duplicate minor-to-major values: jaxlib's parser keeps them, so the shape is read (with
    XLA's default layout, as XLA then does) and the rule is said on one stderr line (issue 35)."""
    code, out, err = run(["shape", "f32[2,3]{1,1}"], capsys)
    assert code == 0 and out.startswith("shape           f32[2,3]{1,0}") and err.count("\n") == 1
    assert err.startswith("<shape>:1:9: warning: E0002") and "duplicate values" in err


def test_hlo_summary_and_json(tmp_path, capsys):
    path = tmp_path / "m.hlo"
    path.write_text(HLO)
    code, out, _ = run(["hlo", str(path)], capsys)
    assert code == 0
    assert "param 0" in out and "\"params['w']\"" in out and "[host]" in out and "MoveToHost 1" in out
    code, out, _ = run(["hlo", str(path), "--json"], capsys)
    doc = json.loads(out)
    assert doc["name"] == "m"
    params = doc["entry_computation_layout"]["parameters"]
    assert [p["physical_bytes"] for p in params] == [4096, 1024]
    assert params[0]["op_name"] == "params['w']"
    assert doc["entry_computation_layout"]["result"]["memory_spaces"] == [5]
    comp = doc["computations"][0]
    assert comp["is_entry"] and [i["operands"] for i in comp["instructions"]] == [[], [], ["p0"]]
    assert doc["custom_calls"] == {"MoveToHost": 1}


@pytest.mark.parametrize("content,expected", [
    ("BufferAssignment:\nallocation 0: size 4\n", ":1:1: not an HLO module: this looks like XLA's buffer-assignment dump"),
    ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n", ":4:1: unexpected end of input inside computation 'e'"),
])
def test_hlo_bad_files(tmp_path, capsys, content, expected):
    path = tmp_path / "x.txt"
    path.write_text(content)
    code, out, err = run(["hlo", str(path)], capsys)
    assert code == 2 and out == ""
    assert err == f"{path}{expected}" + err[len(str(path)) + len(expected):] and err.count("\n") == 1


def test_unreadable_inputs(tmp_path, capsys):
    code, _, err = run(["hlo", str(tmp_path / "missing.hlo")], capsys)
    assert code == 2 and "missing.hlo:1:1: cannot read file" in err
    code, _, err = run(["hlo", str(tmp_path)], capsys)
    assert code == 2 and "is a directory" in err
    binary = tmp_path / "b.hlo"
    binary.write_bytes(b"HloModule m\n\xff\xfe")
    code, _, err = run(["hlo", str(binary)], capsys)
    assert code == 2 and err.startswith(f"{binary}:2:1: not UTF-8 text")


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["shape"])
    assert info.value.code == 2
    assert main([]) == 2


def test_console_script_and_module_entry_point(tmp_path):
    """The installed `xladoctor` and `python -m xladoctor` both run, read stdin and never print a traceback."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "xladoctor", "hlo", "-"], input="HloModule m\nENTRY e {\n  p = f32[2",
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("<stdin>:3:")


def test_an_internal_error_is_one_line_not_a_traceback(capsys, monkeypatch):
    import xladoctor.cli.commands.shape as shape_cmd

    def boom(_):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(shape_cmd, "_analyse", boom)
    assert main(["shape", "f32[2]"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("xladoctor: internal error while running 'shape': RuntimeError: simulated bug")
    monkeypatch.setenv("XLADOCTOR_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["shape", "f32[2]"])


def test_hlo_marks_only_the_host_leaves_of_a_tuple(capsys, tmp_path):
    # Issue 11: a result tuple with one host leaf was marked [host] as a whole.
    path = tmp_path / "h.hlo"
    path.write_text("HloModule m, entry_computation_layout={(f32[8]{0:S(5)})->(f32[8]{0}, f32[8]{0:S(5)})}\n"
                    "ENTRY e {\n  p = f32[8]{0} parameter(0)\n  n = f32[8]{0} negate(p)\n"
                    "  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(n, p)\n}\n")
    code, out, _ = run(["hlo", str(path)], capsys)
    assert code == 0
    assert "logical 32 B, physical 32 B  [host]\n" in out
    assert "physical 64 B  [host: {1}]" in out
    code, out, _ = run(["hlo", str(path), "--json"], capsys)
    ecl = json.loads(out)["entry_computation_layout"]
    assert ecl["parameters"][0]["host_leaves"] == [[]] and ecl["result"]["host_leaves"] == [[1]]


def test_check_counts_agree_with_their_nouns(capsys):
    _code, out, _ = run(["check", "--examples"], capsys)
    assert out.rstrip().endswith("3 files checked, 3 findings")
    assert "(s)" not in out


def test_check_stdin_suggestions_can_be_run(capsys, monkeypatch):
    from pathlib import Path

    from xladoctor.route.folder import example_paths
    log = next(p for p in example_paths() if p.endswith(".log"))
    code, out, _ = run(["check", "-"], capsys, stdin=Path(log).read_text(), monkeypatch=monkeypatch)
    assert code == 1
    assert "<stdin>" not in "".join(line for line in out.splitlines() if "xladoctor " in line)
    assert "details: xladoctor explain -" in out


UNBOUNDED = ("HloModule m, entry_computation_layout={(f32[?,4]{1,0})->f32[?,4]{1,0}}\n"
             "ENTRY e {\n  p = f32[?,4]{1,0} parameter(0)\n  ROOT n = f32[?,4]{1,0} negate(p)\n}\n")


@pytest.mark.parametrize("command", ["hlo", "check"])
def test_an_unbounded_dimension_has_no_byte_size_and_is_read(command, capsys, tmp_path):
    """jaxlib's parser reads f32[?,4] (issue 35: accept what it accepts); the size it cannot have is
    said where a size would be, not a refusal of the file."""
    path = tmp_path / "unbounded.hlo"
    path.write_text(UNBOUNDED)
    # check triages a module without host-offload tokens unparsed; --full parses (and sizes) it.
    code, out, err = run([command, str(path)] + (["--full"] if command == "check" else []), capsys)
    assert code == 0, (out, err)
    assert "xladoctor:" not in err
    if command == "hlo":
        assert "no byte size: a dimension is unbounded ('?')" in out


def test_located_errors_on_the_command_line_and_stdin(capsys, monkeypatch):
    code, _, err = run(["shape", "f32[4,?]"], capsys)
    assert (code, err.strip()) == (2, "<shape>:1:7: dimension 1 of f32[4,?]{1,0} is unbounded ('?'), so it has "
                                      "no byte size")
    code, _, err = run(["shape", "-"], capsys, stdin="f32[2]\n  f32[?,3]\n", monkeypatch=monkeypatch)
    assert code == 2 and err.startswith("<stdin>:2:7: dimension 0")
