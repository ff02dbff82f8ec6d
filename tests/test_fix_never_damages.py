"""Issue 35 item 3, never damage a file: ``offload --fix`` keeps every byte it does not change
(CRLF and LF, a header or ROOT written over several lines, trailing white space), and what it
writes parses back, with the same parser, as the fixed module and nothing else.

The property runs over the corpus modules (tests/hlo_corpus.py: the examples, tests/data/offload and
40 modules of bench/offload_gen.py) that have an E1200 to fix, each
as written, with CRLF line endings, and with its header and ROOT broken over lines."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.offload import fix_device, fix_host
from xladoctor.route.fix import fixed_text
from xladoctor.route.module_analysis import analyse_module, parse_hlo
from xladoctor.syntax.hlo_printer import print_module

FIXES = {"host": fix_host, "device": fix_device}
_ROOT = re.compile(r"^(\s*ROOT [^\n]*?\w\()([^\n]*?), ([^\n]*)$", re.M)


def _spread(text: str) -> str:
    """The header's result layout and the first ROOT's operands each on a line of their own."""
    text = text.replace(")->", ")\n  ->", 1)
    return _ROOT.sub(lambda m: f"{m.group(1)}{m.group(2)},\n      {m.group(3)}  ", text, count=1)


def _variants(text: str) -> dict[str, str]:
    spread = _spread(text)
    return {"lf": text, "crlf": text.replace("\n", "\r\n"), "spread": spread,
            "spread-crlf": spread.replace("\n", "\r\n")}


def _fixable() -> list[Path]:
    import tempfile

    out = []
    generated = generated_hlo(Path(tempfile.mkdtemp(prefix="xladoctor-fix-corpus-")), 40)
    for path in [*CORPUS, *generated]:
        text = path.read_text()
        if analyse_module(parse_hlo(text, str(path)), text, str(path)).result.errors:
            out.append(path)
    return out


FIXABLE = _fixable()


def test_the_corpus_has_modules_to_fix():
    assert len(FIXABLE) >= 25


def _removed(original: str, fixed: str) -> list[str]:
    a, b = original.split("\n"), fixed.split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [line for tag, i1, i2, _, _ in ops if tag in ("replace", "delete") for line in a[i1:i2]]


@pytest.mark.parametrize("path", FIXABLE, ids=lambda p: p.name)
def test_fix_parses_back_as_the_fix_alone_and_keeps_the_other_bytes(path):
    for kind, text in _variants(path.read_text()).items():
        module = parse_hlo(text, str(path))
        if print_module(module) != print_module(parse_hlo(path.read_text(), str(path))):
            continue  # the spread variant cut a string: not the same module, nothing to check
        result = analyse_module(module, text, str(path)).result
        for how, fix in FIXES.items():
            fixed = fix(module, result)
            out, _, respelt = fixed_text(text, module, fixed, str(path))
            assert not respelt, f"{path.name} {kind} {how}: not placed in the written lines"
            where = f"{path.name} {kind} {how}"
            assert print_module(parse_hlo(out, "out")) == print_module(fixed), where
            if "crlf" in kind:
                assert out.count("\n") == out.count("\r\n"), where
            else:
                assert "\r" not in out, where
            changed = {i.name for i in fixed.entry_computation().instructions} | {"ROOT"}
            for line in _removed(text, out):  # only the header and the statements the fix changes
                stripped = line.strip()
                assert (stripped.startswith(("HloModule", "->")) or line.startswith("      ")
                        or stripped.split(" ")[0] in changed), (where, line)


def test_trailing_white_space_and_an_unterminated_last_line_stay(tmp_path):
    text = FIXABLE[0].read_text().replace("\n", "  \n").rstrip("\n")
    module = parse_hlo(text, "m")
    fixed = fix_device(module, analyse_module(module, text, "m").result)
    out = fixed_text(text, module, fixed, "m").text
    assert not out.endswith("\n")
    kept = [line for line in text.split("\n") if line in out.split("\n")]
    assert len(kept) >= len(text.split("\n")) - 2  # the ROOT line, and the header at most


def test_edits_that_would_damage_the_module_are_not_used(monkeypatch):
    from xladoctor.route import fix as _fix

    text = FIXABLE[0].read_text()
    module = parse_hlo(text, "m")
    fixed = fix_device(module, analyse_module(module, text, "m").result)
    damaged = text.replace("ROOT", "ROOT ROOT", 1)
    monkeypatch.setattr(_fix, "apply_edits", lambda original, edits: damaged)
    out, _, respelt = _fix.fixed_text(text, module, fixed, "m")
    assert out != damaged and out == print_module(fixed) and respelt  # the printed module, never broken


def test_a_fix_no_text_reads_back_as_is_refused(monkeypatch):
    import xladoctor.route.module_analysis
    from xladoctor.base.errors import InputError
    from xladoctor.route import fix as _fix

    text = FIXABLE[0].read_text()
    module = parse_hlo(text, "m")
    fixed = fix_device(module, analyse_module(module, text, "m").result)
    real = xladoctor.route.module_analysis.parse_hlo

    def refusing(t, source):  # a parser that refuses every fixed text (the fix adds device_put)
        if "device_put" in t:
            raise InputError("refused", source, 1, 1)
        return real(t, source)

    monkeypatch.setattr(xladoctor.route.module_analysis, "parse_hlo", refusing)
    with pytest.raises(InputError, match="would not parse back"):
        _fix.fixed_text(text, module, fixed, "m")


def _xladoctor(*argv: object, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "xladoctor", *map(str, argv)], capture_output=True, timeout=120,
                          env=env, cwd=cwd)


def test_stdout_and_diff_carry_crlf_as_bytes(tmp_path):
    module = FIXABLE[0].read_bytes().replace(b"\n", b"\r\n")
    (tmp_path / "m.hlo").write_bytes(module)
    out = _xladoctor("offload", "m.hlo", "--fix", "device", "-o", "-", cwd=tmp_path)
    assert out.returncode == 0 and b"\\r" not in out.stdout
    assert out.stdout.count(b"\n") == out.stdout.count(b"\r\n") > 5
    diff = _xladoctor("offload", "m.hlo", "--fix", "device", "--diff", cwd=tmp_path)
    assert diff.returncode == 1 and b"\\r" not in diff.stdout and b"\r\n+  ROOT" in diff.stdout
    written = _xladoctor("offload", "m.hlo", "--fix", "device", "-o", "f.hlo", cwd=tmp_path)
    assert written.returncode == 0 and (tmp_path / "f.hlo").read_bytes() == out.stdout


def _apply(text: str, edits) -> str:
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    for e in sorted(edits, key=lambda e: (e.start_line, e.end_line), reverse=True):
        lines[e.start_line - 1:e.end_line - 1] = [e.content]
    return "".join(lines)


@pytest.mark.parametrize("path", FIXABLE, ids=lambda p: p.name)
def test_the_json_edits_apply_as_the_fix_to_every_spelling(path):
    """The machine-applicable edits in --json (one output's fix each) on CRLF and spread modules."""
    from xladoctor.findings.edits import e1200_fix_edits

    for kind, text in _variants(path.read_text()).items():
        module = parse_hlo(text, str(path))
        result = analyse_module(module, text, str(path)).result
        for index, (host, device) in e1200_fix_edits(text, module, result, "m").items():
            err = next(e for e in result.errors if tuple(e.output_index) == index)
            for edits, fix in ((host, fix_host), (device, fix_device)):
                out = _apply(text, edits)
                where = f"{path.name} {kind} {fix.__name__} {index}"
                if "crlf" in kind:
                    assert out.count("\n") == out.count("\r\n"), where
                got = print_module(parse_hlo(out, "out"))
                assert got == print_module(fix(module, result.replace(errors=[err]))), where


def test_a_fix_that_cannot_be_placed_says_the_module_is_respelt(tmp_path):
    """The same instruction name in two computations: XLA's NameUniquer renames the entry's ROOT
    (tuple.7.1), which has no written line; the printed module is written, and stdout says so."""
    example = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"
    text = example.read_text().replace(
        "ENTRY main.7 {", "helper {\n  tuple.7 = f32[] parameter(0)\n  ROOT n = f32[] negate(tuple.7)\n}\n\nENTRY main.7 {")
    (tmp_path / "dup.hlo").write_text(text)
    p = _xladoctor("offload", "dup.hlo", "--fix", "device", "-o", "fixed.hlo", cwd=tmp_path)
    assert p.returncode == 0 and b"could not be placed in the lines as written" in p.stdout, p.stdout + p.stderr
    module = parse_hlo(text, "dup.hlo")
    want = print_module(fix_device(module, analyse_module(module, text, "dup.hlo").result))
    assert print_module(parse_hlo((tmp_path / "fixed.hlo").read_text(), "fixed.hlo")) == want
    clean = _xladoctor("offload", "fixed.hlo", "--fix", "device", "-o", "again.hlo", cwd=tmp_path)
    assert b"could not be placed" not in clean.stdout  # nothing to fix: no such note
