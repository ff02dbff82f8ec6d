"""HLO module parsing: model structure, every syntax form XLA prints, and bad input."""

import sys

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

MODULE = '''HloModule jit_step, is_scheduled=true, entry_computation_layout={(f32[8,128]{1,0:T(8,128)}, s32[]{:T(128)})->(f32[8,128]{1,0:T(8,128)S(5)}, s32[]{:T(128)})}, input_output_alias={ {1}: (1, {}, may-alias) }, buffer_donor={ (0, {}) }, frontend_attributes={fingerprint_before_lhs="abc"}

FileNames
1 "/home/me/train.py"

FunctionNames
1 "step"

FileLocations
1 {file_name_id=1 function_name_id=1 line=42 end_line=42 column=8 end_column=30}

StackFrames
1 {file_location_id=1 parent_frame_id=0}

%body (p: (f32[8,128], s32[])) -> (f32[8,128], s32[]) {
  %p = (f32[8,128]{1,0}, s32[]) parameter(0)
  %x = f32[8,128]{1,0} get-tuple-element(%p), index=0
  %i = s32[] get-tuple-element(%p), index=1
  %t = f32[8,128]{1,0} tanh(%x), metadata={op_name="jit(step)/tanh" stack_frame_id=1}
  ROOT %out = (f32[8,128]{1,0}, s32[]) tuple(%t, %i)
}

%cond (p.1: (f32[8,128], s32[])) -> pred[] {
  %p.1 = (f32[8,128]{1,0}, s32[]) parameter(0)
  %i.1 = s32[] get-tuple-element(%p.1), index=1
  %c = s32[] constant(10)
  ROOT %lt = pred[] compare(%i.1, %c), direction=LT
}

ENTRY %main (a: f32[8,128], b: s32[]) -> (f32[8,128], s32[]) {
  %a = f32[8,128]{1,0} parameter(0), metadata={op_name="x"}
  %b = s32[] parameter(1), metadata={op_name="n"}
  %tup = (f32[8,128]{1,0}, s32[]) tuple(%a, %b)
  %w = (f32[8,128]{1,0}, s32[]) while(%tup), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"10"}}
  %r = f32[8,128]{1,0} get-tuple-element(%w), index=0
  %mth = f32[8,128]{1,0} custom-call(%r), custom_call_target="annotate_device_placement", custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}, metadata={op_name="jit(step)/device_put" source_file="/home/me/train.py" source_line=57}
  %n = s32[] get-tuple-element(%w), index=1
  ROOT %res = (f32[8,128]{1,0}, s32[]) tuple(%mth, %n)
}
'''


@pytest.fixture(scope="module")
def module():
    return parse_module(MODULE, "step.hlo")


def test_header(module):
    assert module.name == "jit_step"
    assert module.attributes["is_scheduled"] == "true"
    assert str(module.entry_computation_layout) == (
        "(f32[8,128]{1,0:T(8,128)}, s32[]{:T(128)})->(f32[8,128]{1,0:T(8,128)S(5)}, s32[]{:T(128)})")
    assert module.has_explicit_entry_layout
    alias = module.input_output_alias[0]
    assert (alias.output_index, alias.parameter_number, alias.parameter_index, alias.kind) == ((1,), 1, (), "may-alias")
    assert module.buffer_donor == [(0, ())]
    assert module.frontend_attributes == {"fingerprint_before_lhs": "abc"}


def test_computations_and_graph(module):
    assert [c.name for c in module.computations] == ["body", "cond", "main"]
    assert module.entry.name == "main" and module.entry.is_entry
    w = module.instruction("w")
    assert w.opcode is HloOpcode.WHILE
    assert [c.name for c in w.called["body"]] == ["body"] and [c.name for c in w.called["condition"]] == ["cond"]
    assert module.computation("body").callers == [w]
    assert [o.name for o in w.operands] == ["tup"] and list(module.instruction("tup").users) == [w]
    assert module.instruction("r").tuple_index == 0
    assert module.entry.root.name == "res" and module.instruction("res").is_root
    assert [p.name for p in module.entry.parameters] == ["a", "b"]
    assert module.instruction("lt").attributes["direction"] == "LT"
    assert module.instruction("c").literal == "10"
    assert module.instruction("w").attributes["backend_config"] == '{"known_trip_count":{"n":"10"}}'


def test_custom_call_and_source_locations(module):
    mth = module.instruction("mth")
    assert mth.custom_call_target == "annotate_device_placement"
    assert mth.frontend_attributes == {"_xla_buffer_placement": "pinned_host"}
    assert str(mth.source_location()) == "/home/me/train.py:57"
    # Compiled dumps carry only stack_frame_id: resolved through the StackFrames table.
    t = module.instruction("t")
    loc = t.source_location()
    assert (loc.file, loc.line, loc.function, loc.column) == ("/home/me/train.py", 42, "step", 8)
    assert module.instruction("a").metadata.op_name == "x"
    assert mth.line == 36 and module.computation("main").line == 30


def test_print_then_parse_is_stable(module):
    text = print_module(module)
    again = parse_module(text)
    assert print_module(again) == text
    assert [i.name for i in again.instructions()] == [i.name for i in module.instructions()]


def test_typed_operands_older_form():
    m = parse_module('''HloModule axpy_module

ENTRY %axpy.v5 (alpha: f32[], x: f32[2,4], y: f32[2,4]) -> f32[2,4] {
  %alpha = f32[] parameter(0)
  %broadcast = f32[2,4]{1,0} broadcast(f32[] %alpha), dimensions={}
  %x = f32[2,4]{1,0} parameter(1)
  %multiply = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %broadcast, f32[2,4]{1,0} %x)
  %y = f32[2,4]{1,0} parameter(2)
  ROOT %add = f32[2,4]{1,0} add(f32[2,4]{1,0} %multiply, f32[2,4]{1,0} %y)
}
''')
    add = m.entry.root
    assert [o.name for o in add.operands] == ["multiply", "y"]
    assert add.operand_shapes_text == ("f32[2,4]{1,0}", "f32[2,4]{1,0}")
    assert not m.has_explicit_entry_layout
    assert str(m.entry_computation_layout) == "(f32[], f32[2,4]{1,0}, f32[2,4]{1,0})->f32[2,4]{1,0}"


def test_no_entry_keyword_means_last_computation_and_no_root_means_last_instruction():
    m = parse_module("HloModule m\nc1 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n"
                     "c2 {\n  p.2 = f32[] parameter(0)\n  q = f32[] call(p.2), to_apply=c1\n}\n")
    assert m.entry.name == "c2" and m.entry.root.name == "q"
    assert m.computation("c1").callers == [m.instruction("q")]


def test_constants_strings_and_nested_attributes():
    m = parse_module('''HloModule m
ENTRY e {
  c = f32[2,2]{1,0} constant({ {1, 2}, {3, 4} })
  s = (f32[], pred[]) constant((1.5, true))
  n = f32[] constant(-inf)
  cc = f32[2,2]{1,0} custom-call(c), custom_call_target="foo\\"bar", backend_config="{\\"x\\": [1, {2}]}", output_to_operand_aliasing={{}: (0, {})}
  ag = f32[4,2]{1,0} all-gather(cc), channel_id=1, replica_groups=[1,2]<=[2], dimensions={0}, use_global_device_ids=true
  ROOT t = (f32[4,2]{1,0}, f32[]) tuple(ag, n), sharding={{replicated}, {maximal device=0}}
}
''')
    assert m.instruction("c").literal == "{ {1, 2}, {3, 4} }"
    assert m.instruction("s").literal == "(1.5, true)"
    cc = m.instruction("cc")
    assert cc.custom_call_target == 'foo"bar'
    assert cc.output_to_operand_aliasing == [((), 0, ())]
    assert m.instruction("ag").attributes["replica_groups"] == "[1,2]<=[2]"


BAD_INPUTS = [
    ("", 1, 1, "empty input"),
    ("BufferAssignment:\nallocation 0: size 16, parameter 0\n", 1, 1, "buffer-assignment"),
    ("module @jit_f {\n  func.func public @main() {\n", 1, 1, "StableHLO"),
    ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n", 4, 1, "missing '}'"),
    ("HloModule m\nENTRY e {\n  p = f33[2] parameter(0)\n}\n", 3, 7, "unknown primitive type 'f33'"),
    # A metadata key given twice (jaxlib: "attribute op_name already exists"), in the common form and
    # in one with escapes (found by the fuzz campaign).
    ("HloModule m\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0), metadata={op_name=\"a\" op_name=\"b\"}\n}\n", 3, 45,
     "attribute op_name already exists"),
    ("HloModule m\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0), metadata={op_name=\"\\\"\" source_file=\"x\" "
     "source_file=\"y\"}\n}\n", 3, 45, "attribute source_file already exists"),
    ("HloModule m\nENTRY e {\n  p = f32[2,3]{0} parameter(0)\n}\n", 3, 15, "Dimensions size is 2, but minor to major size is 1."),
    ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  p = f32[2] negate(p)\n}\n", 4, 3, "defined twice"),
    # A computation defined again: the position is where the first one of that name ended (the
    # parser keeps those ends in an array, not a dict of ints), here after 'd' came between.
    ("HloModule m\n\nc {\n  x = f32[] parameter(0)\n}\n\nd {\n  y = f32[] parameter(0)\n}\n\nc {\n"
     "  z = f32[] parameter(0)\n}\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n", 7, 1,
     "computation 'c' is defined twice"),
    ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] add(p, q)\n}\n", 4, 26,
     "instruction does not exist: q"),
    ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] frobnicate(p)\n}\n", 4, 19,
     "unknown opcode 'frobnicate'"),
    ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] call(p), to_apply=nowhere\n}\n", 4, 37,
     "computation does not exist: nowhere"),
    ("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n}\n", 4, 3, "two ROOT"),
    ("HloModule m\nENTRY e {\n  c = s32[] custom-call(), custom_call_target=\"x\n}\n", 3, 47, "unterminated string"),
]


@pytest.mark.parametrize("text,line,col,message", BAD_INPUTS, ids=[b[3] for b in BAD_INPUTS])
def test_bad_input_is_one_located_error(text, line, col, message):
    with pytest.raises(HloParseError) as info:
        parse_module(text, "bad.hlo")
    err = info.value
    assert message in err.message
    assert (err.source, err.line, err.col) == ("bad.hlo", line, col)
    assert "\n" not in str(err)


def test_every_truncation_fails_cleanly_or_parses():
    """No prefix of a real module may raise anything but HloParseError (and none may hang)."""
    for cut in range(0, len(MODULE), 7):
        try:
            parse_module(MODULE[:cut])
        except HloParseError:
            pass


def test_every_single_character_deletion_fails_cleanly_or_parses():
    for i in range(0, len(MODULE), 5):
        try:
            parse_module(MODULE[:i] + MODULE[i + 1:])
        except HloParseError:
            pass


def test_python_call_stack_follows_xla_printed_parent_ids():
    """XLA prints parent_frame_id one above the caller's row; f -> g -> h must give three frames."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    def h(x):
        return jnp.sin(x)

    def g(x):
        return h(x) * 2

    def f(x):
        return g(x) + 1

    text = jax.jit(f).lower(jnp.ones(3)).compile().as_text()
    module = parse_module(text)
    sine = next(i for i in module.instructions() if "sin" in (i.metadata.op_name if i.metadata else "")
                and i.metadata.stack_frame_id)
    functions = [loc.function.rsplit(".", 1)[-1] for loc in sine.stack()]
    assert functions[:3] == ["h", "g", "f"], functions


def test_callers_share_one_role_key():
    """Every caller's ``called`` map keys its role with one string (interned), not the text's copy
    of ``to_apply`` per caller: jax_entry has a caller per ten instructions (issue 36 item 3)."""
    text = ("HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n"
            "ENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
            "  r1 = f32[] reduce(p, z), dimensions={0}, to_apply=add\n"
            "  r2 = f32[] reduce(p, z), dimensions={0}, to_apply=add\n"
            "  ROOT t = (f32[], f32[]) tuple(r1, r2)\n}\n")
    entry = parse_module(text).entry
    (k1,), (k2,) = entry.instruction("r1").called, entry.instruction("r2").called
    assert k1 == k2 == "to_apply" and k1 is k2 is sys.intern("to_apply")
