"""loader.find_entry (one file read for a code as filed) gives what Catalogue.get gives, for every spelling."""

from __future__ import annotations

from xladoctor.catalogue import load_catalogue
from xladoctor.catalogue.loader import filed_codes, find_entry, load_entries_from


def _fresh_find(code: str):
    """find_entry as a fresh process runs it: the whole catalogue not yet read."""
    load_catalogue.cache_clear()
    try:
        return find_entry(code)
    finally:
        load_catalogue.cache_clear()


def test_every_filed_code_in_every_spelling_gives_the_catalogues_entry():
    whole = load_entries_from(__import__("xladoctor.catalogue.loader", fromlist=["_data_files"])._data_files())
    assert filed_codes() == list(whole.entries)
    for code in whole.entries:
        for spelling in {code, code.lower(), code[1:], f" {code} "}:
            entry, cat = _fresh_find(spelling)
            if whole.get(spelling) is None:
                assert entry is None, spelling
                continue
            assert cat is None, spelling  # read alone
            assert entry == whole.get(spelling), spelling
            assert [m.pattern for m in entry.matchers] == [m.pattern for m in whole.get(spelling).matchers]


def test_aliases_family_members_and_unknown_codes_read_the_whole_catalogue():
    whole = load_catalogue()
    alias = next((a for e in whole for a in e.aliases), None)
    cases = ["E0312", "E9999", "nonsense"] + ([alias] if alias else [])
    for spelling in cases:
        entry, cat = _fresh_find(spelling)
        assert entry == whole.get(spelling), spelling
        if entry is None or spelling == "E0312":
            assert cat is not None, spelling
