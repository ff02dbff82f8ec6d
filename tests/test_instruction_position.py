"""An instruction's line and column (issue 36 item 3): kept as a small offset from a ``(line, col)``
pair many instructions share, they must still name where each definition starts -- past 256 lines,
with columns that change from line to line, in a copy, and when set in code."""

from __future__ import annotations

from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.ir.packed_fields import NOWHERE
from xladoctor.ir.shape import Shape
from xladoctor.syntax.hlo_parser import parse_module


def _module(n: int) -> str:
    """``n`` negates in a chain, indented by 2 or 5 spaces in runs of uneven length, after a
    region of blank lines, and a small computation called from the entry."""
    lines = ["HloModule m", "", "add {", "  x = f32[] parameter(0)", "  y = f32[] parameter(1)",
             "  ROOT s = f32[] add(x, y)", "}", "", "ENTRY e {", "  v0 = f32[8]{0} parameter(0)"]
    for k in range(1, n):
        indent = " " * (5 if (k // 7) % 3 == 1 else 2)
        if k % 97 == 0:
            lines += [""] * 300  # a jump of more than 255 lines
        lines.append(f"{indent}v{k} = f32[8]{{0}} negate(v{k - 1})")
    lines += ["  c = f32[] constant(0)", f"  a = f32[8]{{0}} add(v{n - 1}, f32[8] negate(v{n - 2}))",
              "  ROOT r = f32[] reduce(a, c), dimensions={0}, to_apply=add", "}"]
    return "\n".join(lines) + "\n"


def _where_written(text: str, module) -> list[tuple[str, int, int]]:
    out = []
    for comp in module.computations:
        for instr in comp.instructions:
            line = text.split("\n")[instr.line - 1]
            at = line[instr.col - 1:]
            nested = instr.name.startswith("negate")  # written inside a's line: XLA names it
            assert at.startswith("f32[8] negate(" if nested else (f"{instr.name} =", f"ROOT {instr.name} =")), \
                (instr.name, instr.line, instr.col)
            out.append((instr.name, instr.line, instr.col))
    return out


def test_every_position_names_its_definition():
    text = _module(700)
    module = parse_module(text)
    found = _where_written(text, module)
    assert len(found) == 3 + 700 + 4 and max(line for _, line, _ in found) > 2000
    assert {col for _, _, col in found} == {3, 6, 27}  # 27: the nested negate in a's line
    shared = {id(i._where) for c in module.computations for i in c.instructions}
    assert len(shared) < 100  # a pair per 256 lines and column, not one per instruction
    assert all(0 <= i._line_off <= 255 for c in module.computations for i in c.instructions)


def test_a_copy_keeps_the_position_and_code_sets_it():
    text = _module(300)
    module = parse_module(text)
    v = module.instruction("v299")
    copy = v.clone_with_new_operands(v.shape, v.operands, "v299.copy")
    assert (copy.line, copy.col) == (v.line, v.col) and v.line > 256
    copy.line = 5
    assert (copy.line, copy.col) == (5, v.col) and (v.line, v.col) != (5, v.col)
    copy.col = 9
    assert (copy.line, copy.col) == (5, 9)
    copy.set_position(100_000, 1, v._where)  # far from the pair offered: a pair of its own
    assert (copy.line, copy.col) == (100_000, 1) and copy._where is not v._where
    built = HloInstruction("b", HloOpcode.PARAMETER, Shape.array("f32", (1,)))
    assert (built.line, built.col) == (0, 0) and built._where is NOWHERE


def test_a_line_holding_nested_instructions_keeps_its_own_position():
    """The instruction that holds a nested one starts its own line; one whose nested operand is
    written lines below keeps its first line, and the lines after it count on from there (both
    were off: the column counted from an earlier line, the later lines one too many)."""
    text = ("HloModule m\n\nENTRY e {\n  p = f32[8]{0} parameter(0)\n"
            "  x = f32[8]{0} add(f32[8]{0} negate(p), p)\n"
            "  y = f32[8]{0} multiply(x,\n        f32[8]{0} exponential(x))\n"
            "  ROOT t = (f32[8]{0}) tuple(y)\n}\n")
    module = parse_module(text)
    where = {i.opcode.name: (i.line, i.col) for i in module.entry_computation().instructions}
    assert where == {"PARAMETER": (4, 3), "NEGATE": (5, 21), "ADD": (5, 3), "EXPONENTIAL": (7, 9),
                     "MULTIPLY": (6, 3), "TUPLE": (8, 3)}
