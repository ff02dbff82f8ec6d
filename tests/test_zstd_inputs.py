"""Issue 35: .zst logs read end to end, bounded as .gz/.bz2/.xz are (the same 200x/1 GiB caps),
and refused in one located line when the stream is a bomb, cut or corrupt, or when neither
``compression.zstd`` nor its backport is installed.  check/explain/fleet/stdin on .zst are in
test_read_whole_or_refuse.py (parametrized over every compression)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.base import files
from xladoctor.base.errors import InputError
from zstd_files import NEEDS_ZSTD, ZSTD, zstd_compress

LOG = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples" / "tpu_job.log"


def xladoctor(*argv: object, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path), **env}
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, env=full)


@NEEDS_ZSTD
def test_a_zstd_bomb_is_refused_in_one_line_by_every_reader(tmp_path):
    bomb = tmp_path / "bomb.log.zst"
    bomb.write_bytes(zstd_compress(b"\n" * (24 << 20), 19))  # 24 MB of newlines in a few KB
    assert bomb.stat().st_size * files.DECOMPRESSED_RATIO < (24 << 20)
    for argv in (("check", bomb), ("explain", bomb), ("fleet", bomb)):
        p = xladoctor(*argv, XLADOCTOR_MAX_INPUT_BYTES=str(1 << 20))
        assert "decompression bomb" in p.stdout + p.stderr, (argv, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr
        if argv[0] != "fleet":  # fleet reports the file's error in its summary and goes on
            assert p.returncode == 2 and p.stderr.startswith(f"{bomb}:1:1: ") and p.stderr.count("\n") == 1


@NEEDS_ZSTD
def test_a_bomb_on_stdin_stops_at_the_input_bound(tmp_path):
    data = zstd_compress(b"\n" * (8 << 20), 19)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path),
           "XLADOCTOR_MAX_INPUT_BYTES": str(1 << 20)}
    p = subprocess.run([sys.executable, "-m", "xladoctor", "explain", "-"], input=data, capture_output=True,
                       timeout=120, env=env)
    assert p.returncode == 2 and b"decompression bomb" in p.stderr and p.stderr.count(b"\n") == 1, p.stderr


@NEEDS_ZSTD
@pytest.mark.parametrize("damage", ["cut", "flipped", "bad-frame-header"])
def test_a_cut_or_corrupt_zstd_stream_is_one_located_line(tmp_path, damage):
    good = zstd_compress(LOG.read_bytes())
    data = {"cut": good[: len(good) // 2],
            "flipped": good[:20] + bytes(b ^ 0x5A for b in good[20:60]) + good[60:],
            "bad-frame-header": b"(\xb5/\xfd\xff\xff\xff\xff" + b"\1" * 16}[damage]
    path = tmp_path / "job.log.zst"
    path.write_bytes(data)
    for command in ("check", "explain"):
        p = xladoctor(command, path)
        assert p.returncode == 2, (command, damage, p.stdout, p.stderr)
        assert p.stderr.startswith(f"{path}:1:1: cannot decompress") and p.stderr.count("\n") == 1, p.stderr


@NEEDS_ZSTD
def test_several_frames_are_read_as_one_stream_like_zstd_d(tmp_path):
    text = LOG.read_bytes()
    half = text.index(b"\n", len(text) // 2) + 1
    path = tmp_path / "job.log.zst"
    path.write_bytes(zstd_compress(text[:half]) + zstd_compress(text[half:]))
    with files.open_input(str(path)) as f:
        assert f.read() == text
    p = xladoctor("explain", path, "--format", "concise")
    assert p.returncode == 1 and "E0102" in p.stdout and "E1200" in p.stdout, p.stdout


def test_without_the_extra_a_zst_is_refused_naming_it(tmp_path, monkeypatch):
    path = tmp_path / "job.log.zst"
    path.write_bytes(b"(\xb5/\xfd" + b"\0" * 16)
    for name in ("compression", "compression.zstd", "backports", "backports.zstd"):
        monkeypatch.setitem(sys.modules, name, None)  # 'from backports import zstd' halts: ImportError
    with pytest.raises(InputError) as e:
        files.open_input(str(path))
    assert str(e.value).startswith(f"{path}:1:1: is zstd-compressed") and "xladoctor[zstd]" in str(e.value)


@NEEDS_ZSTD
def test_the_module_used_is_the_standard_librarys_or_its_backport():
    assert ZSTD is not None
    assert ZSTD.__name__ == ("compression.zstd" if sys.version_info >= (3, 14) else "backports.zstd")
    assert files._zstd("x") is ZSTD
