"""A computation's header line counted from a shared line, its thread and signature in one slot."""

from xladoctor.ir.computation import HloComputation
from xladoctor.ir.shape import Shape
from xladoctor.syntax.hlo_parser import parse_module


def test_line_counts_from_a_near_pair_and_survives_thread_and_signature():
    comp = HloComputation("c")
    assert comp.line == 0 and comp._header is None
    base = 70000
    comp.set_line(base + 3, [(10, 3), (base, 5)])
    assert comp.line == base + 3 and comp._line == base and comp._header == 3  # the shared line (pure: the same int)
    signature = ([("p", Shape.array("f32", ()))], Shape.array("f32", ()))
    comp.execution_thread = "host"
    comp.signature = signature
    assert (comp.line, comp.execution_thread, comp.signature) == (base + 3, "host", signature)
    comp.execution_thread = None
    comp.signature = None
    assert comp.line == base + 3 and comp._header == 3
    comp.set_line(base + 300, [(base, 5)])  # out of reach: its own
    assert comp.line == base + 300 and comp._header is None
    comp.line = 7
    assert comp.line == 7 and comp.execution_thread is None


def test_parsed_lines_after_many_lines():
    body = "".join(f"  k{i} = f32[] constant({i})\n" for i in range(400))
    text = f"HloModule m\n\nsub {{\n{body}  ROOT s = f32[] parameter(0)\n}}\n\nENTRY main {{\n  p = f32[] parameter(0)\n" \
           "  ROOT r = f32[] call(p), to_apply=sub\n}\n"
    module = parse_module(text)
    assert module.computation("sub").line == 3
    assert module.computation("main").line == 3 + 400 + 4
