"""``offload --fix`` as users of ruff expect it: says what it changed, edits only those lines,
exit 0 when nothing is left, "nothing to fix" on a clean module, ``--diff`` instead of writing.
The fixed modules go to the real TPU compiler (compile-only) where libtpu is installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
CLEAN = EXAMPLES / "offload_to_host_output_clean.hlo"


def xladoctor(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xladoctor", *argv], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fix", ["host", "device"])
def test_fix_says_what_it_changed_and_keeps_the_rest(fix, tmp_path):
    out = tmp_path / "fixed.hlo"
    p = xladoctor("offload", str(E1200), "--fix", fix, "-o", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and "fixed E1200: output {0}" in lines[0] and lines[1] == "1 fixed, 0 remaining"
    assert "Tensor which is moved to host" not in p.stdout  # not the whole report again
    written, fixed = E1200.read_text().splitlines(), out.read_text().splitlines()
    for line in written:  # comments and the ENTRY header as written; every untouched line byte for byte
        if line.startswith(("//", "ENTRY")) or "custom-call.5 =" in line:
            assert line in fixed
    changed = [line for line in fixed if line not in written]
    assert len(changed) == (1 if fix == "host" else 2), changed
    assert xladoctor("offload", str(out)).returncode == 0


def test_fix_on_a_clean_module_writes_nothing(tmp_path):
    out = tmp_path / "fixed.hlo"
    p = xladoctor("offload", str(CLEAN), "--fix", "device", "-o", str(out))
    assert p.returncode == 0 and "nothing to fix" in p.stdout and not out.exists()
    p = xladoctor("offload", str(CLEAN), "--fix", "host", "-o", "-")
    assert p.returncode == 0 and p.stdout == CLEAN.read_text() and "nothing to fix" in p.stderr


def test_diff_prints_the_change_and_writes_nothing(tmp_path):
    p = xladoctor("offload", str(E1200), "--fix", "host", "--diff")
    assert p.returncode == 1, p.stderr
    removed = [ln for ln in p.stdout.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    added = [ln for ln in p.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert len(removed) == len(added) == 1 and "S(5)" in added[0] and "S(5)" not in removed[0]
    assert "would fix E1200" in p.stderr and "1 fixable" in p.stderr
    assert xladoctor("offload", str(E1200), "--diff").returncode == 2
    assert xladoctor("offload", str(CLEAN), "--fix", "host", "--diff").stdout == ""


@pytest.mark.parametrize("fix", ["host", "device"])
def test_the_real_compiler_accepts_each_fixed_module(fix, tmp_path):
    from xladoctor.oracle import unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    from xladoctor.oracle.shared import compile_hlo

    assert compile_hlo(E1200.read_text()).code == "E1200"
    out = tmp_path / "fixed.hlo"
    assert xladoctor("offload", str(E1200), "--fix", fix, "-o", str(out)).returncode == 0
    verdict = compile_hlo(out.read_text())
    assert verdict.kind == "compiles", verdict


def apply_json_edits(text: str, edits: list[dict]) -> str:
    """What an editor or a bot does with the JSON's edits (ruff's fix format, by lines)."""
    lines = text.splitlines(keepends=True)
    for e in sorted(edits, key=lambda e: e["start_line"], reverse=True):
        lines[e["start_line"] - 1:e["end_line"] - 1] = [e["content"]]
    return "".join(lines)


@pytest.mark.parametrize("kind, fix", [("host-output", "host"), ("move-to-device", "device")])
def test_the_json_fix_edits_apply_as_offload_fix_does(kind, fix, tmp_path):
    import json

    doc = json.loads(xladoctor("check", str(E1200), "--json").stdout)
    (finding,) = doc["diagnostics"]["findings"]
    chosen = next(f for f in finding["fixes"] if f["kind"] == kind)
    assert chosen["applicability"] == ("unsafe" if fix == "host" else "safe")
    assert chosen["edits"] and {e["path"] for e in chosen["edits"]} == {str(E1200)}
    out = tmp_path / "fixed.hlo"
    xladoctor("offload", str(E1200), "--fix", fix, "-o", str(out))
    assert apply_json_edits(E1200.read_text(), chosen["edits"]) == out.read_text()
