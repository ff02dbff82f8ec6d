"""Issue 36: one whole copy of the module per ``offload``/``check`` run at most.

The analysis rewrites a private copy (:func:`xladoctor.offload.analysis.private_copy`); the
E1200 move-to-device edit of an output the ROOT tuple returns directly used to copy the module a
second time to print its two lines.  Counted here on the E1200 modules of the offload corpus
through the in-process CLI (what ``bench/compare_outputs.py`` runs), and the edit must leave the
caller's module as it was: every instruction's users in the same order.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

import xladoctor.ir.clone as ir_clone
import xladoctor.offload.analysis as analysis
import xladoctor.offload.clone as offload_clone
import xladoctor.offload.fixes as fixes
from xladoctor.cli.main import main
from xladoctor.findings.edits import e1200_fix_edits
from xladoctor.route.module_analysis import analyse_module, parse_hlo
from xladoctor.syntax.hlo_printer import print_module

DATA = Path(__file__).parent / "data" / "offload"
E1200 = [DATA / "36_invalid_output_streaming.hlo",
         Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"]


@pytest.fixture
def clones(monkeypatch) -> list[str]:
    """The names of the modules ``clone_module`` copied, wherever it is called from."""
    copied: list[str] = []
    real = ir_clone.clone_module

    def counting(module, *args, **kwargs):
        copied.append(module.name)
        return real(module, *args, **kwargs)

    for where in (ir_clone, offload_clone, analysis, fixes):
        monkeypatch.setattr(where, "clone_module", counting)
    return copied


def _cli(*argv: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return main(list(argv))
        except SystemExit as e:
            return int(e.code or 0)


@pytest.mark.parametrize("path", E1200, ids=lambda p: p.name)
@pytest.mark.parametrize("command", [("offload",), ("offload", "--json"), ("check", "--json")])
def test_an_e1200_run_copies_the_module_once(path, command, clones):
    text = path.read_text()
    result = analyse_module(parse_hlo(text, str(path)), text, str(path)).result
    assert result.errors, "the module must have an E1200 whose edits are printed"
    clones.clear()
    assert _cli(*command, str(path)) == 1
    assert len(clones) == 1, clones


@pytest.mark.parametrize("path", E1200, ids=lambda p: p.name)
def test_the_device_edit_leaves_the_module_as_it_was(path):
    text = path.read_text()
    module = parse_hlo(text, str(path))
    result = analyse_module(module, text, str(path)).result
    printed = print_module(module)
    users = {i.name: [u.name for u in i.users] for i in module.instructions()}
    edits = e1200_fix_edits(text, module, result, "m")
    assert any(device for _, device in edits.values())
    assert print_module(module) == printed
    assert {i.name: [u.name for u in i.users] for i in module.instructions()} == users


@pytest.mark.parametrize("path", E1200, ids=lambda p: p.name)
def test_fix_host_copies_only_for_the_analyses(path, clones, tmp_path):
    """``--fix host`` changes only the entry layout: printed from the module itself, so the two
    copies left are the two analyses' (the file's and the fixed text's); ``--fix device`` adds one."""
    for how, copies in (("host", 2), ("device", 3)):
        clones.clear()
        assert _cli("offload", "--fix", how, "-o", str(tmp_path / f"{how}.hlo"), str(path)) in (0, 1)
        assert (tmp_path / f"{how}.hlo").read_text() != path.read_text()
        assert len(clones) == copies, (how, clones)
