"""`xladoctor check`: the main job over files, dump directories, logs and the bundled examples."""

import json

from xladoctor.cli.main import main


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_bundled_examples_tell_the_whole_story(capsys):
    code, out, err = run(["check", "--examples"], capsys)
    assert code == 1, err
    assert "E1200 predicted for output {0} (f32[16,256]{1,0:T(8,128)})" in out
    assert "starting from tuple.7" in out and "/home/user/model.py:23" in out
    assert "fix (a) keep it on host: output {0} -> f32[16,256]{1,0:T(8,128)S(5)}" in out
    assert ("offload_to_host_output_clean.hlo: HLO module jit_train_step (7 instructions), "
            "no host-offload error predicted") in out
    assert "E0102 RuntimeProgramInputMismatch" in out and "E1200 CompileTimeHostOffloadOutputLocationMismatch" in out


def test_json_document(capsys):
    _code, out, _ = run(["check", "--examples", "--json"], capsys)
    doc = json.loads(out)
    assert doc["schema_version"] == 3 and doc["command"] == "check"
    kinds = {f["path"].rsplit("/", 1)[-1]: f["kind"] for f in doc["files"]}
    assert kinds == {"e1200_offloaded_activation.hlo": "hlo", "offload_to_host_output_clean.hlo": "hlo",
                     "tpu_job.log": "log"}
    hlo = next(f for f in doc["files"] if f["path"].endswith("e1200_offloaded_activation.hlo"))
    assert hlo["offload"]["details"]["error"]["start"] == "tuple.7"
    assert hlo["hlo"]["name"] == "jit_train_step"
    log = next(f for f in doc["files"] if f["kind"] == "log")
    assert {x["code"] for x in log["explain"]["findings"]} == {"E0102", "E1200"}
    assert doc["findings"] == sum(f["findings"] for f in doc["files"]) >= 3


def test_dump_directory_is_walked_and_artefacts_skipped(jax_hlo_corpus, capsys):
    code, out, err = run(["check", str(jax_hlo_corpus.root / "dump"), "--json"], capsys)
    doc = json.loads(out)
    assert code in (0, 1), err
    by_kind = {}
    for f in doc["files"]:
        by_kind.setdefault(f["kind"], []).append(f["path"])
    assert not by_kind.get("error"), by_kind.get("error")
    assert any("buffer-assignment" in p for p in by_kind["skipped"])
    hlo = [f for f in doc["files"] if f["kind"] == "hlo"]
    assert len(hlo) == len(jax_hlo_corpus.hlo_dump_files())
    compiled = [f for f in hlo if "after_optimizations" in f["path"]]
    assert compiled and all("offload" not in f and "note" in f for f in compiled)
    before = [f for f in hlo if "before_optimizations" in f["path"]]
    # Modules with a host-offload token are analysed; the rest are triaged without parsing
    # (test_hlo_triage proves the full analysis has nothing to say about those).
    assert any("offload" in f for f in before)
    assert all("offload" in f or f["parsed"] is False for f in before)
    code, out, err = run(["check", "--full", str(jax_hlo_corpus.root / "dump"), "--json"], capsys)
    full = [f for f in json.loads(out)["files"] if "before_optimizations" in f["path"]]
    assert len(full) == len(before) and all("offload" in f for f in full)


def test_bad_file_is_reported_and_the_rest_still_checked(tmp_path, capsys):
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  p = f32[2,3]{1} parameter(0)\n}\n")
    good = tmp_path / "clean.log"
    good.write_text("nothing to see here\n")
    # --full: the module has no host-offload token, so only a full parse finds its error.
    code, out, err = run(["check", "--full", str(bad), str(good)], capsys)
    assert code == 2
    assert err.strip() == f"{bad}:3:15: Dimensions size is 2, but minor to major size is 1."
    assert "no XLA error found" in out


def test_nothing_to_check_is_a_usage_error(capsys):
    code, _, err = run(["check"], capsys)
    assert code == 2 and "nothing to check" in err


def test_core_commands_import_neither_numpy_nor_jax(tmp_path):
    """The core install stays light: only relayout (numpy) and xladoctor.jax need the extras."""
    import subprocess
    import sys
    code = ("import sys, io, contextlib\n"
            "from xladoctor.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['check', '--examples', '--html', {str(tmp_path / 'r.html')!r}])\n"
            "    main(['shape', 'f32[2]{0:T(128)}'])\n"
            "    main(['explain', 'E0102'])\n"
            "print(sorted(m for m in ('numpy', 'jax', 'jaxlib') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr


def test_an_option_after_double_dash_is_refused_not_read_as_a_missing_file(tmp_path, capsys, monkeypatch):
    """``check -- --full x.hlo`` (pre-commit's ``args:`` after the hooks' ``--``) names where options go."""
    from xladoctor.cli.main import main as cli_main

    log = tmp_path / "a.log"
    log.write_text("nothing here\n")
    assert cli_main(["check", "--", "--select=E1200", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xladoctor: '--select=E1200' is an option of check, read as a file") and \
        len(err.strip().splitlines()) == 1
    # a file of that name is a file, as before (issue 35)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--full").write_text("nothing here\n")
    assert cli_main(["check", "--", "--full"]) == 0
    assert cli_main(["check", "--", "--nonsense", str(log)]) == 2  # no option of check: a missing file
    assert "--nonsense:1:1: cannot read file" in capsys.readouterr().err
