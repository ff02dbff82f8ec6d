"""The console script ends with ``os._exit`` once the command is done (cli/console.py), and owns the
collector (base/collector.own_heap): nothing it wrote, printed or started may be lost on the way.

Each case runs the real entry points in a child process: ``python -m xladoctor`` and the code the
installed console script runs (``sys.exit(xladoctor.cli.console.main())``, the name pyproject.toml
gives it), and compares what they print, write and return with ``main()`` called in-process, which
still returns and exits as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the core dependency tomli is the same parser
    import tomli as tomllib

from xladoctor.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"
SCRIPT = "import sys\nfrom xladoctor.cli.console import main\nsys.argv[0] = 'xladoctor'\nsys.exit(main())\n"
"""What pip's generated ``xladoctor`` script runs, for the entry point pyproject.toml names."""

ENTRIES = {"-m": ["-m", "xladoctor"], "script": ["-c", SCRIPT]}


def _run(entry: str, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *ENTRIES[entry], *map(str, argv)], capture_output=True, timeout=300,
                          **kwargs)


def _in_process(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """24 modules with an E1200 each: ``check --json`` prints ~0.3 MB, more than a pipe holds."""
    d = tmp_path_factory.mktemp("modules")
    text = EXAMPLE.read_text()
    for i in range(24):
        (d / f"m{i:02d}.hlo").write_text(text.replace("HloModule ", f"HloModule m{i}_", 1))
    return d


def test_pyproject_names_the_console_entry():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["xladoctor"] == "xladoctor.cli.console:main"


_TEARDOWN_PROBE = """
import atexit, sys
class Probe:
    def __del__(self):
        sys.stderr.write("torn down\\n")
probe = Probe()
atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
{thread}
from xladoctor.cli.{module} import main
sys.argv = ["xladoctor", "offload", {example!r}]
sys.exit(main())
"""


def _probe(module: str, thread: str = "") -> subprocess.CompletedProcess:
    code = _TEARDOWN_PROBE.format(module=module, thread=thread, example=str(EXAMPLE))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_console_entry_skips_the_teardown_but_runs_atexit_handlers():
    ended = _probe("console")
    assert ended.returncode == 1 and "E1200" in ended.stdout
    assert "atexit ran" in ended.stderr and "torn down" not in ended.stderr
    plain = _probe("main")  # main() itself: an ordinary exit, the heap torn down
    assert plain.returncode == 1 and plain.stdout == ended.stdout
    assert "atexit ran" in plain.stderr and "torn down" in plain.stderr


def test_a_running_thread_leaves_the_exit_to_python():
    thread = ("import threading, time\n"
              "threading.Thread(target=lambda: (time.sleep(3), print('thread done', flush=True))).start()")
    ended = _probe("console", thread)
    assert ended.returncode == 1 and "thread done" in ended.stdout
    assert "torn down" in ended.stderr  # waited for the thread, then Python's own exit


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("argv", [["offload", EXAMPLE], ["offload", EXAMPLE, "--json"], ["hlo", EXAMPLE],
                                  ["hlo", EXAMPLE, "--json"], ["check", EXAMPLE], ["shape", "f32[8,128]{1,0}"]],
                         ids=["offload", "offload-json", "hlo", "hlo-json", "check", "shape"])
def test_every_byte_printed_and_the_exit_code(entry, argv, capsys):
    code, out, err = _in_process(capsys, argv)
    ended = _run(entry, argv)
    assert (ended.returncode, ended.stdout.decode(), ended.stderr.decode()) == (code, out, err)


def test_a_large_document_through_a_pipe_is_whole(folder, capsys):
    code, out, _ = _in_process(capsys, ["check", folder, "--json", "--jobs", "1"])
    assert len(out) > 200_000
    ended = _run("-m", ["check", folder, "--json", "--jobs", "1"])
    assert ended.returncode == code == 1 and ended.stdout.decode() == out


def _first_line_then_close(entry: str, argv: list[str]) -> tuple[int, bytes, bytes]:
    """``xladoctor ... | head -1``: read one line, close the pipe, let the writer find it closed."""
    proc = subprocess.Popen([sys.executable, *ENTRIES[entry], *map(str, argv)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), first, err


def test_a_closed_pipe_ends_as_an_ordinary_exit_does(folder):
    """``| head -1``: the exit code and stderr of the console entry are those of ``main()`` under
    Python's ordinary exit (the same child, ending through ``sys.exit``)."""
    argv = ["check", folder, "--json", "--jobs", "1"]
    plain = "import sys\nfrom xladoctor.cli.main import main\nsys.argv[0] = 'xladoctor'\nsys.exit(main())\n"
    ENTRIES["plain"] = ["-c", plain]
    try:
        want = _first_line_then_close("plain", argv)
    finally:
        del ENTRIES["plain"]
    for entry in sorted(ENTRIES):
        assert _first_line_then_close(entry, argv) == want


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_files_written_are_whole(entry, tmp_path, capsys):
    """``-o`` (the fixed module) and ``--html`` (the page) are closed and complete at the exit."""
    argv = ["offload", EXAMPLE, "--fix", "device", "-o", tmp_path / "a.hlo", "--html", tmp_path / "a.html"]
    code, out, err = _in_process(capsys, argv)
    ended = _run(entry, [str(a).replace("a.", "b.") for a in argv])
    assert (ended.returncode, ended.stdout.decode(), ended.stderr.decode().replace("b.", "a.")) == (code, out, err)
    assert (tmp_path / "b.hlo").read_bytes() == (tmp_path / "a.hlo").read_bytes() != b""
    page = (tmp_path / "b.html").read_text()
    assert page == (tmp_path / "a.html").read_text() and page.rstrip().endswith("</html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.hlo", "a.html", "b.hlo", "b.html"]  # no temporary left


def _processes_with(marker: str) -> list[int]:
    """Processes of this user whose environment holds ``marker`` (the children of one run)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:  # gone, or another user's
                continue
            if marker.encode() in environ:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
@pytest.mark.parametrize("argv", [["check", "{folder}", "--jobs", "2"], ["check", "{folder}", "--json", "-j", "2"],
                                  ["fleet", "{folder}", "--jobs", "2"]], ids=["check", "check-json", "fleet"])
def test_worker_pools_end_with_the_run(argv, folder, capsys):
    argv = [a.format(folder=folder) for a in argv]
    code, out, err = _in_process(capsys, argv)
    marker = f"XLADOCTOR_H43X_{uuid.uuid4().hex}"
    ended = _run("-m", argv, env=dict(os.environ, **{marker: "1"}))
    assert (ended.returncode, ended.stdout.decode(), ended.stderr.decode()) == (code, out, err)
    deadline = time.monotonic() + 2  # a worker killed at the end is reaped by init, not at once
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(marker) == []


def test_fleet_on_a_dask_cluster_closes_its_client(folder, capsys):
    distributed = pytest.importorskip("distributed")
    argv = ["fleet", str(folder / "m0*.hlo"), "--json"]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        code, out, _ = _in_process(capsys, [*argv, "--scheduler", cluster.scheduler_address])
        ended = _run("-m", [*argv, "--scheduler", cluster.scheduler_address])
    assert ended.returncode == code == 1 and ended.stdout.decode() == out
    assert json.loads(out)["files"] == 10
