"""The compiled core's line splitter reads exactly what the line regex reads, or leaves the line to it.

:func:`xladoctor.syntax.line_split.split_line` stands in for ``_LINE.match`` on jax's usual lines
in the compiled build only; here (pure Python) it is compared with the regex on every line start of
the corpus and on edge cases: where it answers, the groups, the instruction's start and the match's
end must be the regex's.  Then whole modules are parsed with the compiled build's branch taken
(``COMPILED`` set) and must give the same IR as without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_instruction_line import _fingerprint
from xladoctor.syntax import instruction_line
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.instruction_line import _CALL, _LINE, _ONE_COMPUTATION_ROLES, _SCALAR_LITERAL
from xladoctor.syntax.line_split import call_span, scalar_literal_form, split_line, split_names

DATA = Path(__file__).parent / "data"
CORPUS = sorted(p for p in (DATA / "offload").rglob("*") if p.suffix in (".hlo", ".txt"))

JAX_LINES = """ENTRY main.3 {
  x.1 = f32[8,128]{1,0} parameter(0), sharding={replicated}
  constant.2 = f32[] constant(0)
  dot.2 = f32[8,128]{1,0} dot(x.1, x.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tanh.1 = f32[8,128]{1,0} tanh(dot.2)
  put.4 = f32[8,128]{1,0} custom-call(tanh.1), custom_call_target="Sharding", sharding={replicated}
  t.1 = (f32[], f32[8,128]{1,0}) tuple(constant.2, tanh.1)
  %p.2 = f32[8,128]{1,0} parameter(1)
  ROOT  g.1 = f32[] get-tuple-element(t.1), index=0
}
"""

# Each line's head (shape and opcode) is made known by the usual line before it; the line after
# differs in one way the regex reads otherwise, or refuses.
EDGES = [
    "  ROOT = f32[] add(a, b)",
    "  ROOTx = f32[] add(a, b)",
    "  ROOT\tr = f32[] add(a, b)",
    "  ROOT %r = f32[] add(a, b)",
    "  %%r = f32[] add(a, b)",
    "  r  = f32[] add(a, b)",
    "  r =  f32[] add(a, b)",
    "  r\t= f32[] add(a, b)",
    "  r = f32[] add(a,b)",
    "  r = f32[] add(a , b)",
    "  r = f32[] add( a, b)",
    "  r = f32[] add(a, b )",
    "  r = f32[] add(%a, %b)",
    "  r = f32[] add(a, b, )",
    "  r = f32[] add(a,  b)",
    "  r = f32[] add(1a, b)",
    "  r = f32[] add(a-1.x_Y, B9)",
    "  r = f32[] add(a%b, c)",
    "  r:s = f32[] add(a, b)",
    "  r = f32[] add(a, b/c)",
    "  r = f32[] add(a, b),",
    "  r = f32[] add(a, b), ",
    "  r = f32[] add(a, b) , x=1",
    "  r = f32[] add(a, b),x=1",
    "  r = f32[] add(a, b), x=1\r",
    "  r = f32[] add(a, b), x=1\t",
    "  r = f32[] add(a, b), x=1 ",
    "  r = f32[] add(a, b) ",
    "  r = f32[] add(a, b)\x0b",
    "  r = f32[] add(a, b), x=\u00e9",
    "  r = f32[] add(\u00e9, b)",
    "  r = f32[] parameter()",
    "  r = f32[] parameter(\u0663)",
    "  r = f32[] parameter(0, 1)",
    "  r = f32[] parameter(-1)",
    "  r = f32[] add(a, b), x=(1)",
    "  r = f32[] add(a, b), x={1}\n  , y=2",
    "  r = f32[] add(a, b), x={1}\n  /* c */",
    "  r = f32[] add(a, b)\n\n// c",
    "  r = f32[] add(a, b)\n,",
    "  r = (f32[], f32[]) tuple(a, b)",
    "  r = (f32[] ) tuple(a, b)",
    "  r = f32[]  add(a, b)",
    "  r = f32[] add(a, (b))",
    "  r = f32[] add(a, b) x=1",
    "  r =",
    "  r = f32[] add(",
]


def _regex_split(text: str, pos: int) -> tuple | None:
    m = _LINE.match(text, pos)
    if m is None:
        return None
    return (*m.groups(), m.start(1) if m.group(1) else m.start(2), m.end())


def _starts(text: str) -> list[int]:
    """Where the reader may stand before a line: at the newline before it, and just after."""
    out = [0]
    i = text.find("\n")
    while i >= 0:
        out += [i, i + 1]
        i = text.find("\n", i + 1)
    return out


def _compare(text: str) -> int:
    """Split every line start of ``text`` both ways (heads known from the regex first); the lines split."""
    heads: dict[str, object] = {}
    for pos in _starts(text):
        m = _LINE.match(text, pos)
        if m is not None:
            heads[m.group(4)] = True
    split = 0
    for pos in _starts(text):
        got = split_line(text, pos, heads)
        if got is not None:
            assert got == _regex_split(text, pos), (text[pos:pos + 120], got)
            split += 1
    return split


def test_usual_lines_are_split_as_the_regex_splits_them() -> None:
    assert _compare(JAX_LINES) == 2 * 8  # every instruction line, from both starts


def test_a_head_never_seen_is_left_to_the_regex() -> None:
    assert split_line(JAX_LINES, JAX_LINES.index("  x.1"), {}) is None


_HEADS = "c {\n  u0 = f32[] add(a, b)\n  u1 = (f32[], f32[]) tuple(a, b)\n  u2 = f32[] parameter(0)\n"


@pytest.mark.parametrize("line", EDGES)
def test_edge_lines_split_alike_or_left_to_the_regex(line: str) -> None:
    _compare(_HEADS + line + "\n}\n")


def test_a_line_at_the_end_of_the_text_is_left_to_the_regex() -> None:
    text = _HEADS + "  r = f32[] add(a, b)"
    assert _compare(text) == 2 * 3 and split_line(text, text.rindex("\n"), {"f32[] add": True}) is None


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_lines_split_alike(path: Path) -> None:
    _compare(path.read_text(encoding="utf-8"))


def assert_compiled_branch_parses_alike(path: Path, monkeypatch: pytest.MonkeyPatch, module: object, flag: str) -> None:
    """``path`` parses to the same IR, or is refused with the same message, once ``module.flag`` (a
    compiled-core-only branch, tested here in pure Python) is switched on."""
    text = path.read_text(encoding="utf-8")
    try:
        before = _fingerprint(parse_module(text, path.name))
    except Exception as e:  # refused alike, with the same message
        monkeypatch.setattr(module, flag, True)
        with pytest.raises(type(e)) as again:
            parse_module(text, path.name)
        assert str(again.value) == str(e)
        return
    monkeypatch.setattr(module, flag, True)
    assert _fingerprint(parse_module(text, path.name)) == before


@pytest.mark.parametrize("path", CORPUS[::5], ids=lambda p: p.name)
def test_the_compiled_branch_parses_the_same_module(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_compiled_branch_parses_alike(path, monkeypatch, instruction_line, "COMPILED")


CALL_EDGES = [
    ", to_apply=r.1", ", dimensions={0}, to_apply=region_0.2_c7", ",to_apply=r", ",\t to_apply=r , x=1",
    ", to_apply=r ", ", to_apply=r x", ", to_apply=1r", ", to_apply=", ", to_apply==r", ", xto_apply=r",
    ", _to_apply=r", ",Xto_apply=r", ", to_apply=r-1.x_Y, body=b", ", bogus=r, body=b, condition=c",
    ' metadata={op_name="a, calls=b"}, calls=c', ", calls=\u00e9", ", calls=a\u00e9", "to_apply=r",
    ", condition=c\t,", ", true_computation=t, false_computation=f", ", branch_computations={a, b}",
    ", to_apply=a=b", "=, =, to_apply=z", ", scatter=s, select=t", ", async_wrapped=w",
]


def _regex_call(text: str, start: int, end: int) -> tuple[int, int, int] | None:
    c = _CALL.search(text, start, end)
    return None if c is None else (c.start(1), *c.span(2))


@pytest.mark.parametrize("text", CALL_EDGES)
def test_call_span_finds_what_the_call_regex_finds(text: str) -> None:
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 1):
            assert call_span(text, start, end, _ONE_COMPUTATION_ROLES) == _regex_call(text, start, end), (text, start, end)


@pytest.mark.parametrize("path", CORPUS[::3], ids=lambda p: p.name)
def test_call_span_on_corpus_attributes(path: Path) -> None:
    for line in path.read_text(encoding="utf-8").splitlines():
        comma = line.find(",")
        if comma >= 0:
            for start in (0, comma):
                got = call_span(line, start, len(line), _ONE_COMPUTATION_ROLES)
                assert got == _regex_call(line, start, len(line)), line


@pytest.mark.parametrize("plain", ["a", "a, b", "a, b, c", "a,, b", "a, , b", ", a", "a, ", ", ", "", "a,  b", "a ,b"])
def test_split_names_splits_as_str_split(plain: str) -> None:
    assert split_names(plain) == plain.split(", ")


@pytest.mark.parametrize("inside", ["0", "-inf", " 1", "\t 1.5e-3", "{1, 2}", "{{1,2},{3,4}}", "true", "", " ", "\t",
                                    "}", ",1", " ,", "1)", "(1)", "1 2", "0x1F", "+1", "nan", "1\n", "\u00e9", "1\u00e9",
                                    '"s"', "{1,}", "a_b.c-d"])
def test_scalar_literal_form_is_the_regexs(inside: str) -> None:
    assert scalar_literal_form(inside) == bool(_SCALAR_LITERAL.fullmatch(inside))


def test_scalar_literal_form_on_every_short_text() -> None:
    alphabet = " \t-+0aZ_.{},()\"\n\u00e9"
    texts = [""] + list(alphabet)
    texts += [a + b for a in alphabet for b in alphabet]
    texts += [a + b + c for a in alphabet for b in alphabet for c in alphabet]
    for inside in texts:
        assert scalar_literal_form(inside) == bool(_SCALAR_LITERAL.fullmatch(inside)), repr(inside)
