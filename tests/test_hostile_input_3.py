"""Issue 35's third hostile round: what is new since the last one, attacked as a hostile tester would.

``--confirm --run`` and ``--seed``, the companion StableHLO resolver, compressed inputs, ``--fix``
in place, ``check DIR``, configuration and ``--json`` on error paths.  Each test here failed on the
code before its fix; the contract is the one of docs/robustness.md: exit 2 with one located line
(never a traceback, a hang, an orphan process or a damaged file).
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from xladoctor.oracle.run_chip import ChipRunner

EXAMPLE = files("xladoctor") / "examples" / "e1200_offloaded_activation.hlo"
SRC = str(Path(__file__).resolve().parents[1] / "src")
STAND_IN = [sys.executable, str(Path(__file__).with_name("chip_stand_in.py"))]


def cli(*argv: str, cwd: str | os.PathLike | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The command in a child process, 60 s at most, without a chip."""
    full_env = {**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu", "XLADOCTOR_NO_CHIP": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "xladoctor", *argv], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=full_env, timeout=60, cwd=cwd)


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ --confirm --run, --seed


@pytest.mark.parametrize("seed", ["-1", str(1 << 64), "1e3"])
def test_a_seed_numpy_cannot_take_is_a_usage_error_before_any_chip_is_asked(seed):
    # before: -1 passed argparse and raised ValueError inside the chip's worker, in the run
    result = cli("offload", str(EXAMPLE), "--confirm", "--run", f"--seed={seed}", "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert "argument --seed: invalid seed value" in one_line(result.stderr)


def test_a_worker_that_raises_in_the_run_is_a_crash_not_a_timeout():
    # before: its replies ended at once but it was still printing its traceback 50 ms later,
    # so a worker that died in 0.5 s was reported as one that outran a 60 s timeout
    with ChipRunner("cpu", timeout=60, command=[*STAND_IN, "die-run"]) as runner:
        reply = runner.judge("hlo", EXAMPLE.read_text(), run=True)
    assert reply["run"]["outcome"] == "crash", reply
    assert "ValueError: the stand-in raises" in reply["run"]["error"]


# ------------------------------------------------------------------ the companion StableHLO


def test_a_device_named_as_the_companion_is_refused_not_read_without_end():
    # before: --stablehlo /dev/zero was read whole with f.read() until the kernel killed it
    result = cli("offload", str(EXAMPLE), "--stablehlo", "/dev/zero")
    assert result.returncode == 2
    assert one_line(result.stderr).startswith("/dev/zero:1:1: is a character device")


def test_a_companion_past_the_input_bound_is_refused(tmp_path):
    small = tmp_path / "m.hlo"
    small.write_text("HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }\n")
    big = tmp_path / "big.mlir"
    big.write_text("func.func public @main() {\n" + "//" + "x" * 5000 + "\n}\n")
    result = cli("offload", str(small), "--stablehlo", str(big), env={"XLADOCTOR_MAX_INPUT_BYTES": "1000"})
    assert result.returncode == 2
    assert one_line(result.stderr).startswith(f"{big}:1:1: input is larger than 1,000 bytes")


# ------------------------------------------------------------------ compressed inputs


@pytest.mark.parametrize("command", ["explain", "check", "fleet"])
def test_a_corrupt_xz_is_a_located_error_not_an_internal_one(tmp_path, command):
    # before: lzma raises LZMAError, which is no OSError: "internal error ... LZMAError"
    bad = tmp_path / "job.log.xz"
    bad.write_bytes(b"garbage, not xz")
    result = cli(command, str(bad))
    assert result.returncode == 2
    assert one_line(result.stderr) == f"{bad}:1:1: cannot decompress: Input format not supported by decoder"


# ------------------------------------------------------------------ --fix in place


def _gzipped_module(path: Path) -> bytes:
    import gzip

    data = gzip.compress(EXAMPLE.read_bytes())
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("name", ["m.hlo.gz", "m.hlo"])  # by its suffix, and by its magic alone
def test_offload_fix_in_place_never_writes_text_over_a_compressed_file(tmp_path, name):
    # before: "1 fixed" and the .gz held plain text, which no gzip reader (this one included) takes
    target = tmp_path / name
    before = _gzipped_module(target)
    result = cli("offload", str(target), "--fix", "host")
    assert result.returncode == 2
    assert one_line(result.stderr).startswith(f"{target}:1:1: is gzip-compressed and --fix writes the module as text")
    assert target.read_bytes() == before


def test_check_fix_on_a_folder_writes_nothing_when_one_file_is_compressed(tmp_path):
    # before: the .gz was overwritten with text and then reported as unreadable ("Not a gzipped file")
    plain = tmp_path / "a.hlo"
    plain.write_bytes(EXAMPLE.read_bytes())
    before = _gzipped_module(tmp_path / "b.hlo.gz")
    result = cli("check", str(tmp_path), "--fix")
    assert result.returncode == 2
    assert "is gzip-compressed and --fix writes the module as text" in one_line(result.stderr)
    assert (tmp_path / "b.hlo.gz").read_bytes() == before and plain.read_bytes() == EXAMPLE.read_bytes()


def test_offload_fix_in_place_keeps_an_edit_made_while_it_analysed(tmp_path, monkeypatch, capsys):
    # before: the fix of the old text was renamed over the file, and the edit made meanwhile was lost
    from xladoctor.cli.main import main
    from xladoctor.route import module_analysis  # offload's route analyses the module there

    target = tmp_path / "m.hlo"
    target.write_bytes(EXAMPLE.read_bytes())
    edited = EXAMPLE.read_text() + "\n// an edit made meanwhile\n"
    analyse = module_analysis.analyse_module

    def analyse_while_edited(*args, **kwargs):
        target.write_text(edited)
        return analyse(*args, **kwargs)

    monkeypatch.setattr(module_analysis, "analyse_module", analyse_while_edited)
    assert main(["offload", str(target), "--fix", "host"]) == 2
    assert "changed on disk while it was checked: nothing was written" in one_line(capsys.readouterr().err)
    assert target.read_text() == edited


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize("nested", ["x = " + "[" * 5000 + "]" * 5000, "x = " + "{a=" * 3000 + "1" + "}" * 3000])
@pytest.mark.parametrize("name", ["pyproject.toml", "xladoctor.toml"])
def test_a_config_nested_past_the_recursion_limit_is_a_located_error(tmp_path, nested, name):
    # before: tomllib's RecursionError was "internal error while running 'check'"
    (tmp_path / name).write_text(nested + "\n")
    (tmp_path / "m.hlo").write_bytes(EXAMPLE.read_bytes())
    result = cli("check", "m.hlo", cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr) == (f"{tmp_path / name}:1:1: cannot read [tool.xladoctor]: "
                                       "arrays or inline tables nested too deeply")


# ------------------------------------------------------------------ deep nesting in HLO


def _nested_negates(depth: int) -> str:
    return ("HloModule m\nENTRY e { ROOT n = " + "f32[2] negate(" * depth + "f32[2] parameter(0)" + ")" * depth
            + " }\n")


@pytest.mark.parametrize("command", ["hlo", "offload"])
def test_operands_nested_past_the_recursion_limit_are_a_located_error(tmp_path, command):
    # before: 250 levels of `negate(negate(...))` were an internal RecursionError in hlo and offload
    deep = tmp_path / "deep.hlo"
    deep.write_text(_nested_negates(3000))
    result = cli(command, str(deep))
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert line.startswith(f"{deep}:2:") and "nested as operands more than 100 levels deep" in line


def test_operands_nested_to_the_bound_are_still_read(tmp_path):
    ok = tmp_path / "ok.hlo"
    ok.write_text(_nested_negates(100))
    result = cli("hlo", str(ok))
    assert result.returncode == 0, result.stderr


# ------------------------------------------------------------------ the pytest plugin


def test_the_plugin_refuses_an_unknown_platform_once_at_start(tmp_path):
    # before: accepted, then every test using the fixture failed with check_offload's ValueError
    (tmp_path / "test_x.py").write_text("def test_x(xladoctor_offload):\n    pass\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_x.py",
                             "--xladoctor-platform=frob"], capture_output=True, text=True, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu"}, timeout=120)
    assert result.returncode == 4  # pytest's usage error
    assert "argument --xladoctor-platform: invalid choice: 'frob'" in result.stderr


def test_the_plugin_knows_the_platforms_check_offload_takes():
    pytest.importorskip("jax")  # xladoctor.jax imports and starts jax
    from xladoctor.jax.offload_check import PLATFORMS
    from xladoctor.testing import pytest_plugin

    assert pytest_plugin.PLATFORMS == PLATFORMS


# ------------------------------------------------------------------ outputs over the companion


@pytest.mark.parametrize("argv", [("offload", "step.hlo", "--fix", "host", "-o", "step.mlir"),
                                  ("offload", "step.hlo", "--html", "./step.mlir"),
                                  ("check", "step.hlo", "--html", "step.mlir"),
                                  ("check", ".", "--html", "step.mlir")])
def test_an_output_never_replaces_the_stablehlo_read_beside_the_module(tmp_path, argv):
    # before: the NAME.mlir found beside NAME.hlo was read, then replaced by the fixed module or the report
    (tmp_path / "step.hlo").write_bytes(EXAMPLE.read_bytes())
    mlir = b"func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n}\n"
    (tmp_path / "step.mlir").write_bytes(mlir)
    result = cli(*argv, cwd=tmp_path)
    assert result.returncode == 2
    assert "refusing to write over the input file" in one_line(result.stderr)
    assert (tmp_path / "step.mlir").read_bytes() == mlir


def test_check_fix_keeps_an_edit_made_while_it_checked(tmp_path, monkeypatch, capsys):
    # before: the fix's line edits, computed on the text the check read, were applied to the new text
    from xladoctor.cli.main import main
    from xladoctor.route import dispatch as stream

    target = tmp_path / "m.hlo"
    target.write_bytes(EXAMPLE.read_bytes())
    edited = "// an edit made meanwhile\n" + EXAMPLE.read_text()
    check = stream.check_path

    def check_while_edited(*args, **kwargs):
        entry = check(*args, **kwargs)
        target.write_text(edited)
        return entry

    monkeypatch.setattr(stream, "check_path", check_while_edited)
    assert main(["check", str(target), "--fix", "--jobs", "1"]) == 2
    assert "changed on disk while it was checked: nothing was written" in one_line(capsys.readouterr().err)
    assert target.read_text() == edited


# ------------------------------------------------------------------ stdin named twice


@pytest.mark.parametrize("argv", [("offload", "-", "--stablehlo", "-"), ("hlo", "-", "--stablehlo", "-"),
                                  ("explain", "-", "--hlo", "-")])
def test_stdin_named_for_two_inputs_is_one_usage_error(argv):
    # before: the second read found stdin empty and refused it as content ("not StableHLO text")
    full_env = {**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu"}
    with open(EXAMPLE, "rb") as stdin:
        result = subprocess.run([sys.executable, "-m", "xladoctor", *argv], stdin=stdin, capture_output=True,
                                text=True, env=full_env, timeout=60)
    assert result.returncode == 2
    assert one_line(result.stderr) == "xladoctor: only one input can be read from stdin"


# ------------------------------------------------------------------ --jobs


def test_a_huge_jobs_count_starts_no_more_workers_than_files(tmp_path):
    # before: the fork pool started every one of --jobs' workers at once (24 processes for -j 24 on
    # two files; -j 100000 would have forked 100,000)
    psutil = pytest.importorskip("psutil")
    import time

    for name in ("a.hlo", "b.hlo"):
        (tmp_path / name).write_bytes(EXAMPLE.read_bytes())
    env = {**os.environ, "PYTHONPATH": SRC, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen([sys.executable, "-m", "xladoctor", "check", "--full", "-j", "24", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    me, most, deadline = psutil.Process(proc.pid), 0, time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            most = max(most, len(me.children(recursive=True)))
        except psutil.Error:
            pass
        time.sleep(0.01)
    assert proc.wait(timeout=60) == 1
    assert 0 < most <= 2


def test_fix_output_and_html_report_on_one_path_is_a_usage_error(tmp_path):
    # before: both were written to it, the second replacing the first ("1 fixed" and no fixed module)
    result = cli("offload", str(EXAMPLE), "--fix", "host", "-o", "same.out", "--html", "./same.out", cwd=tmp_path)
    assert result.returncode == 2
    assert one_line(result.stderr) == "xladoctor: -o and --html name the same file: the second write would replace the first"
    assert not (tmp_path / "same.out").exists()


def test_a_worker_silent_at_start_is_not_started_twice_more(monkeypatch):
    # before: a worker with no answer in START_TIMEOUT (libtpu hanging on a device that does not
    # answer) was started twice more, 5 s apart: three times the timeout (15 minutes by default)
    import time

    from xladoctor.oracle import run_chip

    monkeypatch.setattr(run_chip, "START_TIMEOUT", 1.0)
    started = time.monotonic()
    with ChipRunner("tpu", timeout=60, command=[*STAND_IN, "hang-start"]) as runner:
        reply = runner.judge("hlo", EXAMPLE.read_text(), run=True)
    assert reply["chip"] is None and reply["why"]
    assert time.monotonic() - started < 5.0


def _inline_reduces(depth: int) -> str:
    body = "{ a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }"
    for _ in range(depth):
        body = ("{ a = f32[] parameter(0)\n b = f32[] parameter(1)\n c = f32[] constant(0)\n"
                " ROOT s = f32[] reduce(a, c), dimensions={}, to_apply=" + body + " }")
    return ("HloModule m\nENTRY e { p = f32[4] parameter(0)\n z = f32[] constant(0)\n"
            " ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=" + body + " }\n")


def test_computations_nested_inline_past_the_recursion_limit_are_a_located_error(tmp_path):
    # before: to_apply={... to_apply={...}} 3,000 deep was an internal RecursionError
    deep = tmp_path / "deep.hlo"
    deep.write_text(_inline_reduces(3000))
    result = cli("hlo", str(deep))
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert line.startswith(f"{deep}:") and "computations nested inline more than 100 levels deep" in line
    ok = tmp_path / "ok.hlo"
    ok.write_text(_inline_reduces(99))
    assert cli("hlo", str(ok)).returncode == 0


def test_the_all_codes_off_note_is_in_the_reports_language(tmp_path):
    # before: English under --lang fa, the one line that says why the report is empty
    (tmp_path / "m.hlo").write_bytes(EXAMPLE.read_bytes())
    result = cli("check", "m.hlo", "--select=", "--lang", "fa", cwd=tmp_path)
    assert result.returncode == 0
    assert "همهٔ کدهای خطای XLA (E...) را خاموش می‌کنند" in result.stderr.splitlines()[0]
