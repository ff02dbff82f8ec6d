"""The catalogue's precomputed modules (catalogue/generate.py): made from the data files as they are,
used only for those bytes, and what a log scan or a catalogue read gives is the same either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from xladoctor.catalogue import catalogue_data, generate, loader, scan_table, scan_table_data
from xladoctor.catalogue.scanner import LogScanner, scan_text

HERE = Path(generate.HERE)
LOGS = Path(__file__).parent / "data" / "logs"


def test_shipped_modules_are_generated_from_the_data_files():
    for name, text in generate.sources().items():
        assert (HERE / name).read_text(encoding="utf-8") == text, (
            f"catalogue/{name} is stale: run `python -m xladoctor.catalogue.generate`")


def test_packaged_docs_are_what_the_toml_says():
    files = loader._data_files()
    assert sorted(catalogue_data.FILES) == [name for name, _ in files]
    for name, data in files:
        crc, doc = catalogue_data.FILES[name]
        assert crc == loader.file_crc(data)
        assert doc == loader._read_toml(data, name)


def test_catalogue_from_packaged_docs_equals_the_toml_one():
    files = loader._data_files()
    packaged, parsed = loader.load_entries_from(files, packaged=True), loader.load_entries_from(files)
    assert list(packaged.entries) == list(parsed.entries)
    for code, entry in packaged.entries.items():
        assert entry == parsed.entries[code]
        assert [m.pattern for m in entry.matchers] == [m.pattern for m in parsed.entries[code].matchers]


def test_an_edited_file_is_read_from_its_toml(monkeypatch):
    files = loader._data_files()
    name, data = next((n, d) for n, d in files if n == "E1000.toml")
    edited = data.replace(b'name = "CompileTimeHbmOom"', b'name = "EditedName"')
    assert edited != data
    cat = loader.load_entries_from([(name, edited)], packaged=True)
    assert cat.entries["E1000"].name == "EditedName"
    with pytest.raises(loader.InputError, match="bad pattern"):  # validated as any unknown file is
        loader.load_entries_from([(name, edited.replace(b"'Ran out of", b"'(Ran out of"))], packaged=True)


def test_scan_table_is_the_catalogues():
    assert scan_table.derive(loader.load_catalogue()) == scan_table_data.PATTERNS
    assert scan_table.packaged() is scan_table_data.PATTERNS


def test_stale_scan_table_is_not_used(monkeypatch):
    monkeypatch.setattr(scan_table_data, "SOURCES", {**scan_table_data.SOURCES, "E1000.toml": 0})
    monkeypatch.setattr(scan_table_data, "PATTERNS", {"Bogus": (("E1000", "Bogus word"),)})
    assert scan_table.packaged() == scan_table.derive(loader.load_catalogue())
    assert "Bogus" not in LogScanner().anchors


def test_each_anchor_is_a_literal_prefix_of_its_patterns():
    """The scanner tries a pattern only where its anchor is: the anchor must be what every match
    starts with (a quantifier right after it, ``Ran?``, would make it optional)."""
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - 3.10
        import sre_parse  # type: ignore[no-redef]

    def starts_with(regex: str, literal: str) -> bool:
        items = list(sre_parse.parse(loader.compile_pattern(regex).pattern))
        if items and items[0][0] == sre_parse.AT:
            items = items[1:]
        return [(op, chr(arg)) for op, arg in items[:len(literal)]] == [(sre_parse.LITERAL, c) for c in literal]

    for anchor, pairs in scan_table_data.PATTERNS.items():
        for _, pattern in pairs:
            assert starts_with(pattern, anchor), pattern
    # and the heads the scanner searches a message's window for, its coded header's too
    for entry in loader.load_catalogue():
        for regex in (*entry.patterns, entry.header_regex()):
            assert starts_with(regex, scan_table.literal_head(regex)), regex


def test_literal_head_leaves_out_what_is_not_certain():
    head = scan_table.literal_head
    assert head(r"\bE1200: CompileTimeHbmOom\b") == "E1200:"
    assert head(r"\bE2\d\d\d: \w+") == "E2"
    assert head("Ran out of memory") == "Ran"
    assert head("ab?c") == "a" and head("ab*c") == "a" and head("ab{2}") == "a"
    assert head("abc|d") == "" and head("(?:a|b)c") == "" and head("x[^]]|z") == ""
    assert head("ab[|]c") == "ab" and head(r"a\|b") == "a" and head("x[^]|]") == "x"


def test_clean_text_reads_no_catalogue():
    scanner = LogScanner()
    scanner.feed("I1031 step 1 loss=0.5\n" * 100)
    assert scanner.finish() == []
    assert scanner._catalogue is None


def test_findings_are_the_same_with_a_given_catalogue():
    cat = loader.load_entries_from(loader._data_files())
    for path in sorted(LOGS.glob("*.log")):
        text = path.read_text(encoding="utf-8", errors="replace")
        assert scan_text(text) == scan_text(text, cat), path.name


def test_shipped_needles_are_the_derived_ones_and_only_for_their_words():
    """prefilter.needles answers the packaged scanner's words from scan_table_data (no derivation
    at start-up, issue 36 item 6), exactly what deriving gives; other words are derived."""
    from xladoctor.catalogue import prefilter

    words = tuple(a.encode("ascii") for a in LogScanner().anchors if len(a) >= prefilter.MIN_NEEDLE)
    assert tuple(sorted(set(words))) == scan_table_data.NEEDLE_WORDS
    assert prefilter.needles(words) == prefilter.derive_needles(words) == list(scan_table_data.NEEDLES)
    more = (*words, b"Zebrafish")
    assert prefilter.needles(more) == prefilter.derive_needles(more) != list(scan_table_data.NEEDLES)
    assert prefilter.needles(words, 5) == prefilter.derive_needles(words, 5)
