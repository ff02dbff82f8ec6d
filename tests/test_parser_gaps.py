"""The parser's direct reads of the usual gaps around a computation body (``name {``, ``\\n}``, a blank line
before the next computation's name) give what the full skip gives on every other spelling: the same module,
the same positions, the same errors."""

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

USUAL = """HloModule m

add.1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=add.1
}
"""

# Each takes the full skip at one of the three places (or all of them).
SPELLINGS = [
    USUAL.replace("add.1 {", "add.1  {"),
    USUAL.replace("add.1 {", "add.1{"),
    USUAL.replace("add.1 {", "add.1 /* c */ {"),
    USUAL.replace("ROOT s = f32[] add(a, b)\n}", "ROOT s = f32[] add(a, b)\n  }"),
    USUAL.replace("ROOT s = f32[] add(a, b)\n}", "ROOT s = f32[] add(a, b)\r\n}"),
    USUAL.replace("}\n\nENTRY", "}\n \nENTRY"),
    USUAL.replace("}\n\nENTRY", "}\n\n// next\nENTRY"),
    USUAL.replace("}\n\nENTRY", "}\n\n\nENTRY"),
    USUAL.replace(" {\n", "  {\n").replace("\n}\n", "\n }\n"),
    USUAL + "\n// the end, after a blank line\n  \n",  # the module loop's end test by the full skip (at_end)
    USUAL.replace("}\n\nENTRY", "}\n/* c */ENTRY"),
]


def _positions(text: str) -> list[tuple[str, int, int]]:
    module = parse_module(text, "t.hlo")
    return [(i.name, i.line, i.col) for c in module.computations for i in c.instructions]


def test_the_usual_gaps_read_as_any_other_spelling() -> None:
    usual = parse_module(USUAL, "t.hlo")
    printed = print_module(usual)
    for text in SPELLINGS:
        assert print_module(parse_module(text, "t.hlo")) == printed, text


def test_positions_after_the_usual_gaps() -> None:
    assert _positions(USUAL) == [("a", 4, 3), ("b", 5, 3), ("s", 6, 3), ("x", 10, 3), ("c", 11, 3), ("r", 12, 3)]
    # one more line above the entry: its instructions one line lower, the reducer's as they were
    shifted = _positions(USUAL.replace("}\n\nENTRY", "}\n\n\nENTRY"))
    assert shifted[:3] == [("a", 4, 3), ("b", 5, 3), ("s", 6, 3)]
    assert shifted[3:] == [("x", 11, 3), ("c", 12, 3), ("r", 13, 3)]


def test_a_computation_attribute_after_the_brace_is_still_read() -> None:
    text = USUAL.replace("ROOT s = f32[] add(a, b)\n}", 'ROOT s = f32[] add(a, b)\n}, execution_thread="host"')
    module = parse_module(text, "t.hlo")
    assert module.computations[0].execution_thread == "host"


# The messages and positions the full skip gave before the direct reads (the same on the tree before them).
@pytest.mark.parametrize("text, message", [
    (USUAL.replace("add.1 {", "add.1 ("), "t.hlo:4:5: expected ':' after parameter 'a', found '='"),
    (USUAL.replace("\n}\n\nENTRY", "\n\n\nENTRY"),
     "t.hlo:9:1: expected a instruction name: 'ENTRY' is a keyword in XLA's HLO lexer"),
    (USUAL.rstrip("}\n"), "t.hlo:12:62: unexpected end of input inside computation 'main': missing '}'"),
    (USUAL.replace("ENTRY main {", "ENTRY main {}"), "t.hlo:9:13: computation 'main' has no instructions"),
])
def test_errors_where_the_usual_spelling_breaks(text: str, message: str) -> None:
    with pytest.raises(HloParseError) as raised:
        parse_module(text, "t.hlo")
    assert str(raised.value) == message
