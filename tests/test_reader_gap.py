"""The compiled core's gap reader ends where the gap regex ends, and the parse is the same with it.

:func:`xladoctor.syntax.reader.gap_end` stands in for ``match_end(GAP, ...)`` in
:meth:`~xladoctor.syntax.reader.Reader.skip` in the compiled build only; here (pure Python) the two
are compared at every position of corpus modules and of edge texts (comments, control and Unicode
white space), then whole modules are parsed with the compiled branch taken and must give the same IR.
"""

from __future__ import annotations

import pytest

from test_line_split import CORPUS, assert_compiled_branch_parses_alike
from xladoctor.syntax import reader
from xladoctor.syntax.reader import GAP, gap_end, match_end

EDGES = [
    "", " ", "\n\n  x", "\t\r\n\f\vx", "  /* c */ x", "  // c\n  x", "  //", "  /* open", "  / x", " /x",
    "\n\x1c\x1d\x1e\x1fx", " \x85 x", " \xa0x", " \u2028\u3000x", "  \x00 x", "\n}\n", " \x7f", " é",
    "/*a*/\n/*b*/ // c\n\n  y", "  \n/", "x  ", " \x1b ",
]


def _compare(text: str) -> None:
    for pos in range(len(text) + 1):
        assert gap_end(text, pos) == match_end(GAP, text, pos), (text[pos:pos + 40], pos)


@pytest.mark.parametrize("text", EDGES)
def test_gap_end_is_the_regexs_on_edge_texts(text: str) -> None:
    _compare(text)


@pytest.mark.parametrize("path", CORPUS[::7], ids=lambda p: p.name)
def test_gap_end_is_the_regexs_at_every_corpus_position(path) -> None:
    _compare(path.read_text(encoding="utf-8")[:20000])


@pytest.mark.parametrize("path", CORPUS[::5], ids=lambda p: p.name)
def test_the_compiled_branch_parses_the_same_module(path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_compiled_branch_parses_alike(path, monkeypatch, reader, "_COMPILED")
