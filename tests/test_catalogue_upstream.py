"""The catalogue against its dated list of upstream codes (catalogue/data/UPSTREAM.md), and
E0102's newer PjRt messages each with the advice that fits it."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from xladoctor.catalogue import load_catalogue
from xladoctor.catalogue.fixes import finding_fixes
from xladoctor.catalogue.scanner import LogScanner
from xladoctor.cli.main import main

CAT = load_catalogue()
UPSTREAM = (resources.files("xladoctor.catalogue") / "data" / "UPSTREAM.md").read_text(encoding="utf-8")


def _table(heading: str) -> list[list[str]]:
    """Rows (cells) of the first markdown table after ``heading``."""
    section = UPSTREAM.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| ") and not ln.startswith("| ---")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[1:]]


def test_the_list_is_dated_and_names_the_commit():
    assert re.search(r"Checked on \d{4}-\d{2}-\d{2}", UPSTREAM)
    assert "2a4c54254d11333b0054734e852be26f44899123" in UPSTREAM


def test_every_listed_xla_code_has_its_own_entry_linking_to_openxla():
    rows = _table("## Codes in `error_codes.h`")
    assert len(rows) == 28
    for code, name, _ in rows:
        entry = CAT.entries.get(code)
        assert entry is not None, code
        assert (entry.name, entry.origin) == (name, "xla")
        assert entry.url == f"https://openxla.org/xla/errors/error_{code[1:]}"


def test_every_draft_code_resolves_and_does_not_link():
    rows = _table("## Draft pages only")
    assert {r[0] for r in rows} == {"E1002", "C0432"}
    for code, *_ in rows:
        entry = CAT.get(code)
        assert entry is not None, code
        if entry.code == code:  # its own entry, not an alias
            assert entry.origin == "xla-draft" and entry.url == ""


def test_our_own_families_are_marked_as_ours_without_a_link():
    rows = _table("## Our own groupings")
    for code, _ in rows:
        entry = CAT.entries[code]
        assert entry.origin == "xladoctor" and entry.url == "" and entry.family
    ours = {e.code for e in CAT if e.origin == "xladoctor"}
    assert ours == {r[0] for r in rows}


def test_explain_json_says_where_a_code_comes_from(capsys):
    assert main(["explain", "E03xx", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["entry"]
    assert (doc["origin"], doc["url"]) == ("xladoctor", None)
    assert main(["explain", "c0432"]) == 0
    out = capsys.readouterr().out
    assert "C0432: MismatchedRanks" in out and "openxla.org has no page" in out


def test_e1002_message_is_explained_with_its_sparsecore_split(capsys):
    msg = ("XlaRuntimeError: RESOURCE_EXHAUSTED: TPU TensorCore Hbm usage: 34.82G, SparseCore Hbm usage 174.10G, "
           "exceeding available bytes: 95.74G\n")
    (f,) = _scan(msg)
    assert f.code == "E1000" and f.fields["sparsecore_bytes"] > f.fields["tensorcore_bytes"]
    assert CAT.get("E1002") is CAT.entries["E1000"]
    # the larger side leads: SparseCore advice first, the story says so in both languages
    assert finding_fixes(f, "en")[0].startswith("Shrink the SparseCore side first")
    from xladoctor.base.labels import localize

    english, persian = localize(f.analysis, "en"), localize(f.analysis, "fa")
    assert "SparseCore" in english["notes"][0] and english["notes"][0].startswith("SparseCore programs use 174.10 GiB")
    assert persian["notes"][0].startswith("برنامه‌های SparseCore 174.10 GiB از HBM")
    assert finding_fixes(f, "fa")[0].startswith("اول سهم SparseCore را کوچک کنید")
    from xladoctor.report.explain_text import render_findings
    text = render_findings([f], "<log>", "en", 100, "visual")
    # The text tells the story once (issue 22: no wall of internals); the ratio stays in the model/JSON.
    assert "113.18 GiB over the limit" in text and "excess_bytes: 121,526,099,640" in text
    assert "scenario" not in text and "larger_user" not in text and "used_over_limit" not in text
    assert round(f.analysis["used_over_limit"], 2) == 2.18


def test_mismatched_ranks_message_from_xla_shape_inference():
    (f,) = _scan("INVALID_ARGUMENT: Shapes must be equal rank, but are f32[4,4] and f32[4,4,4]\n")
    assert f.code == "C0432"


def _scan(text: str):
    import io

    return LogScanner().scan_binary(io.BytesIO(text.encode()))


# E0102 variants, messages exactly as CheckBufferCompatibilities formats them (with the code
# prefix and link XLA adds).
def _coded(message: str) -> str:
    return (f"jaxlib._jax.XlaRuntimeError: INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch: {message}\n"
            "See https://openxla.org/xla/errors/error_0102 for more details.\n")


VARIANTS = {
    "memory_space": "Executable(jit_step) got a parameter buffer for parameter 3 in an unexpected memory space "
                    "'pinned_host'",
    "element_type": "Executable(jit_step) expected parameter 1 to have element type F32 but got buffer with "
                    "element type BF16",
    "rank": "Executable(jit_step) expected parameter 0 to have rank 2 but got buffer with rank 3",
    "layout": "Executable(jit_step) expected parameter 2 to have layout {0,1:T(4,128)} but got buffer with "
              "layout {1,0:T(4,128)}",
    "dynamic_bound": "Executable(jit_step) expected parameter 0 dimension 0 runtime size <= 10, but got buffer "
                     "with size 12",
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("coded", [True, False], ids=["coded", "bare"])
def test_e0102_variant_is_recognised(variant, coded):
    text = _coded(VARIANTS[variant]) if coded else f"INVALID_ARGUMENT: {VARIANTS[variant]}\n"
    (f,) = _scan(text)
    assert f.code == "E0102"
    assert f.fields["variant"] == variant
    assert f.fields["executable"] == "jit_step"


def test_memory_space_mismatch_gets_no_relayout_advice():
    (f,) = _scan(_coded(VARIANTS["memory_space"]))
    fixes = finding_fixes(f, "en")
    assert fixes and "memory space 'pinned_host'" in fixes[0]
    assert not any("relayout --from" in x or "input_formats" in x for x in fixes)
    assert "relayout" not in " ".join(finding_fixes(f, "fa")).replace("relayout نکنید", "")


@pytest.mark.parametrize("variant", ["element_type", "rank", "dynamic_bound"])
def test_type_rank_and_bound_mismatches_are_not_layout_problems(variant):
    (f,) = _scan(_coded(VARIANTS[variant]))
    fixes = finding_fixes(f, "en")
    assert len(fixes) == 1 and "input_formats" not in fixes[0]


def test_layout_variants_lead_with_device_put_to_input_formats():
    (f,) = _scan(_coded(VARIANTS["layout"]))
    assert "compiled.input_formats" in finding_fixes(f, "en")[0]


def test_size_mismatch_of_the_same_array_leads_with_device_put_then_exact_relayout():
    seed = ("Executable(jit_embedding_pipeline_step_fn) expected parameter 2482 of size 5242880 "
            "(bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got buffer with incompatible size 1638400 "
            "(bf16[16,1280,40]{1,2,0:T(8,128)(2,1)})")
    (f,) = _scan(f"INVALID_ARGUMENT: {seed}\n")
    fixes = finding_fixes(f, "en")
    assert "compiled.input_formats" in fixes[0]
    assert ("relayout --from 'bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}' --to 'bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}'"
            in fixes[1])
    assert sum("input_formats" in x for x in fixes) == 1  # the catalogue's generic copy is not repeated
    assert fixes.index(next(x for x in fixes if x.startswith("Keep configuration"))) > 1


def test_dynamic_printed_size_counts_the_metadata():
    from xladoctor.inputs.messages import explain_shape

    info = explain_shape("f32[<=10,4]{0,1:T(4,128)M(1024)}", 3072)
    assert info["size_matches_shape"] is True and info["runtime_bytes"] == 3072
