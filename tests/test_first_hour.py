"""A new user's first hour (issue 38): what `check`, `offload` and `explain` show by default.

The dump is a real one (tests/data/first_hour: jax 0.10.2 and libtpu 0.0.42.1 compile-only, the
program beside it); its FileNames name the program where it was recorded, so each test copies
the program next to a copy of the dump and points the table at it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from xladoctor.cli.main import main

DATA = Path(__file__).resolve().parent / "data" / "first_hour"
EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
RECORDED = "/tmp/h38play/gen.py"
OFFLOAD_LINE = 19  # `saved = place_to_host(h)` in train.py


def _dump(tmp_path: Path, with_program: bool = True) -> Path:
    """A copy of the recorded dump folder whose FileNames point at a copy of train.py."""
    program = tmp_path / "train.py"
    if with_program:
        shutil.copy(DATA / "train.py", program)
    folder = tmp_path / "xla_dump"
    shutil.copytree(DATA / "xla_dump", folder)
    for f in folder.iterdir():
        if f.name.endswith("before_optimizations.txt"):
            f.write_text(f.read_text().replace(RECORDED, str(program)))
    return folder


def _module(folder: Path) -> Path:
    return next(folder.glob("*before_optimizations.txt"))


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_offload_is_shown_at_the_users_line_with_its_text_and_a_caret(tmp_path, capsys):
    code, out, err = run(["check", str(_module(_dump(tmp_path)))], capsys)
    assert code == 1, err
    program = tmp_path / "train.py"
    # the line in the jitted function (step), not the helper's frame inside frontend_ops.place_to_host
    assert f"at {program}:{OFFLOAD_LINE} (step)" in out
    assert "frontend_ops.py" not in out
    assert f"--> {program}:{OFFLOAD_LINE}:13" in out
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(f"{OFFLOAD_LINE} |"))
    assert lines[at].endswith("saved = place_to_host(h)  # OFFLOAD LINE")
    caret = lines[at + 1]
    assert caret.index("^") == lines[at].index("place_to_host(h)")
    assert caret.count("^") == len("place_to_host(h)") and caret.endswith("moved to host here")
    # and the output, as the HLO line that returns it
    assert "returned as output {0} here" in out
    assert "ROOT %tuple.1" in out


def test_without_the_program_the_hlo_line_is_the_snippet(tmp_path, capsys):
    module = _module(_dump(tmp_path, with_program=False))
    code, out, _ = run(["check", str(module)], capsys)
    assert code == 1
    assert "%place_to_host.1 = f32[16,256]{1,0} custom-call(%tanh.1)" in out
    assert f"--> {module}:" in out and "moved to host here" in out


# -- colour by default on a terminal, --color, NO_COLOR/FORCE_COLOR --------------------------------

def _colour(argv, capsys, monkeypatch, **env):
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return run(argv, capsys)[1]


def test_text_reports_are_coloured_when_asked_and_plain_otherwise(tmp_path, capsys, monkeypatch):
    module = str(_module(_dump(tmp_path)))
    forced = _colour(["check", module], capsys, monkeypatch, FORCE_COLOR="1")
    assert "\x1b[1;31mE1200\x1b[0m predicted" in forced  # the code red, as rustc's error
    assert "\x1b[32mfix (a)\x1b[0m" in forced and "\x1b[1m== " in forced
    assert "\x1b[1;31m^^^^" in forced  # the caret
    assert "\x1b[" not in _colour(["check", module], capsys, monkeypatch)  # not a terminal
    assert "\x1b[" not in _colour(["check", module, "--color", "never"], capsys, monkeypatch, FORCE_COLOR="1")
    assert "\x1b[1;31mE1200" in _colour(["check", module, "--color=always"], capsys, monkeypatch, NO_COLOR="1")
    assert "\x1b[" not in _colour(["check", module, "--json"], capsys, monkeypatch, FORCE_COLOR="1")
    explained = _colour(["explain", "E1200"], capsys, monkeypatch, FORCE_COLOR="1")
    assert "\x1b[" in explained
    offload = _colour(["offload", module], capsys, monkeypatch, FORCE_COLOR="1")
    assert "\x1b[" in offload


def test_colour_never_lets_input_drive_the_terminal(tmp_path, capsys, monkeypatch):
    evil = tmp_path / "ev\x1b[2Jil.hlo"
    evil.write_text(_module(_dump(tmp_path)).read_text())
    out = _colour(["check", str(evil)], capsys, monkeypatch, FORCE_COLOR="1")
    assert "ev\\x1b[2Jil.hlo" in out and "ev\x1b[2J" not in out


def test_offload_shows_the_same_lines(tmp_path, capsys):
    code, out, _ = run(["offload", str(_module(_dump(tmp_path)))], capsys)
    assert code == 1
    assert f"--> {tmp_path / 'train.py'}:{OFFLOAD_LINE}:13" in out and "returned as output {0} here" in out
    assert out.index("moved to host here") < out.index("fix (a)")


# -- --fix in place, as ruff -------------------------------------------------------------------

def test_offload_fix_edits_the_file_in_place(tmp_path, capsys):
    module = _module(_dump(tmp_path))
    before = module.read_text()
    code, out, err = run(["offload", str(module), "--fix", "device"], capsys)
    assert code == 0, err
    assert "1 fixed, 0 remaining" in out
    after = module.read_text()
    assert after != before and "place_to_host.1" in after
    assert run(["offload", str(module)], capsys)[0] == 0  # nothing left
    assert sorted(p.name for p in module.parent.iterdir()) == sorted(p.name for p in (DATA / "xla_dump").iterdir())


def test_a_fix_in_place_is_said_once(tmp_path, capsys):
    """ruff says what it fixed, once; the in-place fix is not announced again on stderr as a write
    ("wrote module with fix ... to FILE"), for one file or for every round of a folder's."""
    module = _module(_dump(tmp_path))
    code, out, err = run(["offload", str(module), "--fix", "device"], capsys)
    assert code == 0 and out.count("fixed E1200") == 1 and err == "", err
    (tmp_path / "again").mkdir()
    folder = _dump(tmp_path / "again")
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", folder / "second.hlo")
    code, out, err = run(["check", "--fix", str(folder)], capsys)
    assert code == 0 and out.count("fixed E1200") == 2 and err == "", err
    elsewhere = tmp_path / "fixed.hlo"  # written elsewhere (-o), the write is news: it is said
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", tmp_path / "third.hlo")
    code, out, err = run(["offload", str(tmp_path / "third.hlo"), "--fix", "host", "-o", str(elsewhere)], capsys)
    assert code == 0 and elsewhere.exists() and str(elsewhere) in err


def test_offload_fix_diff_writes_nothing(tmp_path, capsys):
    module = _module(_dump(tmp_path))
    before = module.read_text()
    code, out, _ = run(["offload", str(module), "--fix", "host", "--diff"], capsys)
    assert code == 1 and out.startswith("---") and "S(5)" in out
    assert module.read_text() == before


def test_check_fix_fixes_a_folder_in_place_with_the_json_edits(tmp_path, capsys):
    import json

    folder = _dump(tmp_path)
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", folder / "second.hlo")
    _, doc, _ = run(["check", str(folder / "second.hlo"), "--json"], capsys)
    (finding,) = json.loads(doc)["files"][0]["offload"]["diagnostics"]["findings"]
    device = next(x for x in finding["fixes"] if x["kind"] == "move-to-device")
    code, out, err = run(["check", "--fix", str(folder)], capsys)
    assert code == 0, out + err
    assert out.count("fixed E1200: output {0} moved back to device memory") == 2 and "--fix: 2 fixed" in out
    assert "0 findings" in out
    lines = (folder / "second.hlo").read_text().splitlines(keepends=True)
    for edit in device["edits"]:  # what was written is what the JSON's edits say
        assert edit["content"] in "".join(lines)
    code, out, _ = run(["check", str(folder)], capsys)
    assert code == 0 and "0 findings" in out


def test_check_diff_shows_every_fix_and_writes_nothing(tmp_path, capsys):
    """``check --diff`` as ``ruff check --diff``: the fixes --fix would make, as one unified diff per
    file on stdout (each file's rounds together), nothing written, exit 1 when there is a change."""
    folder = _dump(tmp_path)
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", folder / "second.hlo")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, out, err = run(["check", "--diff", str(folder)], capsys)
    assert code == 1, err
    assert out.count("\n--- ") + out.startswith("--- ") == 2 and out.count("\n+++ ") == 2
    assert out.count("would fix E1200: output {0} moved back to device memory") == 0
    assert err.count("would fix E1200: output {0} moved back to device memory") == 2, err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    code, _, _ = run(["check", "--fix", str(folder)], capsys)  # and --fix makes those changes
    assert code == 0
    code, out, err = run(["check", "--diff", str(folder)], capsys)
    assert code == 0 and out == "", out


def test_check_unsafe_fixes_keeps_the_output_on_host(tmp_path, capsys):
    module = _module(_dump(tmp_path))
    code, out, _ = run(["check", "--fix", "--unsafe-fixes", str(module)], capsys)
    assert code == 0 and "output {0} kept in host memory" in out
    assert "S(5)" in module.read_text().splitlines()[0]


def test_check_fix_refuses_the_bundled_examples(capsys):
    assert run(["check", "--fix", "--examples"], capsys)[0] == 2


def test_offload_fix_in_place_refuses_a_bundled_example_as_check_does(capsys):
    """`check --examples` says `xladoctor offload EXAMPLE (--fix host|device edits it in place)`:
    followed, it edited the installed package, and `check --examples` then found nothing."""
    example = EXAMPLES / "e1200_offloaded_activation.hlo"
    before = example.read_bytes()
    try:
        for argv in (["offload", str(example), "--fix", "host"], ["check", "--fix", str(example)]):
            code, _, err = run(argv, capsys)
            assert code == 2 and "copy the examples and fix the copies" in err, argv
            assert example.read_bytes() == before
    finally:  # a failing run edited the package: put the example back for the rest of the suite
        if example.read_bytes() != before:
            example.write_bytes(before)
    code, out, _ = run(["offload", str(example), "--fix", "host", "--diff"], capsys)
    assert code == 1 and "S(5)" in out and example.read_bytes() == before  # --diff writes nothing


def test_offload_names_the_copy_a_remat_offload_puts_in_host_memory(capsys):
    """A remat offload policy under grad, lowered for TPU (remat_offload.py beside it): the move to
    host is read only by the move back, so HostOffloader inserts a copy to host.  The report said
    "host memory: none" beside a trace that says "Offloading "tanh.2" to host"."""
    code, out, _ = run(["offload", str(DATA / "remat_offload.hlo")], capsys)
    assert code == 0
    assert "host memory: copy.1 (inserted: tanh.2 copied to host)" in out.splitlines()


def test_check_says_when_nothing_is_moved_to_host(capsys):
    """The same program with an offload policy whose names match no checkpoint_name: check said
    "no host-offload error predicted", word for word what it says of the offload that works."""
    code, out, _ = run(["check", str(DATA / "remat_offload_typo.hlo"), str(DATA / "remat_offload.hlo")], capsys)
    assert code == 0
    typo, works = (next(ln for ln in out.splitlines() if f"{name}.hlo:" in ln) for name in ("remat_offload_typo",
                                                                                            "remat_offload"))
    assert "nothing is moved to host memory" in typo and "no offloading remat policy took effect" in typo
    assert "no host-offload error predicted;" in works and "nothing is moved" not in works


# -- check DIR: findings first, one line for what was clean, XLA's side files counted ----------

def test_a_dump_folder_s_side_files_are_skipped_and_counted_not_listed_as_logs(tmp_path, capsys):
    code, out, _ = run(["check", str(_dump(tmp_path))], capsys)
    assert code == 1
    for side in ("execution_options.txt", "flagfile", "tpu_comp_env.txt", "hlo_module_config.txt"):
        assert side not in out
    assert "no XLA error found" not in out
    assert out.rstrip().endswith("1 file checked, 1 finding, 6 of XLA's side files skipped (options, flags, environment)")


def test_a_repo_s_source_code_is_skipped_and_counted_and_a_txt_log_is_read(tmp_path, capsys):
    """A repository checked as a folder: the code beside the logs quotes an XLA error in a string
    (a test, an except clause) and was reported as that error; a ``.txt`` is a saved log or XLA's
    own HLO dump name, so it is still read."""
    (tmp_path / "train.py").write_text('try:\n    step()\nexcept Exception as e:\n'
                                       '    assert "E0102: RuntimeProgramInputMismatch" in str(e)\n')
    (tmp_path / "ops.cc").write_text('// INVALID_ARGUMENT: Executable expected parameter 0 of size 8192\n')
    shutil.copy(DATA.parent / "logs" / "jax_layout" / "tpu" / "runtime_e0102.log", tmp_path / "run.txt")
    code, out, _ = run(["check", str(tmp_path)], capsys)
    assert code == 1
    assert "train.py" not in out and "ops.cc" not in out
    assert "run.txt" in out and "E0102" in out
    assert out.rstrip().endswith("1 file checked, 1 finding, 2 skipped as source code (code, not logs)")
    code, out, _ = run(["check", "--json", str(tmp_path)], capsys)
    notes = {Path(f["path"]).name: f.get("note") for f in json.loads(out)["files"]}
    assert notes["train.py"] == notes["ops.cc"] == "source code, not a log or HLO text"


def test_many_clean_files_are_one_line_after_the_findings(tmp_path, capsys):
    folder = _dump(tmp_path)
    for i in range(4):
        shutil.copy(EXAMPLES / "offload_to_host_output_clean.hlo", folder / f"clean{i}.hlo")
    (folder / "job.log").write_text("step 1 done\nstep 2 done\n")
    code, out, _ = run(["check", str(folder)], capsys)
    assert code == 1
    assert ("nothing to report in 5 files: 4 HLO modules, no host-offload error predicted; "
            "1 log, no XLA error found") in out
    assert out.index("E1200 predicted") < out.index("nothing to report")
    assert "clean0.hlo" not in out


# -- one name for an output; XLA's words verbatim ------------------------------------------------

def test_an_output_has_one_name_in_every_report(tmp_path, capsys):
    """XLA's ShapeIndex ``output {0}``, the Python path beside it when the StableHLO gives it; never
    ``output [0]`` (explain --hlo) or a bare ``result[0]``."""
    lowered = DATA / "lowered"
    _, off, _ = run(["offload", str(lowered / "step.hlo"), "--stablehlo", str(lowered / "step.mlir")], capsys)
    assert "output {0} (result[0]) (f32[16,256]{1,0})" in off
    _, chk, _ = run(["check", str(lowered / "step.hlo")], capsys)  # step.mlir beside it
    assert "E1200 predicted for output {0} (result[0])" in chk
    _, concise, _ = run(["check", str(lowered / "step.hlo"), "--format", "concise"], capsys)
    assert "output {0} (result[0])" in concise
    log = tmp_path / "job.log"
    log.write_text(XLA_E1200)
    _, exp, _ = run(["explain", str(log), "--hlo", str(_module(_dump(tmp_path)))], capsys)
    assert "reaches output {0} whose layout" in exp and "output [0]" not in exp
    assert "-> tuple.1{0} (tuple)" in exp


def test_the_whole_result_is_named_so_not_read_as_no_output(tmp_path, capsys):
    """A result that is not a tuple has the ShapeIndex ``{}``: check's NO VERDICT said "outputs {}
    fail", which reads as no output at all.  Unnamed it is "output {} (the whole result)"; with the
    StableHLO's ``jax.result_info`` it is "output {} (result)", the same in every line of a report."""
    alone = tmp_path / "step.hlo"
    shutil.copy(DATA / "single_result" / "step.hlo", alone)  # without the StableHLO beside it
    for fmt in ([], ["--json"], ["--format", "sarif"]):
        _, out, _ = run(["check", *fmt, str(alone)], capsys)
        assert "NO VERDICT" in out and "outputs {}" not in out
        assert "the compile fails with E1200 on output {} (the whole result)" in out
    _, off, _ = run(["offload", str(DATA / "single_result" / "step.hlo")], capsys)  # step.mlir beside it
    assert "output {} (result) (f32[8,128]{1,0})" in off
    assert "returned as output {} (result) here" in off and "keep it on host: output {} (result) ->" in off
    assert "(the whole result)" not in off
    _, doc, _ = run(["check", "--json", str(DATA / "single_result" / "step.hlo")], capsys)
    assert json.loads(doc)["findings"] == 1 and "keep it on host: output {} (result) ->" in doc
    fixed = tmp_path / "fixed.hlo"
    shutil.copy(alone, fixed)
    shutil.copy(DATA / "single_result" / "step.mlir", tmp_path / "fixed.mlir")
    _, out, _ = run(["offload", "--fix", "device", str(fixed)], capsys)
    assert "fixed E1200: output {} (the whole result) moved back to device memory" in out


def test_hlo_names_the_results_as_it_names_the_parameters(capsys):
    """``hlo`` showed each parameter's Python name and none for the result, whose leaves the
    StableHLO beside it names (``jax.result_info``) and every finding calls ``output {0} (result[0])``."""
    from json_schema_check import schema_errors

    _, out, _ = run(["hlo", str(DATA / "lowered" / "step.hlo")], capsys)
    result = out[out.index("  result "):].splitlines()
    assert result[2].strip() == "output {0} (result[0]), output {1} (result[1])"
    _, out, _ = run(["hlo", str(DATA / "single_result" / "step.hlo")], capsys)
    assert out[out.index("  result "):].splitlines()[2].strip() == "output {} (result)"
    _, doc, _ = run(["hlo", "--json", str(DATA / "lowered" / "step.hlo")], capsys)
    doc = json.loads(doc)
    assert doc["entry_computation_layout"]["result"]["names"] == [{"index": [0], "name": "result[0]"},
                                                                  {"index": [1], "name": "result[1]"}]
    assert schema_errors(doc, "hlo") == []
    alone = run(["hlo", "--json", str(DATA / "remat_offload_typo.hlo"), "--stablehlo",
                 str(DATA / "remat_offload_typo.mlir")], capsys)[1]
    assert schema_errors(json.loads(alone), "hlo") == []


XLA_E1200 = ("jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
             "Tensor which is moved to host (starting from tuple.1) is returned from the entry computation but the "
             "layout for this output is not set to host memory.\n"
             "See https://openxla.org/xla/errors/error_1200 for more details.\n")


def test_explain_quotes_xla_verbatim(tmp_path, capsys):
    log = tmp_path / "job.log"
    log.write_text(XLA_E1200)
    _, out, _ = run(["explain", str(log), "--width", "80"], capsys)
    for line in XLA_E1200.splitlines():
        assert f"    {line}\n" in out  # each line as XLA wrote it, searchable


def test_the_html_e0102_card_shows_no_internal_field_names(tmp_path, capsys):
    page = tmp_path / "report.html"
    assert run(["explain", str(EXAMPLES / "tpu_job.log"), "--html", str(page)], capsys)[0] == 1
    html = page.read_text()
    assert "E0102" in html
    for internal in ("fixes_first", "replaces_fixes", "skips_fixes_with"):
        assert internal not in html


def test_a_clean_log_s_card_says_clean_once(tmp_path, capsys):
    """A clean log's card in check's page wore the "clean" badge twice, over "No XLA error found"."""
    log = tmp_path / "train.log"
    log.write_text("step 1 loss 2.3\nstep 2 loss 2.1\n")
    page = tmp_path / "report.html"
    assert run(["check", str(log), "--html", str(page)], capsys)[0] == 0
    html = page.read_text()
    card = html[html.index('<section class="file kind-log"'):]
    card = card[:card.index("</section>")]
    assert card.count(">clean</span>") == 1 and "No XLA error found in this file." in card
    page = tmp_path / "explain.html"  # explain's own page: the badge in its header, the words below
    assert run(["explain", str(log), "--html", str(page)], capsys)[0] == 0
    html = page.read_text()
    assert html.count('"badge ok big">clean</span>') == 1 and '"badge ok">clean</span>' not in html


def test_the_explain_pages_count_says_what_it_counts(tmp_path, capsys):
    """The verdict line read "errors found  2 · PATH": a bare number."""
    for lang, words in (("en", "2 findings"), ("fa", "2 یافته")):
        page = tmp_path / f"{lang}.html"
        assert run(["explain", str(EXAMPLES / "tpu_job.log"), "--lang", lang, "--html", str(page)], capsys)[0] == 1
        assert f'<span class="muted">{words} \u00b7 ' in page.read_text()


def test_the_html_cards_label_their_rows_in_words_not_model_keys(tmp_path, capsys):
    """The Fields and Analysis tables name each row as a reader would (``expected size``), hide the
    parser's bookkeeping (``format``, ``variant``, ``start_kind``) as the text report does, and do not
    repeat as a row the sizes the bars above them draw (``size_ratio``, ``*_physical_bytes``)."""
    import re

    page = tmp_path / "report.html"
    assert run(["explain", str(EXAMPLES / "tpu_job.log"), "--html", str(page)], capsys)[0] == 1
    rows = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th>(.*?)</th>", page.read_text())]
    assert "expected size" in rows and "executable" in rows
    assert not [r for r in rows if "_" in r], rows
    for hidden in ("format", "variant", "start kind", "size ratio", "expected physical bytes"):
        assert hidden not in rows, hidden


# -- JAX-on-GPU dumps (XLA:GPU compile-only for h100, recorded) ---------------------------------

def test_a_jax_on_gpu_dump_is_not_taken_for_a_cpu_lowering(capsys):
    """XLA:GPU dumps LLVM IR (.ll) beside its PTX and names its compiled module
    ``sm_9.0a_gpu_after_optimizations``: that is a GPU dump, not jax's CPU lowering (whose
    verdict would not stand); its PTX and thunk listings are side files, not logs."""
    code, out, _ = run(["check", str(DATA / "gpu_dump_clean")], capsys)
    assert code == 0, out
    assert "lowered for CPU" not in out and "no XLA error found" not in out
    assert "sm_9.0a_gpu_after_optimizations.txt: HLO module jit_step, compiled" in out
    _, doc, _ = run(["check", str(DATA / "gpu_dump_clean"), "--json"], capsys)
    import json

    kinds = {f["path"].rsplit("/", 1)[-1]: f["kind"] for f in json.loads(doc)["files"]}
    assert all(kinds[n] == "skipped" for n in kinds if n.endswith((".ptx", "thunk_sequence.txt", "thunk_metadata.txt")))


def test_a_jax_on_gpu_e1200_dump_is_an_error(capsys):
    import json

    code, doc, _ = run(["check", str(DATA / "gpu_dump_e1200"), "--json"], capsys)
    assert code == 1
    module = next(f for f in json.loads(doc)["files"] if f["path"].endswith("before_optimizations.txt"))
    (finding,) = module["offload"]["diagnostics"]["findings"]
    assert finding["code"] == "E1200" and finding["severity"] == "error"


# -- no CUDA/TPU start-up noise from any command on a machine without them -------------------------

def test_commands_print_no_accelerator_noise_without_jax_platforms(tmp_path):
    """With the [test] extras (jax's CUDA plugin, libtpu) on a machine without GPU or TPU, jax prints
    a CUDA traceback and libtpu's start-up errors in any process that starts a backend; no command
    may (the compilers run in workers that set their platform)."""
    import os
    import subprocess
    import sys

    from xladoctor.oracle import unavailable_reason

    lowered = DATA / "lowered" / "step.hlo"
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    commands = [["check", "--examples"], ["check", str(lowered)], ["offload", str(lowered)],
                ["explain", str(EXAMPLES / "tpu_job.log")], ["hlo", str(lowered)]]
    if not unavailable_reason():
        commands.append(["check", str(lowered), "--confirm"])
    for argv in commands:
        p = subprocess.run([sys.executable, "-m", "xladoctor", *argv], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=300)
        assert p.returncode in (0, 1), (argv, p.stderr)
        for noise in ("CUDA", "cuda", "Traceback", "TPU_WORKER_HOSTNAMES", "absl::InitializeLog"):
            assert noise not in p.stderr, (argv, p.stderr)


# -- HTML at a phone's width and a laptop's, in Chromium -------------------------------------------

CHROMIUM = "/usr/bin/chromium"

_FLOW_JS = """() => [...document.querySelectorAll('.flow-wrap')].map(w => {
  const wb = w.getBoundingClientRect(); const svg = w.querySelector('svg.flow');
  const nodes = [...svg.querySelectorAll('g.node')].map(g => g.getBoundingClientRect());
  return {left: wb.left, right: wb.right, svg: svg.getBoundingClientRect().width,
          natural: +svg.getAttribute('width'), nodes: nodes.map(b => [b.left, b.right, b.width])}; })"""


def test_the_path_diagram_is_whole_at_390_and_1280_pixels(tmp_path, capsys):
    """At 390 px the diagram was cut to its device lane (the host lane and its hops off to the
    right, behind a scrollbar): now every hop is in view at both widths, in English and Persian."""
    sync_api = pytest.importorskip("playwright.sync_api")
    import os

    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not installed (CI installs Debian's chromium)")
    pages = []
    for lang in ("en", "fa"):
        page = tmp_path / f"{lang}.html"
        run(["check", str(EXAMPLES / "e1200_offloaded_activation.hlo"), "--lang", lang, "--html", str(page)], capsys)
        pages.append(page)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for page_file in pages:
                for width in (390, 1280):
                    context = browser.new_context(viewport={"width": width, "height": 900})
                    tab = context.new_page()
                    tab.goto(page_file.as_uri())
                    flows = tab.evaluate(_FLOW_JS)
                    assert flows, page_file
                    for flow in flows:
                        assert len(flow["nodes"]) >= 3
                        for left, right, w in flow["nodes"]:
                            assert w > 0 and left >= flow["left"] - 1 and right <= flow["right"] + 1, (width, flow)
                        if width == 1280:  # room enough: drawn at its own size, not stretched
                            assert abs(flow["svg"] - flow["natural"]) < 1
                    assert tab.evaluate("document.documentElement.scrollWidth") <= width
                    context.close()
        finally:
            browser.close()



def test_check_says_a_cpu_dump_is_no_tpu_verdict(tmp_path, capsys):
    """A user's first `--xla_dump_to` is often made on a laptop: jax's CPU lowering drops the
    host-offload annotations of a checkpoint offload policy, and `check` said only "nothing to
    report" (exit 0), as if the TPU program were clean.  It now says, once, that these modules
    were lowered or compiled for CPU, in the text and (as each entry's provenance) in the JSON."""
    import importlib.util
    import json
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("jax") is None:  # the dump is made by jax, in a child process
        pytest.skip("jax is not installed: it makes the CPU dump (pip install 'xladoctor[jax]')")
    script = tmp_path / "mk.py"
    script.write_text(
        "import jax, jax.numpy as jnp\n"
        "from jax.ad_checkpoint import checkpoint_name\n"
        "pol = jax.checkpoint_policies.save_and_offload_only_these_names(names_which_can_be_saved=[],\n"
        "    names_which_can_be_offloaded=['h'], offload_src='device', offload_dst='pinned_host')\n"
        "def layer(x, w):\n"
        "    return jnp.tanh(checkpoint_name(x @ w, 'h')), None\n"
        "def loss(ws, x):\n"
        "    return jax.lax.scan(jax.checkpoint(layer, policy=pol), x, ws)[0].sum()\n"
        "jax.jit(jax.grad(loss))(jnp.ones((4, 16, 16)), jnp.ones((8, 16)))\n")
    dump = tmp_path / "dump"
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "XLA_FLAGS": f"--xla_dump_to={dump}"}
    subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True, timeout=300)
    code, out, err = run(["check", str(dump)], capsys)
    assert code == 0, err
    assert "lowered or compiled for CPU" in out and "tells nothing about the TPU/GPU program" in out
    code, out, err = run(["check", str(dump), "--json"], capsys)
    cpu = [f for f in json.loads(out)["files"] if (f.get("provenance") or {}).get("platform") == "cpu"]
    assert cpu and all(f["parsed"] is False and "for CPU" in f["note"] for f in cpu)
