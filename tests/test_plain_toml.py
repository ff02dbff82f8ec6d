"""catalogue/plain_toml.py reads the catalogue files as tomllib does, or refuses (then tomllib reads them)."""

from __future__ import annotations

import os

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the core dependency tomli is the same parser
    import tomli as tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

from xladoctor.catalogue import plain_toml
from xladoctor.catalogue.loader import DATA, load_entries_from


def _same_or_refused(text: str) -> None:
    """What ``plain_toml.loads`` gives is tomllib's value; where tomllib fails it must refuse."""
    ours = plain_toml.loads(text)
    try:
        theirs = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert ours is None, (text, ours)
        return
    assert ours is None or ours == theirs, (text, ours, theirs)


def test_every_catalogue_file_is_read_without_tomllib_and_as_tomllib_reads_it():
    names = sorted(n for n in os.listdir(DATA) if n.endswith(".toml"))
    assert len(names) > 30
    for name in names:
        with open(os.path.join(DATA, name), encoding="utf-8") as f:
            text = f.read()
        ours = plain_toml.loads(text)
        assert ours is not None, name  # else every `explain` pays for tomllib again
        assert ours == tomllib.loads(text), name


CASES = [
    "", "\n\n# only a comment", "a = true", "a = false\nb = 'x'", "a = truex", 'a = "x" # c\n[t]\nb = []',
    'a = ["x", \'y\',]', 'a = [\n  "x", # one\n  "y"\n]\n', "a = [,]", "a = [\"x\" \"y\"]", 'a = ["x",,]',
    'a = """\nline\\\n   next"""', 'a = """x\\  \n  y"""', 'a = """x\\ y"""', "a = '''\nraw \\n'''", 'a = """a""""',
    "a = ''''a'''", 'a = """\\""""', 'a = "\\u00e9\\U0001F600\\t"', 'a = "\\ud800"', 'a = "\\e"', 'a = "\\x41"',
    'a = "tab\there"', "a = 'x\ty'", 'a = "x\x01"', "a = 1", "a = 1.5", "a = 1979-05-27", "a = {b = 1}",
    "a.b = 'x'", '"a" = "x"', "a = 'x'\na = 'y'", "[t]\n[t]", "a = 'x'\n[a]", "[[t]]", "[ t ]\nb='x'",
    "a = 'x' b", "a =\n'x'", "a = 'x'\r\n", "\ufeffa = 'x'", "a = [[]]", "a = ['''x''']", 'a = ["""x"""]',
    "a = 'x'   \n\n   # c\n  b = 'y'  ", "a = \"x\\\\\"", 'a = """x\\\\"""', "a = 'x' # \x7f",
]


@pytest.mark.parametrize("text", CASES)
def test_each_form_is_read_as_tomllib_reads_it_or_refused(text):
    _same_or_refused(text)


_PIECES = st.sampled_from(['"', "'", '"""', "'''", "\\", "\\n", "\\u00e9", "\\U0001F600", "\\ud800", "\n", " ", "\t",
                           "#", "[", "]", ",", "=", "a", "b", "en", "true", "false", "1", ".", "é", "{", "}", "\r",
                           "\x01", "\\\n"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_random_texts_of_toml_punctuation_are_read_as_tomllib_reads_them_or_refused(text):
    _same_or_refused(text)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["a = ", "[t]\na = ", "a = [", "a = ['x', "]), st.lists(_PIECES, max_size=16).map("".join),
       st.sampled_from(["", "\n", "]", "\nb = 'y'", "]\n"]))
def test_random_values_are_read_as_tomllib_reads_them_or_refused(head, value, tail):
    _same_or_refused(head + value + tail)


def test_a_file_it_refuses_is_read_by_tomllib_with_tomllib_s_error():
    """The loader's error for a broken file is still tomllib's message."""
    from xladoctor.base.errors import InputError

    with pytest.raises(InputError, match="not valid TOML: Expected '=' after a key"):
        load_entries_from([("E0100.toml", b"code = 'E0100'\nname\n")])
