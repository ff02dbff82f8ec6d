"""The hooks of ``.pre-commit-hooks.yaml``, run by pre-commit itself (``pre-commit try-repo``
this repository) on a temporary git repository holding a clean module, an E1200 module and a
text file that is neither HLO nor a log.

``xladoctor-check`` (``language: python``) makes pre-commit build xladoctor from this
repository into its own virtualenv, which needs a package index: where none is reachable the
test skips and says so.  ``xladoctor-check-system`` runs the installed ``xladoctor`` and
needs nothing but this environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "src" / "xladoctor" / "examples"
NO_INDEX = "Could not find a version that satisfies the requirement"


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def user_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("pre-commit try-repo needs git and this checkout's git repository")
    repo = tmp_path_factory.mktemp("user_repo")
    shutil.copy(EXAMPLES / "offload_to_host_output_clean.hlo", repo / "clean.hlo")
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", repo / "step.hlo")
    (repo / "notes.txt").write_text("dumps of the training step, taken with --xla_dump_to\n")
    (repo / "README.md").write_text("not checked: E1200 in a README is prose\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "dumps")
    return repo


def _try_repo(repo: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"),
           "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])}
    selection = ["--files", *files] if files else ["--all-files"]
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, *selection],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def _check_verdicts(run_all: subprocess.CompletedProcess, run_clean: subprocess.CompletedProcess) -> None:
    out = run_all.stdout
    assert run_all.returncode == 1, out + run_all.stderr
    assert "Failed" in out and "exit code: 1" in out
    assert "== step.hlo" in out and "E1200 predicted for output {0}" in out
    assert "starting from tuple.7" in out
    assert "clean.hlo: HLO module jit_train_step (7 instructions), no host-offload error predicted" in out
    assert "notes.txt: no XLA error found" in out
    assert "README.md" not in _hook_output(out)  # only files matching the pattern are handed over
    assert "3 files checked, 1 finding" in out
    assert run_clean.returncode == 0, run_clean.stdout + run_clean.stderr
    assert "Passed" in run_clean.stdout


def test_system_hook_fails_on_e1200_and_passes_clean_files(user_repo: Path) -> None:
    _check_verdicts(_try_repo(user_repo, "xladoctor-check-system"),
                    _try_repo(user_repo, "xladoctor-check-system", "clean.hlo", "notes.txt", "README.md"))


def test_python_hook_installs_from_the_repository(user_repo: Path) -> None:
    run_all = _try_repo(user_repo, "xladoctor-check")
    if run_all.returncode != 1 and NO_INDEX in run_all.stdout + run_all.stderr + _log(user_repo):
        pytest.skip("pre-commit cannot build xladoctor into its virtualenv: no package index reachable")
    _check_verdicts(run_all, _try_repo(user_repo, "xladoctor-check", "clean.hlo", "notes.txt"))


def _hook_output(out: str) -> str:
    """What the hook printed: try-repo first prints the config it made, between lines of '='."""
    return re.split(r"^=+$", out, flags=re.M)[-1]


def _log(repo: Path) -> str:
    log = repo.parent / "pre-commit-home" / "pre-commit.log"
    return log.read_text(errors="replace") if log.exists() else ""


def test_a_file_named_like_an_option_is_checked_as_a_file(tmp_path: Path) -> None:
    """Issue 35: `xladoctor check --select=Z.txt` read the file name as an option (select code Z.TXT:
    nothing reported, the hook passed); the hook's entry ends with `--`, so it is checked as a file."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("pre-commit try-repo needs git and this checkout's git repository")
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(EXAMPLES / "tpu_job.log", repo / "--select=Z.txt")
    shutil.copy(EXAMPLES / "tpu_job.log", repo / "-j.log")
    _git(repo, "init", "-q")
    _git(repo, "add", "--", ".")
    _git(repo, "commit", "-qm", "logs")
    run = _try_repo(repo, "xladoctor-check-system")
    out = _hook_output(run.stdout)
    assert run.returncode == 1 and "exit code: 1" in out, run.stdout + run.stderr
    assert "== --select=Z.txt" in out and "== -j.log" in out and "2 files checked, 4 findings" in out
    assert "details: xladoctor explain ./--select=Z.txt" in out  # the hint names it as a path too


def test_options_in_args_are_refused_with_where_they_go(tmp_path: Path) -> None:
    """pre-commit runs ``entry + args + files``; the entry ends with ``--``, so a user's
    ``args: [--full]`` came after it and was checked as a missing file ("--full:1:1: cannot read
    file") while the files were checked without it.  It is refused in one line that says to put
    options in ``entry:``; given there, they apply."""
    if shutil.which("git") is None:
        pytest.skip("pre-commit needs git")
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    entry = re.search(r"id: xladoctor-check-system\n(?:  .*\n)*?  entry: (.*)\n", hooks)
    assert entry is not None and entry.group(1) == "xladoctor check --"
    repo = tmp_path / "repo"
    repo.mkdir()
    # a module with no offload annotation and a syntax error: only --full parses (and refuses) it
    (repo / "broken.hlo").write_text("HloModule broken\n\nENTRY main {\n  p = f32[4] parameter(0)\n"
                                     "  ROOT r = f32[4] add(p, q\n}\n")
    _git(repo, "init", "-q")

    def run(entry: str, args: str) -> subprocess.CompletedProcess:
        (repo / ".pre-commit-config.yaml").write_text(
            "repos:\n- repo: local\n  hooks:\n  - id: xladoctor-check-system\n    name: xladoctor\n"
            f"    entry: {entry}\n    language: system\n    files: \\.(hlo|txt|log)$\n    args: {args}\n")
        _git(repo, "add", "--", ".")
        env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
               "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])}
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=300)

    in_args = run(entry.group(1), "[--full]")
    assert in_args.returncode == 1 and "exit code: 2" in in_args.stdout, in_args.stdout + in_args.stderr
    assert "xladoctor: '--full' is an option of check, read as a file because it comes after '--'" in in_args.stdout
    assert "'entry: xladoctor check --full --', not in args:" in in_args.stdout
    assert "cannot read file" not in in_args.stdout
    in_entry = run("xladoctor check --full --", "[]")
    assert "exit code: 2" in in_entry.stdout and "broken.hlo:6:1: expected ',' or ')'" in in_entry.stdout
