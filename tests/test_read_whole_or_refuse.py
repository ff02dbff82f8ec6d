"""Issue 35 item 2, read whole or refuse: compressed logs read by check, explain and fleet (bounded),
numbers of any length, one bad message never costing the rest, unknown codes refused, and the
configuration found like ruff's, bounded, and refused in one line when malformed."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zstd_files import NEEDS_ZSTD, zstd_compress

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
LOG = EXAMPLES / "tpu_job.log"
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress, ".zst": zstd_compress}
EXTS = [pytest.param(ext, marks=NEEDS_ZSTD) if ext == ".zst" else ext for ext in sorted(COMPRESS)]


def xladoctor(*argv: object, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path), **env}
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, env=full, cwd=cwd)


@pytest.mark.parametrize("ext", EXTS)
def test_compressed_logs_are_read_by_check_explain_and_fleet(tmp_path, ext):
    path = tmp_path / f"job.log{ext}"
    path.write_bytes(COMPRESS[ext](LOG.read_bytes()))
    for command in ("check", "explain"):
        p = xladoctor(command, path, "--format", "concise")
        assert p.returncode == 1, (command, p.stdout, p.stderr)
        assert "E0102" in p.stdout and "E1200" in p.stdout, (command, p.stdout)
    fleet = xladoctor("fleet", path)
    assert fleet.returncode == 1 and "E0102" in fleet.stdout and "E1200" in fleet.stdout
    walked = xladoctor("check", tmp_path, "--format", "concise")  # met in a folder too, not skipped
    assert walked.returncode == 1 and "E1200" in walked.stdout


def test_a_decompression_bomb_and_a_cut_stream_are_one_line_each(tmp_path):
    bomb = tmp_path / "bomb.log.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (20 << 20)))  # 20 MB of zeros in ~20 KB: 1000x
    for command in ("check", "explain"):
        p = xladoctor(command, bomb, XLADOCTOR_MAX_INPUT_BYTES=str(1 << 20))
        assert p.returncode == 2 and "decompression bomb" in p.stderr, (command, p.stderr)
        assert p.stderr.strip().count("\n") == 0 and p.stderr.startswith(f"{bomb}:1:1: ")
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(gzip.compress(LOG.read_bytes())[:300])
    p = xladoctor("explain", cut)
    assert p.returncode == 2 and p.stderr.startswith(f"{cut}:1:1: cannot decompress") and "Traceback" not in p.stderr


def test_a_number_of_any_length_costs_its_fields_only(tmp_path):
    huge = "9" * 5000  # past int()'s 4,300 digits
    log = tmp_path / "job.log"
    log.write_text(LOG.read_text().replace("5242880", huge).replace("2482", huge))
    for command in ("check", "explain"):
        p = xladoctor(command, log, "--format", "concise")
        assert p.returncode == 1, (command, p.stderr)
        assert "E0102" in p.stdout and "E1200" in p.stdout and "internal error" not in p.stderr + p.stdout
    from json_schema_check import validator

    doc = json.loads(xladoctor("explain", log, "--json").stdout)
    assert [f["code"] for f in doc["findings"]] == ["E0102", "E1200"]
    assert not list(validator("explain").iter_errors(doc))  # the fields it lost leave a valid document


def test_one_message_whose_analysis_fails_keeps_the_others(monkeypatch):
    from xladoctor.catalogue import fields, scanner

    real = fields.extract

    def broken(code, text):
        if code == "E0102":
            raise RuntimeError("a bug in one code's analysis")
        return real(code, text)

    monkeypatch.setattr(fields, "extract", broken)
    found = scanner.scan_text(LOG.read_text())
    assert [f.code for f in found] == ["E0102", "E1200"]
    assert found[0].fields == {} and found[1].fields


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_codes_on_the_command_line_are_refused(option):
    p = xladoctor("check", LOG, option, "E12,E9999")
    assert p.returncode == 2 and "E9999" in p.stderr and option in p.stderr and "E12," not in p.stderr
    assert p.stdout == ""
    assert xladoctor("check", LOG, option, "E03").returncode in (0, 1)  # a family prefix is a code


def _project(tmp_path: Path, text: str, name: str = "pyproject.toml") -> Path:
    (tmp_path / name).write_text(text)
    deep = tmp_path / "runs" / "a"
    deep.mkdir(parents=True, exist_ok=True)
    (deep / "job.log").write_bytes(LOG.read_bytes())
    return deep / "job.log"


@pytest.mark.parametrize("text, line, words", [
    ("tool = 5\n", 1, "tool must be a table"),
    ("[tool]\nxladoctor = 5\n", 1, "tool.xladoctor must be a table"),
    ("[tool.xladoctor]\nselect = [\"E9999\"]\n", 1, "E9999"),
    ("[tool.xladoctor]\nformat = 3\n", 1, "format must be a string"),
    ("[tool.xladoctor]\nformat = \"xml\"\n", 1, "xml"),
    ("[project]\nname = 'x'\n[tool.xladoctor\n", 3, "cannot read"),
])
def test_a_malformed_configuration_is_one_located_line(tmp_path, text, line, words):
    log = _project(tmp_path, text)
    for command in ("check", "explain"):
        p = xladoctor(command, log)
        assert p.returncode == 2, (command, p.stdout, p.stderr)
        assert p.stderr.startswith(f"{tmp_path / 'pyproject.toml'}:{line}:") and words in p.stderr, p.stderr
        assert p.stderr.count("\n") == 1


def test_a_huge_configuration_is_refused_before_it_is_read(tmp_path):
    log = _project(tmp_path, "")
    with open(tmp_path / "pyproject.toml", "wb") as f:
        f.truncate(700 << 20)  # sparse: 700 MB that take no disk
    p = xladoctor("check", log)
    assert p.returncode == 2 and "larger than 1,048,576 bytes" in p.stderr and p.stderr.count("\n") == 1


def test_xladoctor_toml_is_found_like_ruff_toml_and_the_nearest_wins(tmp_path):
    log = _project(tmp_path, '[tool.xladoctor]\nignore = ["E1200"]\n')
    (log.parent / "xladoctor.toml").write_text('ignore = ["E0102"]\n')
    p = xladoctor("check", log, "--format", "concise")
    assert p.returncode == 1 and "E1200" in p.stdout and "E0102" not in p.stdout, p.stdout
    (log.parent / "xladoctor.toml").unlink()
    p = xladoctor("check", log, "--format", "concise")
    assert p.returncode == 1 and "E0102" in p.stdout and "E1200" not in p.stdout, p.stdout


def test_a_configuration_that_turns_every_code_off_says_so(tmp_path):
    log = _project(tmp_path, '[tool.xladoctor]\nignore = ["E"]\n')
    p = xladoctor("check", log)
    assert p.returncode == 0 and p.stdout == "0 findings\n"
    assert f"the selection in {tmp_path / 'pyproject.toml'} turns every XLA error code" in p.stderr
    narrow = _project(tmp_path, '[tool.xladoctor]\nignore = ["E1200"]\n')
    assert "turns every" not in xladoctor("check", narrow).stderr
    assert "turn every" in xladoctor("check", LOG, "--select", "E12", "--ignore", "E1200").stderr


def test_compressed_binary_formats_are_judged_by_the_name_inside(tmp_path):
    (tmp_path / "dump.pb.gz").write_bytes(gzip.compress(b"\x08\x96\x01"))
    (tmp_path / "runs.tar.gz").write_bytes(gzip.compress(b"\0" * 1024))
    (tmp_path / "job.log.gz").write_bytes(gzip.compress(LOG.read_bytes()))
    p = xladoctor("check", tmp_path, "--json")
    kinds = {Path(f["path"]).name: f["kind"] for f in json.loads(p.stdout)["files"]}
    assert kinds == {"dump.pb.gz": "skipped", "runs.tar.gz": "skipped", "job.log.gz": "log"}, kinds


@pytest.mark.parametrize("ext", EXTS)
def test_compression_is_seen_in_the_bytes_on_stdin_and_without_a_suffix(tmp_path, ext):
    data = COMPRESS[ext](LOG.read_bytes())
    (tmp_path / "job.log").write_bytes(data)  # compressed, but named as plain text
    for command in ("check", "explain"):
        env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
        piped = subprocess.run([sys.executable, "-m", "xladoctor", command, "-", "--format", "concise"], input=data,
                               capture_output=True, timeout=120, env=env)
        assert piped.returncode == 1 and b"E0102" in piped.stdout and b"E1200" in piped.stdout, (command, piped)
        named = xladoctor(command, tmp_path / "job.log", "--format", "concise")
        assert named.returncode == 1 and "E1200" in named.stdout, (command, named.stdout, named.stderr)


@pytest.mark.parametrize("ext", EXTS)
def test_a_corrupt_body_after_a_valid_header_is_one_located_line(tmp_path, ext):
    """zlib's, lzma's and zstd's own errors are no OSError: a corrupt .gz/.xz body was an internal error
    (found by the fuzz campaign's compressed-stdin inputs)."""
    data = bytearray(COMPRESS[ext](LOG.read_bytes()))
    for i in range(30, 70):
        data[i] ^= 0xA5
    path = tmp_path / f"job.log{ext}"
    path.write_bytes(bytes(data))
    p = xladoctor("explain", path)
    assert p.returncode == 2 and p.stderr.startswith(f"{path}:1:1: cannot decompress"), p.stderr
    assert p.stderr.count("\n") == 1 and "internal error" not in p.stderr
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    piped = subprocess.run([sys.executable, "-m", "xladoctor", "explain", "-"], input=bytes(data),
                           capture_output=True, timeout=120, env=env)
    assert piped.returncode == 2 and piped.stderr.startswith(b"<stdin>:1:1: cannot decompress"), piped.stderr
