"""syntax/shape_plain.py (``xladoctor shape``'s hand-written reader) against the grammar's parser.

Whatever the plain reader returns must be exactly what ``shape_parser.parse_shape_warned`` returns,
with no warning; where it answers ``None`` the command asks the grammar, so errors and warnings are
the grammar's by construction.  Checked over every shape spelled in the corpora (tests/data,
examples), hostile strings and generated ones built of the grammar's pieces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xladoctor.base.errors import InputError
from xladoctor.syntax.shape_parser import parse_shape_warned
from xladoctor.syntax.shape_plain import plain_shape

ROOT = Path(__file__).resolve().parent.parent
# Anything that could be an array shape's spelling in a module, log or test table (a superset: the
# grammar decides what it is).
_CANDIDATE = re.compile(r"[a-z][a-z0-9_]*\[[^\]\s]*\](?:\{[^{}\s]*\})?")


def _agrees(text: str) -> bool:
    """True where the plain reader read ``text``; fails the test where it read it differently."""
    plain = plain_shape(text)
    if plain is None:
        return False
    shape, warnings = parse_shape_warned(text)  # an error here is a disagreement too
    assert warnings == (), text
    assert plain == shape and str(plain) == str(shape) and repr(plain) == repr(shape), text
    assert hash(plain) == hash(shape), text
    return True


def _corpus_spellings() -> set[str]:
    found: set[str] = set()
    for folder in (ROOT / "tests" / "data", ROOT / "examples"):
        for path in folder.rglob("*"):
            if path.is_file() and path.stat().st_size < 5_000_000:
                text = path.read_bytes().decode("utf-8", "replace")
                found.update(m.group(0) for m in _CANDIDATE.finditer(text))
    return found


def test_every_corpus_shape_reads_the_same():
    spellings = _corpus_spellings()
    read = sum(_agrees(s) for s in spellings)
    assert len(spellings) > 1000 and read > 500, (len(spellings), read)  # the corpora are read, the reader used


@pytest.mark.parametrize("text", [
    "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}", "f32[]", "f32[2,3]", "f32[2,3]{1,0}", "pred[7]{0:T(1024)}",
    "s4[128,8]{1,0:T(8,128)(4,1)}", "f32[8,128]{1,0:T(8,128)(*,1)}", "f32[0,9223372036854775807]",
])
def test_plain_spellings_are_read_by_hand(text):
    assert _agrees(text)


@pytest.mark.parametrize("text", [
    "", "[", "f32", "f32[", "f32[2,", "f32[2,3", "f32[2,3]{", "f32[2,3]{1,0", "f32[2,3]{}", "f32[]{}",
    "f32[2,3]{0,0}", "f32[2,3]{0,1,2}", "f32[2,3]{0}", "f32[2,3]{1,0:}", "f32[2,3]{1,0:T}", "f32[2,3]{1,0:T()}",
    "f32[2,3]{1,0:T(0)}", "f32[2,3]{1,0:T(-1)}", "f32[2,3]{1,0:T(8,)}", "f32[2,3]{1,0:T(8)(}",
    "f32[2,3]{1,0:T(18446744073709551615)}", "f32[2,3]{1,0:T(9223372036854775808)}", "f32[2,3]{1,0:S(1)}",
    "f32[2,3]{1,0:T(8)S(1)}", "f32[02,3]", "f32[-2]", "f32[+2]", "f32[ 2]", " f32[2]", "f32[2] ", "f32[2]/*c*/",
    "f32[<=2]", "f32[?]", "(f32[2])", "b(f32[2])", "token[]", "token[2]", "opaque_type[]", "F32[2]", "f33[2]",
    "f32[9223372036854775807,2]", "f32[9223372036854775808]", "f32[4611686018427387904]",
    "f32[2,3]{1,0}}", "f32[2,3]]", "f32[2]{0}{0}", "f32[2]{0:T(8)}x", "f32[2]{0:T(8)x(2)}", "f32[2]{0,}",
    "f32[2]{00}", "f32[2]{-0}", "f32[2]{0:T(08)}", "f32[2]{0:T(*)}", "f32[2]{0:T(8)(2,1)(1)}", "f32[2]\n",
    "f32[2]{0}\u00a0", "f32[\uff12]", "f32[٢]", "f32[2]{٠}", "f32[10000000000000000000000]",
])
def test_hostile_strings_agree_or_go_to_the_grammar(text):
    try:
        _agrees(text)
    except InputError:
        pytest.fail(f"plain_shape read {text!r}, which the grammar refuses")


_TYPES = st.sampled_from(["f32", "bf16", "s4", "u8", "pred", "f8e4m3fn", "c128", "token", "opaque_type", "tuple",
                          "f16", "s64", "F32", "x"])
_NUMBER = st.one_of(st.integers(0, 12).map(str), st.sampled_from(["00", "01", "-1", "+1", "9223372036854775807",
                                                                    "9223372036854775808", "4611686018427387904",
                                                                    "18446744073709551615", "*", "?", "<=4", " 2",
                                                                    ""]))


def _listed(numbers: st.SearchStrategy[str], max_size: int) -> st.SearchStrategy[str]:
    return st.lists(numbers, max_size=max_size).map(",".join)


_TILE = _listed(_NUMBER, 3).map(lambda t: f"({t})")
_LAYOUT = st.one_of(
    st.just(""),
    st.tuples(_listed(st.integers(0, 4).map(str), 5), st.sampled_from(["", ":", ":T", ":S(1)", ":T(8)S(1)"]),
              st.lists(_TILE, max_size=3).map("".join), st.sampled_from(["}", "", "}}", "} ", ")"]))
    .map(lambda p: "{" + p[0] + p[1] + p[2] + p[3]))
_SHAPE = st.tuples(_TYPES, _listed(_NUMBER, 4), _LAYOUT).map(lambda p: f"{p[0]}[{p[1]}]{p[2]}")


@settings(max_examples=4000, deadline=None)
@given(_SHAPE)
def test_generated_shapes_agree_or_go_to_the_grammar(text):
    try:
        _agrees(text)
    except InputError:
        pytest.fail(f"plain_shape read {text!r}, which the grammar refuses")


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(list("f32[]{},:T()*0123456789 -<=?b(S")), max_size=30).map("".join))
def test_generated_character_soup_agrees_or_goes_to_the_grammar(text):
    try:
        _agrees(text)
    except InputError:
        pytest.fail(f"plain_shape read {text!r}, which the grammar refuses")


def test_permuted_tiled_layouts_are_read_by_hand():
    """The plain path is the common one: a permutation of every rank up to 5, tiled or not."""
    from itertools import permutations

    for rank in range(6):
        for perm in permutations(range(rank)):
            dims = ",".join(str(2 + i) for i in range(rank))
            m2m = ",".join(map(str, perm))
            for attrs in ("", ":T(8,128)(2,1)", ":T(4)(*,1)"):
                if rank == 0 and not attrs:
                    continue
                assert _agrees(f"bf16[{dims}]{{{m2m}{attrs}}}"), (dims, m2m, attrs)
