"""`xladoctor explain CODE`: lookup forms, languages, unknown codes, JSON."""

from __future__ import annotations

import json

import pytest

from xladoctor.base.labels import language_from_env
from xladoctor.cli.main import main


@pytest.mark.parametrize("code", ["E1200", "1200", "e1200"])
def test_explain_code_forms(code, capsys):
    assert main(["explain", code, "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("E1200: CompileTimeHostOffloadOutputLocationMismatch\n")
    assert "memory_kind=\"pinned_host\"" in out and "jax.device_put(x, device_sharding)" in out
    assert "https://openxla.org/xla/errors/error_1200" in out


def test_explain_code_persian_logical_keeps_unicode_order(capsys):
    assert main(["explain", "E0102", "--lang", "fa", "--bidi", "logical"]) == 0
    out = capsys.readouterr().out
    assert "عدم تطابق بافر ورودی برنامه" in out
    assert "\u2066jax.device_put(x, fmt)\u2069" in out
    # The example log line stays plain left-to-right text.
    assert "expected parameter 2482 of size 5242880" in out


def test_explain_code_persian_visual_is_right_aligned(capsys):
    assert main(["explain", "E1200", "--lang", "fa", "--bidi", "visual", "--width", "60"]) == 0
    lines = capsys.readouterr().out.splitlines()
    title = lines[1]
    assert len(title) == 60 and title.startswith(" ") and "Host Offload" in title


def test_language_from_locale(monkeypatch, capsys):
    assert language_from_env({"LANG": "fa_IR.UTF-8"}) == "fa"
    assert language_from_env({"LC_ALL": "en_US.UTF-8", "LANG": "fa_IR.UTF-8"}) == "en"
    assert language_from_env({"LC_MESSAGES": "fa_IR", "LANG": "C"}) == "fa"
    assert language_from_env({}) == "en"
    monkeypatch.setenv("LC_ALL", "fa_IR.UTF-8")
    assert main(["explain", "E0100", "--bidi", "logical"]) == 0
    assert "خطا در تخصیص بافر" in capsys.readouterr().out


def test_unknown_code_exits_2_with_nearest(capsys):
    assert main(["explain", "E1299"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "E1200" in err and "nearest" in err


def test_neither_code_nor_file(capsys):
    assert main(["explain", "no/such/file.log"]) == 2
    assert "neither a known error code nor a file" in capsys.readouterr().err


def test_existing_file_named_like_a_code_is_scanned(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "1200").write_text("nothing to see\n")
    assert main(["explain", "1200", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_explain_code_json(capsys):
    assert main(["explain", "E1000", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == 1 and doc["mode"] == "code"
    assert doc["entry"]["code"] == "E1000" and doc["entry"]["aliases"] == ["E1002"]
    assert doc["entry"]["fixes"]


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_explain_list_keeps_json(lang, capsys):
    """`explain --list --json` printed the text list: every command keeps --json (issue 38)."""
    import json

    from json_schema_check import schema_errors

    assert main(["explain", "--list", "--lang", lang]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert main(["explain", "--list", "--json", "--lang", lang]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert schema_errors(doc, "explain_list") == []
    assert (doc["mode"], doc["lang"]) == ("list", lang)
    assert [c["code"] for c in doc["codes"]] == [line.split()[0] for line in lines]
    assert {"code": "E1200", "name": "CompileTimeHostOffloadOutputLocationMismatch",
            "title": "Host offload output mismatch"} in doc["codes"] or lang == "fa"
