"""The words as data (src/xladoctor/base/labels/*.toml): every key defined, used, translated consistently.

A translator edits one TOML file per language; these tests are what tells them (and whoever
adds a sentence to the code) that a key is missing, unused, or fills in other values.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xladoctor.base.errors import InputError
from xladoctor.base.labels import (
    FALLBACK,
    LANGUAGES,
    area_labels,
    label,
    labels,
    localize,
    placeholders,
    text,
)
from xladoctor.base.labels.reader import _area_chunks, parse_labels

SRC = Path(__file__).resolve().parents[1] / "src" / "xladoctor"
AREAS = sorted({key.split(".", 1)[0] for key in labels(FALLBACK)})
KEY_LITERAL = re.compile(rf"^(?:{'|'.join(map(re.escape, AREAS))})\.[A-Za-z0-9_.\-]+$")
# Key prefixes not translated yet (their text is shown in English under --lang fa).
ENGLISH_ONLY_AREAS = ("jax_report.", "shape.", "hlo.", "confirm.", "oracle.",
                      "pytest.")


def _string_literals() -> dict[str, list[str]]:
    """Every string constant in the package's Python code that looks like a label key -> where
    (not labels/precomputed.py: its keys are the files' own, generated, not uses)."""
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "base" / "labels" / "precomputed.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY_LITERAL.match(node.value):
                found.setdefault(node.value, []).append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_every_key_used_in_code_is_defined_in_english():
    undefined = {k: where for k, where in _string_literals().items() if k not in labels(FALLBACK)}
    assert not undefined, f"label keys used but defined nowhere: {undefined}"


def test_every_defined_key_is_used_somewhere():
    used = _string_literals()
    unused = sorted(k for k in labels(FALLBACK) if k not in used)
    assert not unused, f"label keys no code uses (remove them from every language): {unused}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != FALLBACK])
def test_each_language_has_every_key_and_no_other(lang):
    english, other = labels(FALLBACK), labels(lang)
    missing = sorted(k for k in english if k not in other and not k.startswith(ENGLISH_ONLY_AREAS))
    extra = sorted(k for k in other if k not in english)
    assert not missing, f"{lang}.toml lacks {len(missing)} key(s) (shown in English until translated): {missing}"
    assert not extra, f"{lang}.toml has keys English does not (typo or removed): {extra}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != FALLBACK])
def test_translations_fill_in_the_same_values(lang):
    english, other = labels(FALLBACK), labels(lang)
    differ = {k: (sorted(placeholders(english[k])), sorted(placeholders(v)))
              for k, v in other.items() if k in english and placeholders(v) != placeholders(english[k])}
    assert not differ, f"{lang}.toml placeholders differ from English (key: (en, {lang})): {differ}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_label_renders(lang):
    for key, template in labels(lang).items():
        values = {name: f"<{name}>" for name in placeholders(template)}
        out = label(key, lang, **values)
        # no placeholder left unfilled (literal braces, as in a layout {1,0}, are fine)
        assert out.strip() and not re.search(r"\{[A-Za-z_]\w*\}", out), key


def test_missing_translation_falls_back_to_english_and_unknown_key_fails_loudly():
    assert label("html.report", "xx") == label("html.report", "en") == "xladoctor report"
    assert label("html.report", "fa") == "گزارش xladoctor"
    with pytest.raises(KeyError):
        label("html.no_such_label", "fa")


def test_deferred_text_is_worded_in_the_readers_language():
    side = text("e0102.side.expected")
    note = text("e0102.note.padded", side=side, dim=2, size=40, padded=128, tile=128,
                where=text("e0102.where.minor"))
    assert note.render("en").startswith("expected: dimension 2 (40) is padded to 128")
    assert note.render("fa").startswith("مورد انتظار: بعد 2 با اندازه 40 تا 128")
    assert localize({"notes": [note], "n": 3}, "en") == {"notes": [note.render("en")], "n": 3}


def test_bad_label_files_are_refused_with_their_source():
    with pytest.raises(InputError, match="must be a string"):
        parse_labels(b"[html]\nreport = 3\n", "labels/xx.toml")
    with pytest.raises(InputError, match="bad template"):
        parse_labels(b'[html]\nreport = "a {b"\n', "labels/xx.toml")
    with pytest.raises(InputError, match="not valid TOML"):
        parse_labels(b"[html\n", "labels/xx.toml")
    assert parse_labels(b'[a.b]\nc = "x {y} {{z}}"\n', "t") == {"a.b.c": "x {y} {{z}}"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_reading_one_area_at_a_time_gives_the_whole_files_labels(lang):
    """label() parses only the tables of the key's area; together they must be the whole file, exactly
    (and the shipped files must be ones the cut can follow, or every label() would parse the whole file)."""
    assert _area_chunks(lang) is not None
    whole = labels(lang)
    pieces: dict[str, str] = {}
    for area in {key.split(".", 1)[0] for key in whole}:
        part = area_labels(lang, area)
        assert all(key.startswith(area + ".") for key in part), area
        pieces.update(part)
    assert pieces == whole


def _relative_imports(name: str) -> list[tuple[int, str | None]]:
    tree = ast.parse((SRC / "base" / "labels" / name).read_text(encoding="utf-8"))
    return [(node.level, node.module) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level > 0]


def test_the_loader_sits_at_the_bottom_of_the_layers():
    """Labels are data: the lookups import the standard library and their own reader and
    precomputed tables; the reader adds ``errors``; nothing else of ours."""
    assert set(_relative_imports("__init__.py")) == {(1, None), (1, "reader")}  # from . import precomputed
    assert set(_relative_imports("reader.py")) == {(2, "errors"), (1, None)}  # from . import LANGUAGES, placeholders
    assert _relative_imports("precomputed.py") == []
    for name in ("__init__.py", "reader.py", "precomputed.py"):
        tree = ast.parse((SRC / "base" / "labels" / name).read_text(encoding="utf-8"))
        assert not [a.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                    for a in node.names if (getattr(node, "module", None) or a.name).startswith("xladoctor")], name


def test_the_precomputed_areas_are_the_files_words():
    """labels/precomputed.py is generated from the TOML files (the TOML stays the source): it must be
    what ``python -m xladoctor.base.labels.reader`` writes now, each table what reading the file gives."""
    from xladoctor.base.labels import precomputed
    from xladoctor.base.labels.reader import PRECOMPUTED_AREAS, precomputed_source, read_area

    written = Path(precomputed.__file__).read_text(encoding="utf-8")
    assert written == precomputed_source(), "labels changed: run `python -m xladoctor.base.labels.reader`"
    assert precomputed.AREAS == PRECOMPUTED_AREAS and "shape" in PRECOMPUTED_AREAS
    assert set(precomputed.TABLES) == {(lang, area) for lang in LANGUAGES for area in PRECOMPUTED_AREAS}
    for (lang, area), table in precomputed.TABLES.items():
        assert table == read_area(lang, area), (lang, area)
        assert area_labels(lang, area) == table
    assert precomputed.TABLES["en", "shape"]["shape.shape"] == "shape           {shape}"


def test_a_precomputed_area_is_handed_out_as_a_copy():
    from xladoctor.base.labels import precomputed

    area_labels("en", "shape")["shape.shape"] = "changed"  # the process' table, not the generated module's
    try:
        assert precomputed.TABLES["en", "shape"]["shape.shape"] == "shape           {shape}"
    finally:
        area_labels("en", "shape")["shape.shape"] = precomputed.TABLES["en", "shape"]["shape.shape"]


def test_help_is_written_in_the_language_lang_names_else_the_locales(monkeypatch):
    from xladoctor.cli.main import build_parser, help_language

    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    monkeypatch.setenv("COLUMNS", "2000")  # argparse wraps to the terminal's width, and breaks words at hyphens
    assert help_language(["explain", "--lang", "fa", "--help"]) == "fa"
    assert help_language(["check", "--lang=fa", "-h"]) == "fa"
    assert help_language(["check", "--", "--lang", "fa"]) == "en"
    assert help_language(["explain", "-h"]) == "en"
    monkeypatch.setenv("LC_ALL", "fa_IR.UTF-8")
    assert help_language(["explain", "-h"]) == "fa"
    for lang in LANGUAGES:
        helped = build_parser("shape", lang).format_help() + build_parser("shape", lang)._subparsers._group_actions[0] \
            .choices["shape"].format_help()
        words = " ".join(helped.split())  # argparse rewraps the text (and breaks at hyphens: no such key here)
        for key in ("cli.description", "cli.shape.description", "cli.shape.json"):
            assert " ".join(label(key, lang).split()) in words, (lang, key)


@pytest.mark.parametrize("argv", [["shape", "--help"], ["shape", "-h"], ["shape", "--he"], ["shape", "--hel"],
                                  ["explain", "--lang", "fa", "--help"], ["explain", "--lang=fa", "--he"],
                                  ["explain", "--lang", "fa", "-h"], ["inputs", "-h"], ["check", "x.hlo", "-h"]])
def test_help_in_any_spelling_is_written_in_words_not_label_keys(argv, capsys, monkeypatch):
    """Help words are looked up only where help can be printed; every spelling argparse takes for
    it (abbreviated '--he', after other arguments) gets them, in the language asked for."""
    from xladoctor.cli.main import main

    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    monkeypatch.setenv("COLUMNS", "2000")
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    lang = "fa" if "fa" in argv or "--lang=fa" in argv else "en"
    assert " ".join(label(f"cli.{argv[0]}.description", lang).split()) in " ".join(out.split())
    assert "cli." not in out


def test_check_writes_its_whole_report_in_the_language_asked_for(capsys):
    """Not only the findings: the sections, the quiet files and the tally are labels too."""
    from xladoctor.cli.main import main

    main(["check", "--examples", "--lang", "fa", "--bidi", "logical"])
    marked = capsys.readouterr().out
    assert "\u200f" in marked  # each Persian line marked right to left, its code isolated
    persian = marked.replace("\u200f", "").replace("\u2066", "").replace("\u2069", "")
    main(["check", "--examples", "--lang", "en"])
    english = capsys.readouterr().out
    for lang, out in (("en", english), ("fa", persian)):
        tally = label("check.tally", lang, files=label("check.files", lang, n=3),
                      findings=label("check.findings", lang, n=3))
        assert out.endswith(tally + "\n"), lang
    for english_only in ("HLO module", "nothing to report", "details and JAX code", "E1200 predicted for output"):
        assert english_only in english and english_only not in persian


def test_the_plain_reader_reads_every_label_file_as_tomllib_does():
    """labels._plain_toml (start-up: no tomllib) against the TOML reader, whole files and each
    area's cut; anything outside its subset is left to tomllib (None), never read otherwise."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the core dependency tomli is the same parser
        import tomli as tomllib

    from xladoctor.base.labels import LANGUAGES
    from xladoctor.base.labels.reader import _area_chunks, _plain_toml, _read

    for lang in LANGUAGES:
        text = _read(lang).decode("utf-8")
        assert _plain_toml(text) == tomllib.loads(text)
        chunks = _area_chunks(lang)
        assert chunks is not None
        for chunk in chunks[1].values():
            assert _plain_toml(chunks[0] + chunk) == tomllib.loads(chunks[0] + chunk)
    assert _plain_toml('a = "\\u00e9 \\U0001F600 \\" \\\\ \\n"') == tomllib.loads('a = "\\u00e9 \\U0001F600 \\" \\\\ \\n"')
    for other in ('a = 3', 'a = """x"""', "a = 'x'", 'a = "x\\/y"', 'a = "\\ud800"', '[a]\n[a]', 'a = "x"\na = "y"',
                  '"a" = "x"', 'a.b = "x"'):
        assert _plain_toml(other) is None, other


def _hostile_lines(count: int, seed: int) -> list[str]:
    """Lines built from the characters the label grammar turns on (quotes, escapes, brackets, dots,
    comments, blanks, carriage returns, a tab, a control, non-ASCII), seeded."""
    import random

    rng = random.Random(seed)
    pieces = [" ", "\t", "=", '"', "\\", "[", "]", ".", "#", "a", "Z", "0", "_", "-", "é", "\r", "x y", '\\"',
              "\\\\", "\x01", "\x7f", "key", '"v"', "[a.b]", "[a..b]", " = ", "# c", "\u2028"]
    lines = []
    for _ in range(count // 2):
        lines.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 9))))
    # and lines shaped like `key = "value"  # comment`, each part right or subtly wrong
    ws = ["", " ", "\t", " \t ", "\r"]
    keys = ["a", "key_1", "x-y", "", "a b", "a.b", "é", '"a"', "[a]", "#"]
    bodies = ["", "text", 'say \\"hi\\"', "a\\\\b", "\\", "tab\there", 'x"y', "\\u00e9", "é \u2028", "#"]
    tails = ["", "# note", "#", " x", "]", '"', "# é \t"]
    for _ in range(count - len(lines)):
        eq = rng.choice(["=", "=", "==", ":", ""])
        quote = rng.choice(['"', '"', "'", ""])
        lines.append(rng.choice(ws) + rng.choice(keys) + rng.choice(ws) + eq + rng.choice(ws) + quote
                     + rng.choice(bodies) + rng.choice(['"', '"', ""]) + rng.choice(ws) + rng.choice(tails))
    return lines


def test_the_label_lines_are_read_as_the_patterns_read_them():
    """labels._plain_line and _header_area (str methods: the patterns cost ~0.6 ms of `xladoctor
    shape`'s start-up) against the patterns they replace, _PLAIN_LINE and _HEADER, on every line of
    every label file and 200,000 built of the grammar's own characters.  A control character other
    than tab sends the whole file to tomllib (_plain_toml checks the file first), so those lines are
    compared as that decision."""
    from xladoctor.base.labels import LANGUAGES
    from xladoctor.base.labels.reader import _CONTROLS, _HEADER, _PLAIN_LINE, _header_area, _plain_line, _read

    plain, header = re.compile(_PLAIN_LINE), re.compile(_HEADER)
    lines = [line for lang in LANGUAGES for line in _read(lang).decode("utf-8").split("\n")]
    lines += _hostile_lines(200_000, 36)
    matched = 0
    for line in lines:
        if any(c in line for c in _CONTROLS):
            continue
        m = plain.fullmatch(line)
        want = None if m is None else {k: m[k] for k in ("key", "value", "table")}
        assert _plain_line(line) == want, repr(line)
        matched += want is not None and want["key"] is not None
        for piece in line.splitlines():
            stripped = piece.strip()
            if stripped.startswith("["):
                h = header.fullmatch(stripped)
                assert _header_area(stripped) == (h.group(1) if h else None), repr(stripped)
    assert matched > 2_000  # the label files' own lines and many built ones are keys with values


_CHUNK_PIECES = ["[a]", "[b.c]", "[a] # x", "[ a]", " [b]", "\t[c]", "[[d]]", '["q"]', "[a", "k = \"[x]\"", "x[1]",
                 "k = 1", "#", " ", "\n", "\n", "\n", "\r\n", "\r", "\u2028", "\x85", "\f", "\u00a0[e]", "\u3000", "é"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_CHUNK_PIECES), max_size=30).map("".join))
def test_cutting_at_the_brackets_is_cutting_line_by_line(text):
    """labels._chunks_by_bracket (a label file cut at its '['s, ~0.4 ms less of `xladoctor shape`'s
    start-up) against the line-by-line cut, on texts with '\\n' ends only (the others take the loop)."""
    from xladoctor.base.labels.reader import _OTHER_LINE_ENDS, _chunks_by_bracket, _chunks_by_line

    if not any(end in text for end in _OTHER_LINE_ENDS):
        assert _chunks_by_bracket(text) == _chunks_by_line(text), text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_label_file_is_cut_alike_both_ways(lang):
    from xladoctor.base.labels.reader import _chunks_by_bracket, _chunks_by_line, _read

    text = _read(lang).decode("utf-8")
    assert _chunks_by_bracket(text) == _chunks_by_line(text) is not None


def test_text_behaves_as_the_namedtuple_it_replaces():
    """labels.Text's base is written out (namedtuple execs code at start-up): the same repr, equality,
    hash, defaults, keywords, unpacking, copy and pickle as ``collections.namedtuple``'s."""
    import copy
    import pickle
    from collections import namedtuple

    from xladoctor.base.labels import Text, text

    Old = type("Text", (namedtuple("Text", ("key", "values"), defaults=((),)),), {"__slots__": ()})

    for args, kwargs in (((("a.b",)), {}), (("a.b", (("n", 1),)), {}), ((), {"key": "k", "values": (("x", "é"),)})):
        new, old = Text(*args, **kwargs), Old(*args, **kwargs)
        assert repr(new) == repr(old) and new == old and hash(new) == hash(old) and tuple(new) == tuple(old)
        assert (new.key, new.values) == (old.key, old.values) and new._fields == old._fields
        assert pickle.loads(pickle.dumps(new)) == new and type(pickle.loads(pickle.dumps(new))) is Text
        assert copy.deepcopy(new) == new and type(copy.copy(new)) is Text
    assert Text._field_defaults == Old._field_defaults and Text.__match_args__ == Old.__match_args__
    assert text("shape.shape", shape="f32[2]") == Text("shape.shape", (("shape", "f32[2]"),))
    with pytest.raises(TypeError):
        Text()


def test_every_name_the_label_modules_export_exists():
    """``from xladoctor.base.labels import *`` works: no name in ``__all__`` was left behind when the
    file reader moved to labels/reader.py."""
    import xladoctor.base.labels as lookups

    assert [name for name in lookups.__all__ if not hasattr(lookups, name)] == []


def _unescaped_by_re(raw: str) -> str | None:
    """What unescaped_basic_string read with ``re.sub(reader._ESCAPE, ...)`` (its reference)."""
    from xladoctor.base.labels import reader

    bad = False

    def one(m: re.Match[str]) -> str:
        nonlocal bad
        if m[1]:
            return reader._ESCAPED[m[1]]
        if m[4] is not None:
            return ""
        code = int(m[2] or m[3] or "-1", 16)
        if code < 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            bad = True
            return ""
        return chr(code)

    value = re.sub(reader._ESCAPE, one, raw)
    return None if bad else value


_ESCAPY = st.text(alphabet=st.sampled_from(list('\\\\\\"bfnrtuU0123456789aAfFgG_ \t\n\r\u0660é')), max_size=24)


@settings(max_examples=3000, deadline=None)
@given(_ESCAPY)
def test_escapes_are_read_as_the_pattern_reads_them(raw):
    """reader.unescaped_basic_string reads escapes without re (check LOG imported it for a label
    area, h52s): the same value, or None, as re.sub with the escape pattern gives."""
    from xladoctor.base.labels.reader import unescaped_basic_string

    assert unescaped_basic_string(raw) == _unescaped_by_re(raw), raw


@pytest.mark.parametrize("raw", ["a\\nb", "\\u00e9", "\\U0001F600x", "\\ud800", "\\U00110000", "\\u12", "\\x",
                                 "a\\  \n \n\t b", "a\\ b", "\\", "\\\\\\\"", "\\u٠٠٠٠", "\\u00E9\\t", "end\\"])
def test_escape_edges(raw):
    from xladoctor.base.labels.reader import unescaped_basic_string

    assert unescaped_basic_string(raw) == _unescaped_by_re(raw), raw
