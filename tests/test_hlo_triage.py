"""`check` triages a module by its bytes before parsing it: the verdict must equal the full analysis.

Over every HLO module the tests have (the offload expectations, the bundled examples,
and the pre- and post-optimisation texts and dumps of the real jax programs), a module
the triage lets through unparsed must be one where the full host-offload analysis has
nothing at all to say; and both kinds must occur, so this cannot pass vacuously.
"""

from __future__ import annotations

from pathlib import Path

from xladoctor.offload import analyze_host_offload
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.triage.hlo_triage import OFFLOAD_TOKENS, offload_tokens, triage

ROOT = Path(__file__).resolve().parents[1]


def _corpus(jax_hlo_corpus) -> list[Path]:
    files = sorted((ROOT / "tests" / "data").rglob("*.hlo"))
    files += sorted((ROOT / "src" / "xladoctor" / "examples").glob("*.hlo"))
    files += sorted(p for p in jax_hlo_corpus.root.rglob("*.txt") if p.read_bytes().lstrip().startswith(b"HloModule"))
    return files


def _says_nothing(result) -> bool:
    return not (result.errors or result.failures or result.host_positions or result.host_compute
                or result.inserted or result.dynamic_update_slices or result.dropped_offloads
                or result.outputs_moved_to_host or result.warnings or result.walks or result.removed)


def test_unparsed_modules_are_exactly_those_the_full_analysis_has_nothing_to_say_about(jax_hlo_corpus):
    skipped = analysed = 0
    for path in _corpus(jax_hlo_corpus):
        data = path.read_bytes()
        t = triage(data, compiled=False)
        if t.analyse:
            analysed += 1
            continue
        module = parse_module(data.decode(), str(path))
        for rule in ("shipped", "unmerged-pr-36525"):
            assert _says_nothing(analyze_host_offload(module, rule)), path
        skipped += 1
    assert skipped >= 20 and analysed >= 20, (skipped, analysed)


def test_offload_programs_are_never_triaged_away(jax_hlo_corpus):
    for path in sorted((ROOT / "tests" / "data" / "offload").glob("*.hlo")):
        assert offload_tokens(path.read_bytes()), path


def test_every_token_alone_sends_the_module_to_the_analysis():
    base = b"HloModule m\n\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n"
    assert triage(base, compiled=False).tokens == ()
    for token in OFFLOAD_TOKENS:
        data = base.replace(b"parameter(0)", b"parameter(0), metadata={op_name=\"" + token + b"\"}")
        t = triage(data, compiled=False)
        assert t.analyse and t.tokens == (token.decode(),) and t.module_name == "m"
    assert not triage(base + b"// MoveToHost", compiled=True).analyse


def test_unpinned_host_alone_is_analysed_and_check_says_what_offload_says(tmp_path):
    """``S(6)`` (``unpinned_host``) in the entry layout and nothing else: ``offload`` predicts the
    failure libtpu gives after HostOffloader, so ``check`` must not triage the module away."""
    from xladoctor.cli.main import main

    text = ("HloModule m, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0:S(6)}}\n\n"
            "ENTRY main {\n  p = f32[8,128]{1,0} parameter(0)\n  ROOT n = f32[8,128]{1,0} negate(p)\n}\n")
    assert triage(text.encode(), compiled=False).tokens == ("S(6)",)
    path = tmp_path / "s6.hlo"
    path.write_text(text)
    assert main(["offload", str(path), "--json"]) == 1
    assert main(["check", str(path), "--json"]) == 1

