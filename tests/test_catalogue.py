"""The error catalogue: complete, bilingual, derived from its directory, patterns that don't overlap."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from xladoctor.base.errors import InputError
from xladoctor.catalogue import LANGUAGES, load_catalogue, normalize_code
from xladoctor.catalogue.loader import compile_pattern, load_entries_from
from xladoctor.catalogue.model import TEXT_FIELDS

CAT = load_catalogue()
ENTRIES = list(CAT)

# Every code of XLA's xla/error/error_codes.h (XLA_ERROR_CODE_LIST), plus the
# documented families (docs/errors/error_03xx.md, error_2xxx.md).
XLA_CODES = {
    "E0000": "Cancelled", "E0001": "Unknown", "E0002": "InvalidArgument", "E0003": "DeadlineExceeded",
    "E0004": "NotFound", "E0005": "AlreadyExists", "E0006": "PermissionDenied",
    "E0007": "ResourceExhausted", "E0008": "FailedPrecondition", "E0009": "Aborted",
    "E0010": "OutOfRange", "E0011": "Unimplemented", "E0012": "Internal", "E0013": "Unavailable",
    "E0014": "DataLoss", "E0015": "Unauthenticated",
    "E0100": "RuntimeBufferAllocationFailure", "E0101": "RuntimeProgramAllocationFailure",
    "E0102": "RuntimeProgramInputMismatch", "E0200": "RuntimeUnexpectedCoreHalt",
    "E1000": "CompileTimeHbmOom", "E1001": "CompileTimeScopedVmemOom",
    "E1200": "CompileTimeHostOffloadOutputLocationMismatch",
    "E2001": "CompileTimeMosaicUnsupportedRhsType", "E2002": "CompileTimeMosaicMisalignedBlockAndTiling",
    "E2003": "CompileTimeMosaicUnprovenMemoryAccessAlignment",
    "E3000": "CompileTimeSparseCoreAllocationFailure", "E3001": "CompileTimeSparseCoreInvalidReplicaCount",
}


def test_every_xla_code_has_an_entry_with_xla_name():
    for code, name in XLA_CODES.items():
        assert code in CAT, code
        assert CAT.get(code).name == name
    assert {"E03xx", "E2xxx"} <= set(CAT.entries)


def test_index_is_the_data_directory():
    names = sorted(p.name for p in (resources.files("xladoctor.catalogue") / "data").iterdir()
                   if p.name.endswith(".toml"))
    assert [f"{c}.toml" for c in CAT.entries] == names


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_entry_complete_in_both_languages(entry):
    # XLA's codes link to their page; drafts and our own families have none (UPSTREAM.md).
    assert entry.url == (f"https://openxla.org/xla/errors/error_{entry.number}" if entry.origin == "xla" else "")
    assert entry.backends and set(entry.backends) <= {"TPU", "GPU", "CPU"}
    assert entry.phase in ("compile-time", "runtime", "any")
    for lang in LANGUAGES:
        text = entry.describe(lang)
        for key in TEXT_FIELDS:
            value = getattr(text, key)
            assert value, (entry.code, lang, key)
    # Same number of items, so every cause/fix has its translation.
    en, fa = entry.describe("en"), entry.describe("fa")
    for key in ("causes", "fixes", "debug"):
        assert len(getattr(en, key)) == len(getattr(fa, key)), (entry.code, key)
    # Persian text really is Persian, and carries no hand-placed bidi controls
    # (the terminal renderer adds isolation itself).
    assert re.search("[\u0600-\u06ff]", fa.summary)
    for s in (fa.title, fa.summary, *fa.causes, *fa.fixes, *fa.debug):
        assert not re.search("[\u200e\u200f\u202a-\u202e\u2066-\u2069]", s)
    for code in entry.see_also:
        assert code in CAT, (entry.code, code)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.code)
def test_example_matched_by_own_patterns_only(entry):
    hits = [other.code for other in CAT if any(m.search(entry.example) for m in other.matchers)]
    assert hits == [entry.code]


def test_specific_entries_have_uncoded_patterns():
    # Errors older than error codes print without "EXXXX:"; those must still be found.
    for entry in CAT:
        if not entry.generic:
            assert entry.patterns, entry.code
            assert any(compile_pattern(p).search(entry.example) for p in entry.patterns), entry.code


@pytest.mark.parametrize("text,code", [
    ("E1200", "E1200"), ("1200", "E1200"), ("e1200", "E1200"), (" E0102 ", "E0102"),
    ("e03XX", "E03xx"), ("2xxx", "E2xxx"), ("E12000", None), ("hello", None), ("", None),
])
def test_normalize_code(text, code):
    assert normalize_code(text) == code


def test_lookup_aliases_and_family_members():
    assert CAT.get("E1002").code == "E1000"
    assert CAT.get("E0312").code == "E03xx"
    assert CAT.get("E2105").code == "E2xxx"
    assert CAT.get("E9999") is None


def test_nearest_codes_by_number():
    assert CAT.nearest("E1201")[0] == "E1200"
    assert CAT.nearest("0103")[0] == "E0102"


def test_space_in_pattern_matches_line_breaks():
    m = compile_pattern("expected parameter \\d+ of size")
    assert m.search("expected\nparameter 3\n  of size")
    assert not m.search("expectedparameter 3 of size")


def _toml(code="E0100", **over):
    fields = {
        "code": f'"{code}"', "name": '"X"', "status": '"INTERNAL"', "phase": '"runtime"',
        "backends": '["TPU"]', "url": '"https://openxla.org/xla/errors/error_0100"', "patterns": "['a b']", "example": '"a b"',
    }
    fields.update(over)
    lines = [f"{k} = {v}" for k, v in fields.items() if v is not None]
    for lang in LANGUAGES:
        lines.append(f"[{lang}]")
        for key in TEXT_FIELDS:
            lines.append(f'{key} = ["x"]' if key in ("causes", "fixes", "debug") else f'{key} = "x"')
    return "\n".join(lines).encode()


def test_loader_rejects_bad_files():
    assert len(load_entries_from([("E0100.toml", _toml())])) == 1
    with pytest.raises(InputError, match="file name"):
        load_entries_from([("E0101.toml", _toml())])
    with pytest.raises(InputError, match="missing field"):
        load_entries_from([("E0100.toml", _toml(url=None))])
    with pytest.raises(InputError, match="bad pattern"):
        load_entries_from([("E0100.toml", _toml(patterns="['(']"))])
    with pytest.raises(InputError, match="phase"):
        load_entries_from([("E0100.toml", _toml(phase='"later"'))])
    broken = _toml().replace(b'[fa]\ntitle = "x"\n', b"[fa]\n")
    with pytest.raises(InputError, match=r"\[fa\] keys"):
        load_entries_from([("E0100.toml", broken)])
    with pytest.raises(InputError, match="not valid TOML"):
        load_entries_from([("E0100.toml", b"code = ")])


def test_every_pattern_starts_with_an_anchor_word():
    # The scanner finds candidates by str.find on each pattern's leading literal word.
    from xladoctor.catalogue.scanner import pattern_anchor

    for entry in CAT:
        for pattern in entry.patterns:
            anchor = pattern_anchor(pattern)
            assert len(anchor) >= 3 and " " not in anchor
            assert compile_pattern(pattern).search(entry.example) is None or anchor in entry.example
    with pytest.raises(ValueError):
        pattern_anchor(r"(?:a|b) c")
