"""Modules that parse but that XLA's verifier rejects: one located error, never a crash in an analysis."""

import pytest

from xladoctor.cli import main
from xladoctor.errors import VerifyError
from xladoctor.ir.verify import verify_module
from xladoctor.syntax.hlo_parser import parse_module

# A while without body= is refused by the parser now, as jaxlib's parser refuses it ("attribute
# body is expected but not seen", issue 23 item 8): the verifier never sees one.
CASES = [
    ("gte past the end", "HloModule m\nENTRY e {\n  p = (f32[2]) parameter(0)\n"
     "  ROOT g = f32[2] get-tuple-element(p), index=3\n}\n", 4, 3, "index=3 is out of range for operand shape (f32[2]{0})"),
    ("gte of an array", "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
     "  ROOT g = f32[2] get-tuple-element(p), index=0\n}\n", 4, 3, "index=0 is out of range for operand shape f32[2]{0}"),
    ("call arity", "HloModule m\nc {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] negate(x)\n}\n"
     "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT k = f32[2] call(p, p), to_apply=c\n}\n", 8, 3,
     "call passes 2 operand(s) to 'c', which takes 1"),
    # A tuple whose operand count differs from its shape is now refused by the parser, as jaxlib's
    # parser refuses it ("expects 2 operands, but has 1 operands"); a negative index parses there too.
    ("negative gte index", "HloModule m\nENTRY e {\n  p = (f32[2]) parameter(0)\n"
     "  ROOT g = f32[2] get-tuple-element(p), index=-1\n}\n", 4, 3, "index=-1 is out of range"),
]


@pytest.mark.parametrize("name,text,line,col,message", CASES, ids=[c[0] for c in CASES])
def test_verifier_points_at_the_instruction(name, text, line, col, message):
    module = parse_module(text, "bad.hlo")
    with pytest.raises(VerifyError) as info:
        verify_module(module)
    err = info.value
    assert message in err.message
    assert (err.source, err.line, err.col) == ("bad.hlo", line, col)


def test_offload_cli_reports_it_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.hlo"
    _name, text, line, col, message = CASES[0]
    path.write_text(text)
    assert main(["offload", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"{path}:{line}:{col}: {message}")


def test_real_modules_verify(jax_hlo_corpus):
    for path in jax_hlo_corpus.hlo_dump_files():
        verify_module(parse_module(path.read_text(), str(path)))
