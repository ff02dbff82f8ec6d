"""base/lazy_pattern.py: a pattern compiled by its first use answers as ``re.compile`` of the same text."""

from __future__ import annotations

import re

from xladoctor.base.lazy_pattern import LazyPattern


def test_not_compiled_until_used() -> None:
    p = LazyPattern(r"(\d+)-(\d+)")
    assert p._pattern is None
    assert p.pattern == r"(\d+)-(\d+)"
    assert p._pattern is None  # reading the text compiles nothing
    m = p.match("12-34 x")
    assert m is not None and m.groups() == ("12", "34")
    assert p._pattern is not None and p.compiled is p._pattern


def test_methods_answer_as_re_compile() -> None:
    text = "a1 b22\nc333 // x\n"
    for flags in (0, re.M, re.S):
        lazy, eager = LazyPattern(r"^\w(\d+)|//.*$", flags), re.compile(r"^\w(\d+)|//.*$", flags)
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
        assert lazy.findall(text) == eager.findall(text)
        assert lazy.sub("#", text, 1) == eager.sub("#", text, 1)
        assert lazy.sub(lambda m: m.group(0).upper(), text) == eager.sub(lambda m: m.group(0).upper(), text)
        assert lazy.split(text) == eager.split(text)
        for pos, end in ((0, len(text)), (3, 8), (7, 12)):
            assert _span(lazy.match(text, pos, end)) == _span(eager.match(text, pos, end))
            assert _span(lazy.search(text, pos, end)) == _span(eager.search(text, pos, end))
            assert _span(lazy.fullmatch(text, pos, end)) == _span(eager.fullmatch(text, pos, end))
            assert _span(LazyPattern("c333").fullmatch(text, 7, 11)) == (7, 11)


def _span(m: re.Match[str] | None) -> tuple[int, int] | None:
    return None if m is None else m.span()
