"""Issue 23's second round of hostile input (items 1-7 and 9), and issue 22's fleet and relayout items.

Each test feeds the exact input the issue names and checks the contract: exit 2 with one
located line (never an internal error or a MemoryError), nothing forged on the terminal,
JSON/SARIF/HTML still valid, and the Python API refusing what JAX refuses.
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from xladoctor.cli.main import main

EXAMPLE = files("xladoctor") / "examples" / "e1200_offloaded_activation.hlo"
TPU_LOG = files("xladoctor") / "examples" / "tpu_job.log"
SRC = str(Path(__file__).resolve().parents[1] / "src")


def cli(*argv: str, stdin=None, env: dict | None = None, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """The command in a child process (stdin/stdout as the issue gives them), 60 s at most."""
    full_env = {**os.environ, "PYTHONPATH": SRC, **(env or {})}
    return subprocess.run([sys.executable, "-m", "xladoctor", *argv], stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, env=full_env, timeout=60)


def one_line(err: bytes | str) -> str:
    text = err.decode() if isinstance(err, bytes) else err
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "internal error" not in text and "Traceback" not in text, text
    return lines[0]


# ------------------------------------------------------------------ 1. bounded reads


def test_relayout_refuses_a_device_and_bounds_stdin_and_fifos(tmp_path):
    r = cli("relayout", "--from", "u8[16]", "--to", "u8[16]", "/dev/zero", str(tmp_path / "out"))
    assert r.returncode == 2 and "character device" in one_line(r.stderr)
    with open("/dev/zero", "rb") as zero:  # an endless stdin: refused once it passes the 16 bytes
        r = cli("relayout", "--from", "u8[16]", "--to", "u8[16]", "-", str(tmp_path / "out"), stdin=zero)
    assert r.returncode == 2 and "input is larger than 16 bytes" in one_line(r.stderr)
    with open("/dev/urandom", "rb") as rand:  # the same with a 1 TiB --from: the general bound
        r = cli("relayout", "--from", "u8[1099511627776]", "--to", "u8[1099511627776]", "-", str(tmp_path / "o"),
                stdin=rand, env={"XLADOCTOR_MAX_INPUT_BYTES": "1000000"})
    assert r.returncode == 2 and "larger than" in one_line(r.stderr)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat /dev/zero > {fifo}"], stderr=subprocess.DEVNULL)
    try:
        r = cli("relayout", "--from", "u8[16]", "--to", "u8[16]", str(fifo), str(tmp_path / "out"))
    finally:
        writer.kill()
        writer.wait()
    assert r.returncode == 2 and "input is larger than 16 bytes" in one_line(r.stderr)


def test_every_whole_read_has_one_documented_bound(tmp_path):
    with open("/dev/zero", "rb") as zero:
        r = cli("hlo", "-", stdin=zero, env={"XLADOCTOR_MAX_INPUT_BYTES": "100000"})
    assert r.returncode == 2
    assert one_line(r.stderr) == ("<stdin>:1:1: input is larger than 100,000 bytes, the most xladoctor reads whole "
                                  "(XLADOCTOR_MAX_INPUT_BYTES=100000 sets another)")
    big = tmp_path / "big.hlo"
    big.write_text(EXAMPLE.read_text() + " " * 200_000)
    r = cli("check", str(big), env={"XLADOCTOR_MAX_INPUT_BYTES": "100000"})
    assert r.returncode == 2 and "larger than 100,000 bytes" in r.stderr.decode()
    r = cli("hlo", "/dev/urandom")
    assert r.returncode == 2 and "character device" in one_line(r.stderr)


def test_an_npy_header_declaring_a_tebibyte_is_refused_before_allocating(tmp_path):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (274877906944,), }"
    header += " " * (118 - len(header)) + "\n"
    npy = tmp_path / "big.npy"
    npy.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(16))
    r = cli("relayout", "--from", "f32[274877906944]", "--to", "f32[274877906944]", str(npy), str(tmp_path / "o.npy"))
    assert r.returncode == 2
    assert "header declares [274877906944] of float32 (1,099,511,627,776 bytes)" in one_line(r.stderr)
    small = tmp_path / "short.npy"  # a header that promises more than the file holds
    small.write_bytes(npy.read_bytes().replace(b"274877906944,", b"8,           "))
    r = cli("relayout", "--from", "f32[8]", "--to", "f32[8]", str(small), str(tmp_path / "o.npy"))
    assert r.returncode == 2 and "but the file holds 16 data bytes" in one_line(r.stderr)


def test_an_npy_header_numpy_cannot_tokenize_is_a_located_error(tmp_path):  # found by the npy target
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\n"
    npy = tmp_path / "torn.npy"
    npy.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(16))
    r = cli("relayout", "--from", "f32[4]", "--to", "f32[4]", str(npy), str(tmp_path / "o.npy"))
    assert r.returncode == 2 and one_line(r.stderr).startswith(f"{npy}:1:1: not a readable .npy file: ")
    header = "{'descr': '>i4', 'fortran_order': False, 'shape': (0, 18446744073709551616), }\n"
    npy.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    r = cli("relayout", "--from", "s32[0,4]", "--to", "s32[0,4]", str(npy), str(tmp_path / "o.npy"))
    assert r.returncode == 2 and "not a readable .npy file: dimensions [0, 18446744073709551616]" in one_line(r.stderr)


# ------------------------------------------------------------------ issue 22 item 8: relayout .npy


def test_a_logical_npy_with_a_tiled_from_is_read_as_the_array(tmp_path, capsys):
    np = pytest.importorskip("numpy")
    a = np.arange(8 * 128, dtype=np.float32).reshape(8, 128)
    np.save(tmp_path / "l.npy", a)
    assert main(["relayout", "--from", "f32[8,128]{0,1:T(8,128)}", "--to", "f32[8,128]",
                 str(tmp_path / "l.npy"), str(tmp_path / "o.npy")]) == 0
    assert (np.load(tmp_path / "o.npy") == a).all()  # the values, not the tiled bytes reread


def test_bf16_npy_is_written_as_its_bit_patterns_not_void(tmp_path, capsys):
    np = pytest.importorskip("numpy")
    raw = tmp_path / "b.raw"
    raw.write_bytes(bytes([0x80, 0x3F, 0x00, 0x40, 0, 0, 0, 0]))  # bf16 1.0, 2.0, 0, 0
    assert main(["relayout", "--from", "bf16[4]", "--to", "bf16[4]", str(raw), str(tmp_path / "b.npy")]) == 0
    assert "bit patterns of bf16" in capsys.readouterr().err
    back = np.load(tmp_path / "b.npy")
    assert back.dtype == np.dtype("<u2") and back.tolist() == [0x3F80, 0x4000, 0, 0]
    assert main(["relayout", "--from", "bf16[4]", "--to", "bf16[4]", str(tmp_path / "b.npy"),
                 str(tmp_path / "c.raw")]) == 0  # and it reads back as the logical array
    assert (tmp_path / "c.raw").read_bytes() == raw.read_bytes()


# ------------------------------------------------------------------ 2, 3. names: JSON, SARIF, HTML, hint


def strings(doc) -> list[str]:
    if isinstance(doc, str):
        return [doc]
    values = doc.values() if isinstance(doc, dict) else doc if isinstance(doc, list) else []
    return [s for v in values for s in strings(v)]


@pytest.fixture
def hostile_names(tmp_path):
    d = tmp_path / "u"
    d.mkdir()
    text = EXAMPLE.read_bytes()
    for name in (b"bad\xff.hlo", b"x\n\n1 file checked, 0 findings\n.hlo", "rtl\u202eolh.txt".encode()):
        (Path(os.fsdecode(bytes(d) + b"/" + name))).write_bytes(text)
    return d


def test_invalid_utf8_names_keep_json_sarif_and_html_valid(hostile_names, tmp_path):
    r = cli("check", str(hostile_names), "--json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout.decode("utf-8"))  # strict UTF-8: no raw 0xff byte
    assert any(v.endswith("bad\\xff.hlo") for v in strings(doc))  # the byte shown as escape_field shows it
    r = cli("check", str(hostile_names), "--format", "sarif")
    assert r.returncode == 1, r.stderr
    uris = [res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for res in json.loads(r.stdout.decode("utf-8"))["runs"][0]["results"]]
    assert any(u.endswith("bad%FF.hlo") for u in uris) and any("%E2%80%AE" in u for u in uris), uris
    assert all(" " not in u and "\n" not in u for u in uris)
    html = tmp_path / "r.html"
    r = cli("check", str(hostile_names), "--html", str(html))
    assert r.returncode == 1, r.stderr
    page = html.read_bytes().decode("utf-8")
    assert "\u202e" not in page and "rtl\\u202eolh.txt" in page  # visualised, cannot reorder inside <bdi>


def test_a_file_name_cannot_forge_the_summary(hostile_names):
    r = cli("check", str(hostile_names))
    out = r.stdout.decode("utf-8")
    assert r.returncode == 1
    assert "\n1 file checked, 0 findings\n" not in out
    assert out.rstrip().splitlines()[-1] == "3 files checked, 3 findings"
    hints = [ln for ln in out.splitlines() if "xladoctor offload" in ln]
    assert len(hints) == 3 and any("$'" in h and "\\n\\n1 file checked, 0 findings\\n.hlo'" in h for h in hints)
    assert any("bad\\xff.hlo'" in h for h in hints) and "\u202e" not in out


def test_the_shell_hint_runs_as_shown(hostile_names):
    from xladoctor.base.escape import shell_arg

    name = os.path.join(str(hostile_names), "x\n\n1 file checked, 0 findings\n.hlo")
    echoed = subprocess.run(["bash", "-c", f"printf %s {shell_arg(name)}"], capture_output=True, text=True).stdout
    assert echoed == name


# ------------------------------------------------------------------ 4. nesting


def _p_nested(n: int) -> str:
    s = "s32[2]"
    for _ in range(n):
        s = f"f32[2]{{0:P({s})}}"
    return s


def test_p_layouts_nested_196_deep_are_a_located_error(tmp_path, capsys):
    shape = _p_nested(196)
    assert main(["shape", shape]) == 2
    assert "nested more than 200 levels" in one_line(capsys.readouterr().err)
    hlo = tmp_path / "p.hlo"
    hlo.write_text(f"HloModule m\n\nENTRY e {{\n  ROOT p = {shape} parameter(0)\n}}\n")
    assert main(["hlo", str(hlo)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"{hlo}:4:") and "nested more than 200 levels" in line


# ------------------------------------------------------------------ 5. fleet


@pytest.fixture
def runs(tmp_path):
    root = tmp_path / "runs"
    for j in "abc":
        (root / f"job-{j}" / "logs").mkdir(parents=True)
        (root / f"job-{j}" / "logs" / "x.log").write_bytes(TPU_LOG.read_bytes())
    (root / "self").symlink_to(".")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "y.log").write_bytes(TPU_LOG.read_bytes())
    (root / "job-b" / "ext").symlink_to(outside)
    (root / "job-a" / "logs" / "out.log").symlink_to(outside / "y.log")
    return root


def fleet_json(*argv: str, stdin=None, env=None) -> tuple[int, dict, str]:
    r = cli("fleet", *argv, "--json", stdin=stdin, env=env)
    return r.returncode, json.loads(r.stdout or b"{}"), r.stderr.decode()


def test_fleet_walk_follows_no_symlinked_folder_nor_link_out(runs):
    # file:// is a local path and walked the same way (fsspec's glob listed whole trees in memory:
    # 'file:///**/*.log' ran out of memory under the campaign's cap, seed 24242)
    for pattern in (str(runs), f"{runs}/**/*.log", f"{runs}/*/logs/*.log", f"{runs}/**", f"file://{runs}/**/*.log",
                    f"file://{runs}"):
        code, doc, err = fleet_json(pattern)
        assert code == 1, err
        assert doc["files"] == 3, (pattern, doc)
        assert sorted(doc["by_job"]) == ["job-a", "job-b", "job-c"], (pattern, doc["by_job"])  # issue 22: not "logs"


def test_fleet_reads_a_list_from_stdin(runs, tmp_path):
    listing = tmp_path / "list.txt"
    listing.write_text(f"# the logs of two jobs\n{runs}/job-a/logs/x.log\n{runs}/job-c\n")
    with open(listing, "rb") as f:
        code, doc, err = fleet_json("-", stdin=f)
    assert code == 1 and doc["files"] == 2, err


def test_a_decompression_bomb_is_refused_not_a_memory_error(tmp_path):
    bomb = tmp_path / "logs" / "bomb.log.gz"
    bomb.parent.mkdir()
    bomb.write_bytes(gzip.compress(b"\n" * 50_000_000, 9))  # ~50 KB expanding 1000x
    code, doc, err = fleet_json(str(bomb.parent), env={"XLADOCTOR_MAX_INPUT_BYTES": "1000000"})
    assert code == 2
    assert "refusing it as a decompression bomb" in doc["errors"][0]["error"]
    assert "MemoryError" not in err and "internal error" not in err


@pytest.mark.parametrize("url,words", [("bogus://x/*.log", "Protocol not known"), ("ftp://127.0.0.1:1/*.log", "cannot list"),
                                       ("zip://*.log", "cannot list")])
def test_fleet_urls_it_cannot_list_are_one_line_errors(url, words):
    pytest.importorskip("fsspec")
    r = cli("fleet", url)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert line.startswith(f"xladoctor: {url}: ") and words in line


def test_a_newline_in_a_url_pattern_cannot_forge_a_line():  # found by the campaign's urls target
    pytest.importorskip("fsspec")
    r = cli("fleet", "bogus://\n1 file checked, 0 findings\n/*.log")
    assert r.returncode == 2
    assert one_line(r.stderr).startswith("xladoctor: bogus://\\n1 file checked, 0 findings\\n/*.log: ")


def test_s3_without_s3fs_says_what_to_install():
    pytest.importorskip("fsspec")
    try:
        import s3fs  # noqa: F401
        pytest.skip("s3fs is installed")
    except ImportError:
        pass
    r = cli("fleet", "s3://bucket/*.log")
    assert r.returncode == 2 and "s3fs" in one_line(r.stderr)


def test_dask_workers_get_absolute_paths(tmp_path, monkeypatch):
    """Workers do not share the client's working directory: what is sent must not be relative."""
    import types

    from xladoctor.route import fleet

    sent: list[str] = []

    class Client:
        def __init__(self, address):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def close(self, timeout=None):
            pass

        def map(self, fn, paths, jobs, rules, pure):
            sent.extend(paths)
            return [fn(p, j, r) for p, j, r in zip(paths, jobs, rules)]

        def gather(self, futures):
            return futures

    monkeypatch.setitem(sys.modules, "distributed", types.SimpleNamespace(Client=Client, as_completed=iter))
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "x.log").write_bytes(TPU_LOG.read_bytes())
    monkeypatch.chdir(tmp_path)
    out = fleet.run_dask(["j/x.log"], ["j"], "shipped", "tcp://nowhere:1", lambda: None)
    assert sent == [str(tmp_path / "j" / "x.log")]
    assert out[0].path == "j/x.log" and out[0].error is None and out[0].sightings


# ------------------------------------------------------------------ 6. logs


def test_dense_anchor_words_do_not_hide_a_message_and_stay_bounded(tmp_path, capsys):
    message = "got a parameter buffer for parameter 3 in an unexpected memory space\n"
    log = tmp_path / "got.log"
    log.write_text("got\n" * 300_000 + message + "got got got\n" * 100_000)
    assert main(["explain", str(log), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(f["code"], f["line"], f["count"]) for f in doc["findings"]] == [("E0102", 300_001, 1)]


def test_the_e1200_prefix_alone_is_no_finding(tmp_path, capsys):
    log = tmp_path / "prefix.log"
    log.write_text("Tensor which is moved to host (starting from \n" * 40_000)
    assert main(["explain", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    log.write_text("Tensor which is moved to host (starting from \n" * 1000 + TPU_LOG.read_text())
    assert main(["explain", str(log), "--json"]) == 1
    assert "E1200" in [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]


# ------------------------------------------------------------------ 7. outputs


@pytest.mark.parametrize("argv", [("hlo", str(EXAMPLE)), ("check", str(EXAMPLE)), ("explain", "E1200"),
                                  ("relayout", "--from", "u8[4]", "--to", "u8[4]", "-", "-")])
def test_a_full_stdout_is_one_line_exit_2(argv):
    with open("/dev/full", "wb") as full:
        r = subprocess.run([sys.executable, "-m", "xladoctor", *argv], input=b"abcd", stdout=full,
                           stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": SRC}, timeout=60)
    assert r.returncode == 2
    assert one_line(r.stderr) == "xladoctor: cannot write to <stdout>: No space left on device"


def test_a_read_only_output_is_refused_not_replaced(tmp_path, capsys):
    src, out = tmp_path / "in.raw", tmp_path / "ro.raw"
    src.write_bytes(b"wxyz")
    out.write_bytes(b"abcd")
    out.chmod(0o444)
    assert main(["relayout", "--from", "u8[4]", "--to", "u8[4]", str(src), str(out)]) == 2
    assert "the file is read-only (mode 0444)" in one_line(capsys.readouterr().err)
    assert out.read_bytes() == b"abcd" and (out.stat().st_mode & 0o777) == 0o444


# ------------------------------------------------------------------ 9. Python API


def test_parse_module_takes_utf8_bytes_and_refuses_none_clearly():
    import xladoctor

    text = EXAMPLE.read_text()
    assert xladoctor.parse_module(text.encode()).name == xladoctor.parse_module(text).name
    with pytest.raises(TypeError, match=r"parse_module\(\) takes the text as str \(or UTF-8 bytes\), not NoneType"):
        xladoctor.parse_module(None)
    with pytest.raises(xladoctor.InputError, match="not UTF-8 text"):
        xladoctor.parse_module(b"HloModule m\xff")
    with pytest.raises(TypeError, match=r"parse_shape\(\) takes the shape as str, not NoneType"):
        xladoctor.parse_shape(None)  # was "'NoneType' object is not subscriptable"


KINDLESS_JAX_LOWERING = b"""HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main.3 {
  Arg_0.1 = f32[4]{0} parameter(0)
  ROOT custom-call.2 = f32[4]{0} custom-call(Arg_0.1), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
}
"""


def test_hostile_names_on_an_undecidable_lowering(tmp_path):
    """The 'save the StableHLO beside it' note pastes the file's stem into a line of Python, and
    SARIF fingerprints hash the name: found by the campaign's names target after the merge of
    the undecidable route (a forged summary line; a UnicodeEncodeError on a non-UTF-8 name)."""
    d = tmp_path / "u"
    d.mkdir()
    for name in (b"bad\xed\xa0\x80", b"x\n\n1 file checked, 0 findings\n"):
        Path(os.fsdecode(bytes(d) + b"/" + name)).write_bytes(KINDLESS_JAX_LOWERING)
    r = cli("check", str(d))
    out = r.stdout.decode("utf-8")
    assert r.returncode == 1, r.stderr
    assert "\n1 file checked, 0 findings\n" not in out and out.count("NO VERDICT") == 2
    assert out.rstrip().splitlines()[-1] == "2 files checked, 2 findings"
    r = cli("check", str(d), "--format", "sarif")
    assert r.returncode == 1, r.stderr
    results = json.loads(r.stdout.decode("utf-8"))["runs"][0]["results"]
    assert len(results) == 2 and all(res["level"] == "warning" for res in results)
