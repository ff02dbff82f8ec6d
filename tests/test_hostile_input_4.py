"""Issue 35's leftovers from the third hostile round, each with a test that failed before its fix.

``--fix`` in place keeps the file's inode (a hard link is not split; a symlink fixes the file it
names) and puts the original bytes back when a write fails midway; a symlinked companion
``NAME.mlir`` is used or refused in words, never ignored; ``fleet`` on a path the system refuses
says why.  The contract is docs/robustness.md's: exit 2 with one located line, no damaged file.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

EXAMPLE = files("xladoctor") / "examples" / "e1200_offloaded_activation.hlo"
SRC = str(Path(__file__).resolve().parents[1] / "src")


def cli(*argv: str, cwd: str | os.PathLike | None = None) -> subprocess.CompletedProcess:
    """The command in a child process, 60 s at most, without a chip."""
    env = {**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu", "XLADOCTOR_NO_CHIP": "1", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "xladoctor", *argv], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=60, cwd=cwd)


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return lines[0]


def _fixed_by_offload(data: bytes, tmp_path: Path) -> bytes:
    """What ``offload --fix host -o`` writes for ``data``: the bytes an in-place fix must leave."""
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "m.hlo").write_bytes(data)
    out = cli("offload", "m.hlo", "--fix", "host", "-o", "f.hlo", cwd=tmp_path / "ref")
    assert out.returncode == 0, out.stderr
    return (tmp_path / "ref" / "f.hlo").read_bytes()


# ------------------------------------------------------------------ --fix in place keeps the inode

FIX_COMMANDS = {"offload": ["offload", "m.hlo", "--fix", "host"], "check": ["check", "m.hlo", "--fix", "--unsafe-fixes"]}


@pytest.mark.parametrize("command", FIX_COMMANDS)
@pytest.mark.parametrize("newline", ["lf", "crlf"])
def test_fix_in_place_keeps_a_hard_link_shared(tmp_path, command, newline):
    # before: the fixed text was renamed over m.hlo, a new inode; other.hlo kept the old text
    data = EXAMPLE.read_bytes()
    data = data.replace(b"\n", b"\r\n") if newline == "crlf" else data
    want = _fixed_by_offload(data, tmp_path)
    target = tmp_path / "m.hlo"
    target.write_bytes(data)
    os.link(target, tmp_path / "other.hlo")
    inode = target.stat().st_ino
    result = cli(*FIX_COMMANDS[command], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert target.stat().st_ino == inode == (tmp_path / "other.hlo").stat().st_ino
    assert target.read_bytes() == (tmp_path / "other.hlo").read_bytes() == want != data
    if newline == "crlf":
        assert want.count(b"\n") == want.count(b"\r\n")


@pytest.mark.parametrize("command", FIX_COMMANDS)
def test_fix_through_a_symlink_fixes_the_file_it_names(tmp_path, command):
    data = EXAMPLE.read_bytes()
    want = _fixed_by_offload(data, tmp_path)
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "module.hlo"
    real.write_bytes(data)
    (tmp_path / "m.hlo").symlink_to(real)
    result = cli(*FIX_COMMANDS[command], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "m.hlo").is_symlink() and os.readlink(tmp_path / "m.hlo") == str(real)
    assert real.read_bytes() == want


@pytest.mark.parametrize("command", FIX_COMMANDS)
def test_fix_in_place_refuses_a_read_only_file(tmp_path, command):
    target = tmp_path / "m.hlo"
    target.write_bytes(EXAMPLE.read_bytes())
    target.chmod(0o444)
    result = cli(*FIX_COMMANDS[command], cwd=tmp_path)
    assert result.returncode == 2
    assert "the file is read-only (mode 0444)" in one_line(result.stderr)
    assert target.read_bytes() == EXAMPLE.read_bytes() and stat.S_IMODE(target.stat().st_mode) == 0o444


def _failing_midway(monkeypatch, failure: BaseException) -> None:
    """``os.pwrite`` writes the first half of the fixed text, then fails; later writes (the
    restore) go through."""
    real = os.pwrite
    calls = []

    def pwrite(fd: int, data, offset: int) -> int:
        calls.append(offset)
        if len(calls) == 1:
            real(fd, bytes(data[: len(data) // 2]), offset)
            raise failure
        return real(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", pwrite)


@pytest.mark.parametrize("command", FIX_COMMANDS)
@pytest.mark.parametrize("failure", [OSError(errno.EIO, "Input/output error"), KeyboardInterrupt()],
                         ids=["EIO", "ctrl-c"])
def test_a_fix_in_place_that_fails_midway_puts_the_original_back(tmp_path, monkeypatch, capsys, command, failure):
    from xladoctor.cli.main import main

    data = EXAMPLE.read_bytes().replace(b"\n", b"\r\n")
    target = tmp_path / "m.hlo"
    target.write_bytes(data)
    os.link(target, tmp_path / "other.hlo")
    monkeypatch.chdir(tmp_path)
    _failing_midway(monkeypatch, failure)
    code = main(FIX_COMMANDS[command])
    assert target.read_bytes() == (tmp_path / "other.hlo").read_bytes() == data
    if isinstance(failure, KeyboardInterrupt):
        assert code == 130
    else:
        assert code == 2
        assert one_line(capsys.readouterr().err) == (
            "m.hlo:1:1: cannot write module with fix (host): Input/output error; the file was left as it was")


def test_a_full_disk_fails_before_a_byte_of_the_file_is_written(tmp_path, monkeypatch, capsys):
    from xladoctor.cli.main import main

    target = tmp_path / "m.hlo"
    target.write_bytes(EXAMPLE.read_bytes())
    writes, real_pwrite = [], os.pwrite
    monkeypatch.setattr(os, "pwrite", lambda fd, data, offset: writes.append(bytes(data)) or real_pwrite(fd, data, offset))

    def full(fd: int, offset: int, length: int) -> None:
        assert offset == len(EXAMPLE.read_bytes()) and length > 0  # only what the file grows by
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    assert main(["offload", str(target), "--fix", "host"]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"{target}:1:1: cannot write module with fix (host): No space left on device; the file was left as it was")
    assert target.read_bytes() == EXAMPLE.read_bytes()
    assert writes == [EXAMPLE.read_bytes()]  # none but the restore of the original bytes


def test_check_fix_never_writes_a_text_that_does_not_parse(tmp_path, monkeypatch, capsys):
    # before: check --fix wrote the edited text without parsing it back
    from xladoctor.cli.main import main
    from xladoctor.route import fix as fixing

    target = tmp_path / "m.hlo"
    target.write_bytes(EXAMPLE.read_bytes())
    monkeypatch.setattr(fixing, "apply_fix", lambda text, fix: text.replace("ENTRY", "ENTRY ENTRY", 1))
    assert main(["check", str(target), "--fix", "--unsafe-fixes"]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"{target}:1:1: the fixed module would not parse back; nothing was written "
        "(a bug in xladoctor's fix, please report it)")
    assert target.read_bytes() == EXAMPLE.read_bytes()


# ------------------------------------------------------------------ fleet on a path the system refuses


@pytest.mark.parametrize("shape", ["name", "path", "glob-root", "deep-glob-root"])
def test_fleet_on_a_path_too_long_says_so(tmp_path, shape):
    # before: "no file matches '...'", as if the file were merely absent
    long_name = "a" * 300
    (tmp_path / "d").mkdir()
    pattern, named = {
        "name": (f"{long_name}.log", f"{long_name}.log"),
        "path": ("/".join(["d"] + ["b" * 200] * 25) + "/x.log", "/".join(["d"] + ["b" * 200] * 25) + "/x.log"),
        "glob-root": (f"d/{long_name}/x*.log", f"d/{long_name}"),
        "deep-glob-root": (f"d/{long_name}/**/x.log", f"d/{long_name}"),
    }[shape]
    what = "folder" if "glob" in shape else "file"
    result = cli("fleet", pattern, cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr) == f"{named}:1:1: cannot read {what}: File name too long"


def test_fleet_on_an_absent_file_still_says_no_file_matches(tmp_path):
    result = cli("fleet", "absent.log", "absent/*.log", cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr) == "xladoctor: no file matches 'absent.log' 'absent/*.log'"
