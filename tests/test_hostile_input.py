"""Issue 13's repros, one test each: hostile and broken input is refused, located, bounded.

Each test runs the command the issue shows (in-process ``main`` with captured
output, or a child process where the memory of the whole run matters) and checks
the contract: exit 2 with one ``file:line:col: message`` line, nothing written
over an input, no control or bidi character from the input on the terminal, no
byte lost by ``relayout`` unless ``--truncate`` asks for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from importlib.resources import files

import pytest

from xladoctor.base.errors import HloParseError, InputError
from xladoctor.cli.main import main
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.shape_parser import parse_shape

# The shipped E1200 example with the offloaded tensor's source_file made replaceable.
E1200 = (files("xladoctor") / "examples" / "e1200_offloaded_activation.hlo").read_text(encoding="utf-8").replace(
    'device_put" source_file="/home/user/model.py"', 'device_put" source_file=SOURCE')
assert "SOURCE" in E1200


def module(body: str, header: str = "HloModule m") -> str:
    return f"{header}\n\nENTRY e {{\n{body}\n}}\n"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_located(err: str, source: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{source}:"), err
    line, col, message = lines[0][len(source) + 1:].split(":", 2)
    assert line.isdigit() and col.isdigit() and message.startswith(" "), err


def write(path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------ parser: numbers, names, graph


@pytest.mark.parametrize("number,message", [
    ("1000000000", "has no parameter(0)"),
    ("9223372036854775807", "has no parameter(0)"),
    ("-1", "parameter number must be >= 0"),
    ("9223372036854775808", "parameter number must be >= 0"),
    ("9" * 5000, "does not fit in 64 bits"),
])
def test_parameter_numbers_are_checked_before_anything_is_allocated(number, message, tmp_path, capsys):
    path = write(tmp_path / "p.hlo", module(f"  ROOT p = f32[2]{{0}} parameter({number})"))
    tracemalloc.start()
    try:
        code, out, err = run(["hlo", path], capsys)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and out == ""
    assert_located(err, path)
    assert message in err
    assert len(err) < 400  # a 5,000-digit number is not quoted whole
    assert peak < 20 << 20


@pytest.mark.parametrize("body,message", [
    ("  a = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} parameter(0)", "Duplicate parameter number 0"),
    ("  ROOT a = f32[2]{0} negate(a)", "instruction does not exist: a"),
    ("  a = f32[2]{0} negate(b)\n  ROOT b = f32[2]{0} negate(a)", "instruction does not exist: b"),
    ("  p = f32[2]{0} parameter(0)\n  a = f32[2]{0} negate(p), control-predecessors={b}\n  ROOT b = f32[2]{0} negate(a)",
     "instruction does not exist: b"),
    ("  a = f32[2]{0} parameter(0)\n  ROOT a = f32[2]{0} negate(a)", "instruction already exists: a"),
    ("  p = f32[2]{0} parameter(0)\n  ROOT g = f32[2]{0} add(p)", "expects 2 operands, but has 1 operands"),
])
def test_graph_errors_xla_refuses(body, message, tmp_path, capsys):
    path = write(tmp_path / "g.hlo", module(body))
    code, _out, err = run(["offload", path], capsys)
    assert code == 2 and message in err
    assert_located(err, path)


def test_call_cycle_and_while_body_that_is_the_entry_are_refused(tmp_path, capsys):
    cycle = ("HloModule m\nc {\n  p = f32[2]{0} parameter(0)\n  ROOT r = f32[2]{0} call(p), to_apply=c\n}\n"
             "ENTRY e {\n  p0 = f32[2]{0} parameter(0)\n  ROOT r2 = f32[2]{0} call(p0), to_apply=c\n}\n")
    body_is_entry = ("HloModule m\ncond {\n  p = f32[2]{0} parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
                     "ENTRY e {\n  p0 = f32[2]{0} parameter(0)\n  ROOT w = f32[2]{0} while(p0), condition=cond, "
                     "body=e\n}\n")
    for name, text, missing in (("cycle.hlo", cycle, "c"), ("while.hlo", body_is_entry, "e")):
        path = write(tmp_path / name, text)
        # check triages modules without host-offload tokens unparsed (issue 12); --full and hlo parse.
        for argv in (["check", "--full", path], ["hlo", path]):
            code, _, err = run(argv, capsys)
            assert code == 2 and f"computation does not exist: {missing}" in err


def test_tuple_nesting_is_a_located_error_not_a_recursion_error(tmp_path, capsys):
    for depth in (500, 5000, 100_000):
        shape = "(" * depth + "f32[]" + ")" * depth
        path = write(tmp_path / f"n{depth}.hlo", module(f"  ROOT p = {shape} parameter(0)"))
        code, _, err = run(["hlo", path], capsys)
        assert code == 2 and "nested more than 200 levels" in err
        assert_located(err, path)


@pytest.mark.parametrize("shape,message", [
    ("f32[9223372036854775807]", "size may overflow int64"),
    ("f32[4294967296,4294967296]", "size may overflow int64"),
    ("f32[9223372036854775808]", "does not fit in int64"),
    ("f32[2]{0:E(9223372036854775808)}", "must not be negative"),
    ("f32[2]{0:T(18446744073709551615)}", "tile dimensions must be positive"),
])
def test_int64_overflow_of_sizes_is_refused(shape, message):
    with pytest.raises(InputError, match=message):
        parse_shape(shape)


def test_sizes_past_int64_are_refused_by_shape(capsys):
    code, _out, err = run(["shape", "f32[2]{0:T(4611686018427387904)}"], capsys)
    assert code == 2 and "overflows int64" in err


# ------------------------------------------------------------------ strings and tokens


TEN_MB = "x" * (10 << 20)
ESCAPED = "ab\\n" * (1 << 20)


@pytest.mark.parametrize("attributes", [
    f'backend_config="{TEN_MB}", metadata={{op_name="{TEN_MB}"}}',  # was ~120 bytes per byte (string regex)
    f'backend_config="{ESCAPED}"',  # a string full of escapes too
], ids=["ten-megabyte-strings", "escaped-string"])
def test_strings_are_scanned_in_linear_memory(attributes):
    text = module(f"  ROOT p = f32[2]{{0}} parameter(0), {attributes}")
    tracemalloc.start()
    try:
        parse_module(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(text)


def test_a_fifty_megabyte_token_is_not_quoted_whole(tmp_path):
    path = write(tmp_path / "t.hlo", module("  ROOT " + "n" * (50 << 20) + " f32[2]{0} parameter(0)"))
    proc = subprocess.run([sys.executable, "-m", "xladoctor", "hlo", path], capture_output=True, text=True)
    assert proc.returncode == 2
    assert len(proc.stderr) < 500 and proc.stderr.count("\n") == 1, proc.stderr[:500]
    assert "characters" in proc.stderr


@pytest.mark.parametrize("escape,error", [("\\q", "unknown escape"), ("\\x4142", "exceeds 0xff"),
                                          ("\\777", "exceeds 0xff"), ("\\u12", "4 hex digits")])
def test_string_escapes_xla_refuses(escape, error):
    with pytest.raises(HloParseError, match=error):
        parse_module(module(f'  ROOT p = f32[2]{{0}} parameter(0), metadata={{source_file="{escape}" source_line=1}}'))


def test_octal_escapes_are_decoded_as_xla_does(tmp_path, capsys):
    path = write(tmp_path / "u.hlo", E1200.replace("SOURCE", '"/home/\\347\\224\\250/model.py"'))
    code, out, _ = run(["offload", path], capsys)
    assert code == 1
    assert "/home/\u7528/model.py:23" in out and "\\347" not in out


# ------------------------------------------------------------------ terminal injection


def test_control_characters_in_metadata_cannot_drive_the_terminal(tmp_path, capsys):
    hostile = '"/x\\033[2J\\nE1200 predicted for output {9}\\342\\200\\256gnp.py"'
    path = write(tmp_path / "i.hlo", E1200.replace("SOURCE", hostile))
    for argv in (["offload", path], ["check", path], ["offload", "--trace", path]):
        code, out, err = run(argv, capsys)
        assert code == 1
        assert "\x1b" not in out + err and "\u202e" not in out + err
        forged = [ln for ln in out.splitlines() if ln.lstrip().startswith("E1200 predicted for output {9}")]
        assert not forged, out
        assert "\\x1b[2J" in out and "\\u202e" in out


def test_control_characters_in_logs_and_file_names_are_escaped(tmp_path, capsys):
    name = tmp_path / "job\x1b[31m\u202e.log"
    name.write_text("INVALID_ARGUMENT: expected parameter 2482 of size 5242880 (bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) "
                    "but got buffer with incompatible size 1638400 (bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}) "
                    "\x1b]0;pwn\x07\u202e\n", encoding="utf-8")
    code, out, err = run(["check", str(name)], capsys)
    assert code == 1
    assert "\x1b" not in out + err and "\u202e" not in out + err and "\x07" not in out
    code, out, err = run(["explain", str(name)], capsys)
    assert "\x1b" not in out + err and "\u202e" not in out + err


def test_bad_file_name_in_an_error_stays_on_one_line(tmp_path, capsys):
    path = tmp_path / "a\nE1200 predicted.hlo"
    path.write_text("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(-1)\n}\n", encoding="utf-8")
    code, _out, err = run(["hlo", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1 and "a\\nE1200" in err


# ------------------------------------------------------------------ writes


def test_outputs_never_overwrite_inputs(tmp_path, capsys):
    hlo = tmp_path / "a.hlo"
    original = E1200.replace("SOURCE", '"m.py"')
    hlo.write_text(original, encoding="utf-8")
    os.link(hlo, tmp_path / "hard.hlo")
    for argv in (["check", str(hlo), "--html", str(hlo)],
                 ["offload", str(hlo), "--fix", "host", "-o", str(hlo)],
                 ["offload", str(hlo), "--fix", "device", "-o", str(tmp_path / "hard.hlo")],
                 ["check", str(tmp_path), "--html", str(tmp_path / "." / "a.hlo")],
                 ["inputs", str(hlo), "--supplied-shapes", str(tmp_path / "s.txt"), "--html", str(hlo)]):
        code, _out, err = run(argv, capsys)
        assert code == 2 and "refusing to write over the input" in err, (argv, err)
        assert hlo.read_text(encoding="utf-8") == original


def test_relayout_never_overwrites_its_input(tmp_path, capsys):
    pytest.importorskip("numpy")
    raw = tmp_path / "r.bin"
    raw.write_bytes(b"abc")
    code, _, err = run(["relayout", "--from", "u8[3]", "--to", "u8[3]", str(raw), str(raw)], capsys)
    assert code == 2 and "refusing to write over the input" in err
    assert raw.read_bytes() == b"abc"


@pytest.mark.parametrize("target", ["nodir/x.hlo", "/dev/full"])
def test_write_errors_are_located(target, tmp_path, capsys):
    if target == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    hlo = write(tmp_path / "a.hlo", E1200.replace("SOURCE", '"m.py"'))
    out_path = target if target.startswith("/") else str(tmp_path / target)
    code, _out, err = run(["offload", hlo, "--fix", "host", "-o", out_path], capsys)
    assert code == 2 and "internal error" not in err
    assert_located(err, out_path)
    assert "cannot write" in err


def test_writes_are_atomic_and_say_what_they_wrote(tmp_path, capsys, monkeypatch):
    hlo = write(tmp_path / "a.hlo", E1200.replace("SOURCE", '"m.py"'))
    out = tmp_path / "fixed.hlo"
    out.write_text("old content\n", encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", broken_replace)
    code, _, err = run(["offload", hlo, "--fix", "host", "-o", str(out)], capsys)
    assert code == 2 and "No space left on device" in err
    assert out.read_text(encoding="utf-8") == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.hlo", "fixed.hlo"]  # no temp file left
    monkeypatch.undo()
    code, _, err = run(["offload", hlo, "--fix", "host", "-o", str(out)], capsys)
    assert code == 0 and f"to {out}" in err and "wrote" in err
    assert "S(5)" in out.read_text(encoding="utf-8")


# ------------------------------------------------------------------ relayout refuses loss


def test_relayout_refuses_to_drop_bits(tmp_path, capsys):
    pytest.importorskip("numpy")
    raw = tmp_path / "r.bin"
    raw.write_bytes(bytes([3, 0x1F, 7]))
    out = tmp_path / "o.bin"
    code, _, err = run(["relayout", "--from", "u8[3]", "--to", "u8[3]{0:E(4)}", str(raw), str(out)], capsys)
    assert code == 2 and "element [1] is 0x1f (31)" in err and "--truncate" in err
    assert not out.exists()
    code, _, err = run(["relayout", "--truncate", "--from", "u8[3]", "--to", "u8[3]{0:E(4)}", str(raw), str(out)],
                       capsys)
    assert code == 0 and out.read_bytes() == bytes([0xF3, 0x07])


def test_relayout_that_fits_needs_no_flag(tmp_path, capsys):
    pytest.importorskip("numpy")
    raw = tmp_path / "r.bin"
    raw.write_bytes(bytes([3, 15, 7]))
    out = tmp_path / "o.bin"
    code, _, _ = run(["relayout", "--from", "u8[3]", "--to", "u8[3]{0:E(4)}", str(raw), str(out)], capsys)
    assert code == 0 and out.read_bytes() == bytes([0xF3, 0x07])


def test_relayout_checks_the_output_size_before_allocating(tmp_path):
    pytest.importorskip("numpy")
    raw = tmp_path / "one.bin"
    raw.write_bytes(b"a")
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.RLIM_INFINITY)); "
            "from xladoctor.cli.main import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "relayout", "--from", "u8[1]", "--to", "u8[1]{0:T(17179869184)}",
                           str(raw), str(tmp_path / "o.bin")], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "refusing to allocate" in proc.stderr and "internal error" not in proc.stderr


def test_relayout_into_sub_byte_storage_needs_no_bit_array_of_the_whole_buffer():
    """The campaign's one memory-cap hit: u8[128,128,3] into a tiled E(4) layout (1 MB stored,
    2M padded elements) peaked at 27 MB of numpy bit arrays (8 bytes per bit, twice); chunked,
    the temporaries stay near the buffers themselves."""
    np = pytest.importorskip("numpy")
    from xladoctor.inputs.relayout import relayout
    src, dst = parse_shape("u8[128,128,3]{0,2,1}"), parse_shape("u8[128,128,3]{2,1,0:T(8,128)E(4)}")
    data = np.random.default_rng(13).integers(0, 16, 128 * 128 * 3, dtype=np.uint8).tobytes()
    tracemalloc.start()
    try:
        out = relayout(data, src, dst)
        back = relayout(out, dst, src)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(out) == 1 << 20 and back == data
    assert peak < 8 << 20


@pytest.mark.parametrize("bits", [1, 3, 4, 7])
def test_sub_byte_packing_is_one_bit_stream_across_chunks(bits):
    """Packing in chunks must give the stream XLA stores (element i in bits [i*n, i*n+n), least
    significant first) across chunk boundaries, for widths that do and do not divide a byte."""
    np = pytest.importorskip("numpy")
    from xladoctor.inputs.relayout import _BIT_CHUNK, relayout
    count = 2 * _BIT_CHUNK + 13
    values = np.random.default_rng(bits).integers(0, 1 << bits, count, dtype=np.uint8)
    stream = 0
    for i, v in enumerate(values.tolist()):
        stream |= v << (i * bits)
    expected = stream.to_bytes(-(-count * bits // 8), "little")
    src, dst = parse_shape(f"u8[{count}]{{0}}"), parse_shape(f"u8[{count}]{{0:E({bits})}}")
    packed = relayout(values.tobytes(), src, dst)
    assert packed == expected
    assert relayout(packed, dst, src) == values.tobytes()


# ------------------------------------------------------------------ found by the campaign


@pytest.mark.parametrize("text,message", [
    (module("  ROOT c64 = f32[2]{0} parameter(0)"), "'c64' is a keyword"),
    (module("  ROOT %pred = f32[2]{0} parameter(0)"), "illegal instruction name: pred"),
    ("HloModule m\nc64 {\n  ROOT p = f32[2]{0} parameter(0)\n}\nENTRY e {\n  ROOT q = f32[2]{0} parameter(0)\n}\n",
     "'c64' is a keyword"),
    (module("  ROOT r= f32[2]{0} parameter(0)"), "reads 'r=' as an attribute name"),
    (module("  p = f32[2]{0} parameter(0)\n  ROOT c = f32[2]{0} custom-call(p), custom_call_target=\"x\"9"),
     "expected"),
    (module("  p = f32[2]{0} parameter(0)\n  ROOT g = f32[2]{0} negate(p), inx=0"), 'unexpected attribute "inx"'),
    (module("  ROOT p = f32[2]{0} parameter(0), metadata={sour*/ce_file=\"a\"}"), "metadata"),
    (module('  ROOT p = f32[2]{0} parameter(0), metadata={op_name=""op_name="" source_line=0}'), "already exists"),
    (module('  ROOT p = f32[2]{0} parameter(0), metadata={op_name="a" op_name="b"}'), "already exists"),
    (module("  ROOT p = f32[2]{0} parameter(0), metadata={source_line=1 source_line=2}"), "already exists"),
])
def test_names_and_attributes_jaxlib_refuses(text, message):
    with pytest.raises(HloParseError, match=message.replace("(", r"\(").replace("*", r"\*")):
        parse_module(text)


def test_a_metadata_key_inside_a_string_is_no_repeat():
    text = module('  ROOT p = f32[2]{0} parameter(0), metadata={op_name="op_name=x op_name=" source_line=3}')
    assert parse_module(text).entry_computation().root_instruction().metadata.op_name == "op_name=x op_name="


def test_names_jaxlib_accepts_after_percent_and_lenient_tiles():
    m = parse_module("HloModule m\nENTRY %true {\n  ROOT %x = f32[2]{0:T(8} parameter(0)\n}\n")
    assert m.entry.name == "true" and str(m.entry.root.shape) == "f32[2]{0:T(8)}"


def test_module_without_header_is_read_as_xla_reads_it():
    m = parse_module("c {\n  ROOT p = f32[2]{0} parameter(0)\n}\nENTRY d {\n  ROOT q = f32[2]{0} parameter(0)\n}\n")
    assert m.name == "module_d" and m.entry.name == "d"


@pytest.mark.parametrize("shape,printed", [("f32[2]{0:T(8}", "f32[2]{0:T(8)}"), ("f32[2]{0:T(8,S(5)}", "f32[2]{0:T(8)S(5)}"),
                                           ("f32[2]{0:T(8)(2,1}", "f32[2]{0:T(8)(2,1)}"), ("f32[2]{0:E(4}", "f32[2]{0:E(4)}")])
def test_layouts_as_lenient_as_xla(shape, printed):
    assert str(parse_shape(shape)) == printed


@pytest.mark.parametrize("shape", ["f32[2]{0:T(8(16)}", "f32[2]{0:T(8,,8)}", "f32[2]{0:T(8 8)}", "f32[2]{0:T(8:}",
                                   "f32[2]{0:S()}"])
def test_layouts_xla_refuses(shape):
    with pytest.raises(HloParseError):
        parse_shape(shape)


def test_json_output_stays_valid_json_with_hostile_strings(tmp_path, capsys):
    import json
    hostile = '"\\033[2J\\177\\302\\205\\342\\200\\256\\342\\200\\250x.py"'
    path = write(tmp_path / "j.hlo", E1200.replace("SOURCE", hostile))
    code, out, _ = run(["offload", "--json", path], capsys)
    assert code == 1
    doc = json.loads(out)
    assert "\x1b" not in out and "\u202e" not in out and "\x7f" not in out
    assert doc["details"]["errors"]


@pytest.mark.parametrize("body,printed", [
    ("  p = f32[2]{0} parameter(0)\n  ROOT r = (f32[2]{0}, f32[2]{0}) tuple(p,,p)", "tuple"),
    ("  p = f32[2]{0} parameter(0)\n  ROOT r = f32[2]{0} negate(p,)", "negate"),
    ("  p = f32[2]{0} parameter(0)\n  v: = f32[2]{0} negate(p)\n  ROOT w = f32[2]{0} negate(v)", "negate"),
    ("  ROOT p = f32[2]{0:S} parameter(0)", "parameter"),
])
def test_operand_lists_and_labels_as_lenient_as_xla(body, printed):
    m = parse_module(module(body))
    assert m.entry.root.opcode.value == printed


def test_tuple_operand_count_follows_its_shape():
    with pytest.raises(HloParseError, match="expects 1 operands, but has 2"):
        parse_module(module("  p = f32[2]{0} parameter(0)\n  ROOT t = (f32[2]{0}) tuple(p, p)"))


@pytest.mark.parametrize("attrs,message", [
    ('custom_call_target=ontend', "custom_call_target expects a string"),
    ('custom_call_target="x", frontend_attributes=butes={a="b"}', "frontend_attributes expects '{'"),
])
def test_attribute_value_forms_xla_requires(attrs, message):
    with pytest.raises(HloParseError, match=message):
        parse_module(module(f"  p = f32[2]{{0}} parameter(0)\n  ROOT r = f32[2]{{0}} custom-call(p), {attrs}"))


def test_get_tuple_element_needs_an_index_and_comments_end_values():
    with pytest.raises(HloParseError, match="attribute index is expected"):
        parse_module(module("  p = (f32[2]{0}) parameter(0)\n  ROOT g = f32[2]{0} get-tuple-element(p)"))
    m = parse_module(module('  ROOT p = f32[2]{0} parameter(0), metadata={op_name="x"}// a comment'))
    assert m.entry.root.metadata.op_name == "x"


def test_attribute_name_and_equals_sign_are_one_token():
    with pytest.raises(HloParseError, match="right after attribute name 'metadata'"):
        parse_module(module('  ROOT p = f32[2]{0} parameter(0), metadata\n={op_name="x"}'))


def test_shape_cache_stays_bounded_in_a_long_lived_process():
    """The fuzz campaign's workers hit their 256 MB cap after ~180k inputs: the parser's shape
    cache kept up to 200,000 distinct spellings (~560 bytes each) for the life of the process.
    It is now small and emptied when full, so distinct shapes cost no lasting memory."""
    import tracemalloc

    from xladoctor.syntax.shape_parser import parse_shape

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(30_000):
            parse_shape(f"f32[{i},{i % 7 + 1}]{{1,0}}")
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 8 << 20, f"{grown:,} bytes kept after 30,000 distinct shapes"


def test_a_logged_shape_whose_size_overflows_int64_is_reported_not_fatal(tmp_path, capsys):
    """Campaign find (seed 8181): an E0102 line whose expected shape has a tile of 2**63-1 made
    ``explain`` stop with exit 2 (the size computation refused the shape) and lose the log's
    findings.  The finding is kept; that side is marked invalid, with the reason."""
    import json

    from test_json_schemas import validate

    log = tmp_path / "big_tile.log"
    log.write_text("INVALID_ARGUMENT: expected parameter 0 of size 5242880 "
                   "(bf16[16,1280,40]{2,1,0:T(9223372036854775807)(2,1)}) but got buffer with incompatible size "
                   "1638400 (bf16[16,1280,40]{1,2,0:T(8,128)(2,1)})\n")
    code, out, err = run(["explain", str(log)], capsys)
    assert code == 1 and "E0102" in out and "overflows int64" in out and not err
    code, out, err = run(["explain", str(log), "--json"], capsys)
    doc = json.loads(out)
    validate(doc, "explain")
    assert code == 1 and "overflows int64" in json.dumps(doc)
    code, out, err = run(["check", str(log)], capsys)
    assert code == 1 and "E0102" in out
