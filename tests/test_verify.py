"""Modules that parse but that XLA's verifier rejects: one located error, never a crash in an analysis."""

import pytest

from xladoctor.base.errors import VerifyError
from xladoctor.cli.main import main
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


def test_every_command_accepts_what_xlas_parser_accepts_and_offload_predicts_the_refusal(tmp_path, capsys):
    """jaxlib's parser takes a gte past its tuple's end (the verifier refuses it, in the compile): ``hlo``
    read it and ``offload`` refused it with exit 2 (issue 35).  Now both read it, and ``offload``'s
    verdict is the compile's: it fails, at the verifier, naming the instruction and the rule."""
    import json

    path = tmp_path / "bad.hlo"
    _name, text, line, _col, message = CASES[0]
    path.write_text(text)
    assert main(["hlo", str(path)]) == 0
    capsys.readouterr()
    assert main(["offload", str(path), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    (failure,) = doc["details"]["failures"]
    assert doc["details"]["outcome"] == "failure" and failure["first"] and failure["instruction"] == "g"
    assert "HloVerifier" in failure["message"] and message in failure["message"] and f"line {line}" in failure["message"]
    assert main(["check", "--full", str(path)]) == 1
    assert "HloVerifier" in capsys.readouterr().out


def test_real_modules_verify(jax_hlo_corpus):
    for path in jax_hlo_corpus.hlo_dump_files():
        verify_module(parse_module(path.read_text(), str(path)))


def test_the_rules_read_per_opcode_are_the_enums():
    """verify reads each checked opcode's rules from dicts made at import: the enum's properties."""
    from xladoctor.ir import verify

    assert verify._CALLS.keys() == verify._PASSES_TO.keys() == verify._CHECKED
    for op in verify._CHECKED:
        assert verify._CALLS[op] == op.called_computations
        assert verify._PASSES_TO[op] == op.passes_operands_to


def test_a_call_that_lost_its_callee_is_refused():
    module = parse_module("HloModule m\nc {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] negate(x)\n}\n"
                          "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT k = f32[2] call(p), to_apply=c\n}\n", "bad.hlo")
    verify_module(module)
    module.entry_computation().root.set_called_computations({})
    with pytest.raises(VerifyError) as info:
        verify_module(module)
    assert "call needs 1 'to_apply' computation(s), has 0" in info.value.message
