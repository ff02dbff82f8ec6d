"""`check DIR`: every core, the same report as a serial run, and no file can hang, escape or stop the run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from log_corpus import write_log
from xladoctor.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200_HLO = EXAMPLES / "e1200_offloaded_activation.hlo"


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def dump(tmp_path):
    d = tmp_path / "dump"
    (d / "sub").mkdir(parents=True)
    for p in EXAMPLES.iterdir():
        shutil.copy(p, d / p.name)
    shutil.copy(E1200_HLO, d / "sub" / "z_module.hlo")
    for seed in range(3):
        write_log(d / "sub" / f"job{seed}.log", 800, seed, error_every=60)
    return d


def test_parallel_report_equals_serial(dump, jax_hlo_corpus, capsys):
    shutil.copytree(jax_hlo_corpus.root / "dump", dump / "jax")
    _, serial, _ = run(["check", str(dump), "--json", "--jobs", "1"], capsys)
    _, parallel, _ = run(["check", str(dump), "--json", "--jobs", "2"], capsys)
    assert serial == parallel
    doc = json.loads(parallel)
    assert doc["findings"] > 5 and len(doc["files"]) > 20
    paths = [f["path"] for f in doc["files"]]
    top = [p for p in paths if Path(p).parent == dump]
    assert paths[:len(top)] == sorted(top)  # a directory's files first, sorted, then its subdirectories


def test_fifo_device_and_socket_are_skipped_not_waited_on(dump, tmp_path):
    os.mkfifo(dump / "stuck.fifo")
    import socket
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(dump / "s.sock"))
    os.symlink("/dev/zero", dump / "zero")
    try:
        p = subprocess.run([sys.executable, "-m", "xladoctor", "check", str(dump), "--json"], capture_output=True,
                           text=True, timeout=120)
    finally:
        sock.close()
    doc = json.loads(p.stdout)
    notes = {Path(f["path"]).name: f.get("note", "") for f in doc["files"] if f["kind"] == "skipped"}
    assert notes["stuck.fifo"] == "fifo, not a regular file"
    assert notes["s.sock"] == "socket, not a regular file"
    assert notes["zero"] == "symlink that leads out of the directory (not followed)"
    assert f"{dump / 'stuck.fifo'}: fifo, not a regular file" in subprocess.run(
        [sys.executable, "-m", "xladoctor", "check", str(dump)], capture_output=True, text=True, timeout=120).stdout
    assert p.returncode == 1 and doc["input_errors"] == 0


def test_symlinks_never_leave_the_directory(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(E1200_HLO, outside / "secret.hlo")
    d = tmp_path / "dump"
    (d / "inner").mkdir(parents=True)
    shutil.copy(E1200_HLO, d / "inner" / "real.hlo")
    os.symlink(outside / "secret.hlo", d / "a_out.hlo")
    os.symlink(outside, d / "b_outdir")
    os.symlink(d / "inner" / "real.hlo", d / "c_in.hlo")
    os.symlink(d, d / "inner" / "loop")
    code, out, _ = run(["check", str(d), "--json"], capsys)
    files = {Path(f["path"]).name: f for f in json.loads(out)["files"]}
    assert files["a_out.hlo"]["kind"] == "skipped" and "out of the directory" in files["a_out.hlo"]["note"]
    assert files["b_outdir"]["kind"] == "skipped"
    assert files["loop"]["kind"] == "skipped" and "directory" in files["loop"]["note"]
    assert files["c_in.hlo"]["kind"] == "hlo" and files["real.hlo"]["kind"] == "hlo"
    assert "secret.hlo" not in files and code == 1


def test_one_bad_file_never_stops_the_run(tmp_path, capsys, monkeypatch):
    d = tmp_path / "dump"
    d.mkdir()
    (d / "a_broken.hlo").write_text("HloModule m\nENTRY e {\n  p = f32[2,3]{1} parameter(0), metadata={op_name=\"S(5)\"}\n}\n")
    (d / "b_binary.hlo").write_bytes(b"HloModule m\n\xff\xfe MoveToHost")
    (d / "c_crash.hlo").write_text(E1200_HLO.read_text().replace("jit_train_step", "crash_me"))
    shutil.copy(E1200_HLO, d / "d_real.hlo")
    from xladoctor.route import hlo_text as stream

    real = stream.check_hlo

    def sometimes_crash(text, source, rule, *rest):
        if "crash_me" in text:
            raise ZeroDivisionError("simulated bug")
        return real(text, source, rule, *rest)

    monkeypatch.setattr(stream, "check_hlo", sometimes_crash)
    code, out, err = run(["check", str(d), "--jobs", "1"], capsys)
    assert code == 2  # worst of findings (1) and input errors (2)
    assert f"{d / 'a_broken.hlo'}:3:15: Dimensions size is 2" in err
    assert f"{d / 'b_binary.hlo'}:2:1: not UTF-8 text (byte 0xff)" in err
    assert "c_crash.hlo:1:1: internal error while checking this file: ZeroDivisionError: simulated bug" in err
    assert "E1200 predicted for output {0}" in out and "d_real.hlo" in out
    assert "1 file checked, 1 finding" in out and "3 could not be read" in out


def test_a_crashed_worker_costs_only_its_own_file():
    from xladoctor.base.parallel import map_isolated

    done = []
    results = map_isolated(_die_on_three, [(i,) for i in range(6)], 2, lambda: done.append(1),
                           lambda args, why: ("crashed", args[0]))
    assert results == [0, 10, 20, ("crashed", 3), 40, 50] and len(done) == 6


def _die_on_three(i: int) -> int:
    if i == 3:
        os._exit(7)
    return 10 * i


def test_unreadable_directory_is_reported(dump, capsys, monkeypatch):
    real = os.scandir

    def scandir(path):
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _out, err = run(["check", str(dump), "--jobs", "1"], capsys)
    assert code == 2 and f"{dump / 'sub'}:1:1: cannot read directory: Permission denied" in err


def test_missing_file_is_not_counted_as_checked(tmp_path, capsys):
    code, out, err = run(["check", str(tmp_path / "nope.hlo")], capsys)
    assert code == 2 and "0 files checked" in out and "could not be read" in out
    assert err.strip() == f"{tmp_path / 'nope.hlo'}:1:1: cannot read file: No such file or directory"


def test_a_fifo_named_on_the_command_line_is_read_as_a_stream(tmp_path):
    fifo = tmp_path / "job.fifo"
    os.mkfifo(fifo)
    cmd = f"{sys.executable} -m xladoctor check {fifo} & cat {EXAMPLES / 'tpu_job.log'} > {fifo}; wait"
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert "E0102 RuntimeProgramInputMismatch" in p.stdout and "E1200" in p.stdout, p.stderr


def test_progress_bar_only_on_a_terminal(dump):
    import io

    from xladoctor.base.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    bar = Progress(3, "files checked", stream=tty)
    for _ in range(3):
        bar.advance()
    bar.close()
    assert "3/3 files checked" in tty.getvalue() and tty.getvalue().endswith("\r\x1b[K")
    assert not Progress(3, "x", stream=Tty(), enabled=False).enabled  # --json
    p = subprocess.run([sys.executable, "-m", "xladoctor", "check", str(dump)], capture_output=True, text=True,
                       timeout=120)
    assert "\r" not in p.stderr and "\r" not in p.stdout


def test_a_module_behind_a_byte_order_mark_is_still_analysed(tmp_path, capsys):
    bom = tmp_path / "bom.hlo"
    bom.write_bytes(b"\xef\xbb\xbf" + E1200_HLO.read_bytes())
    code, out, _ = run(["check", str(bom)], capsys)
    assert code == 1 and "E1200 predicted for output {0}" in out


_IN_DAEMON = """
import json, multiprocessing, sys
from xladoctor.cli.main import main

def work(argv, q):
    import io
    from contextlib import redirect_stderr, redirect_stdout
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(argv)
    q.put((rc, out.getvalue(), err.getvalue()))

if __name__ == "__main__":
    q = multiprocessing.get_context("fork").Queue()
    p = multiprocessing.get_context("fork").Process(target=work, args=(sys.argv[1:], q), daemon=True)
    p.start()
    print(json.dumps(q.get(timeout=120)))
    p.join()
"""


def test_check_dir_inside_a_daemonic_worker_runs_in_process(dump, capsys):
    """A multiprocessing.Pool worker may not start processes: check runs its files in-process there."""
    code, serial, _ = run(["check", "--json", "--jobs", "1", str(dump)], capsys)
    proc = subprocess.run([sys.executable, "-c", _IN_DAEMON, "check", "--json", "--jobs", "2", str(dump)],
                          capture_output=True, text=True, timeout=180)
    rc, out, err = json.loads(proc.stdout)
    assert "internal error" not in err, err
    assert (rc, json.loads(out)) == (code, json.loads(serial))
