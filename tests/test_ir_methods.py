"""The IR's write methods as XLA has them: ``CloneWithNewOperands``, ``ReplaceAllUsesWith``'s guard
for a new producer that uses the old one, ``set_root_instruction`` and the parameter slots, and
no code outside ``ir/`` writing a computation's root or parameters or an instruction's called
computations directly (the caller index and the lint invariants are kept by those methods only).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.opcodes import HloOpcode
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_instruction

SRC = Path(__file__).resolve().parent.parent / "src" / "xladoctor"

_TEXT = """HloModule m

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[4]{0} parameter(0)
  x = f32[4]{0} negate(p)
  y = f32[4]{0} exponential(x)
  z = f32[] constant(0)
  r = f32[] reduce(y, z), dimensions={0}, to_apply=add_f32
  ROOT t = (f32[4]{0}, f32[]) tuple(x, r)
}
"""


def test_replacing_x_with_copy_of_x_leaves_the_copy_on_x():
    """XLA's guard: ``x.ReplaceAllUsesWith(copy(x))`` rewires every other user and the root, and
    the copy keeps reading ``x`` (without it the copy would be its own operand)."""
    module = parse_module(_TEXT)
    entry = module.entry_computation()
    x, y, t = (entry.instruction(n) for n in ("x", "y", "t"))
    copy = HloInstruction(module.unique_name("copy"), HloOpcode.COPY, x.shape)
    entry.insert_before(y, copy)
    copy.operands = [x]
    changed = x.replace_all_uses_with(copy)
    assert [o.name for o in copy.operands] == ["x"]
    assert list(x.users) == [copy]
    assert y.operands == (copy,) and t.operands[0] is copy
    assert copy not in changed and set(changed) == {y, t}
    module.lint()


def test_replacing_the_root_moves_the_root():
    module = parse_module(_TEXT)
    entry = module.entry_computation()
    t = entry.root_instruction()
    copy = HloInstruction(module.unique_name("copy"), HloOpcode.COPY, t.shape)
    entry.add_instruction(copy)
    copy.operands = [t]
    t.replace_all_uses_with(copy)
    assert entry.root is copy and copy.operands == (t,)
    module.lint()


def test_clone_with_new_operands_copies_fields_and_calls_not_links():
    module = parse_module(_TEXT)
    entry = module.entry_computation()
    r, x, z = (entry.instruction(n) for n in ("r", "x", "z"))
    clone = r.clone_with_new_operands(r.shape, [x, z], module.unique_name("r"))
    assert clone.parent is None and clone.name == "r.1"
    assert clone.operands == (x, z) and clone in x.users and clone in z.users
    assert clone.called == r.called and clone.called is not r.called
    assert clone.attributes == r.attributes and clone.attributes is not r.attributes
    entry.insert_before(entry.root_instruction(), clone)
    assert clone in module.callers_of(module.computation("add_f32"))  # the caller index follows
    assert print_instruction(clone) == print_instruction(r).replace("r =", "r.1 =").replace("(y, z)", "(x, z)")
    entry.remove_instruction(clone)
    module.lint()


def test_root_and_parameters_are_only_set_to_the_computations_own():
    module = parse_module(_TEXT)
    entry, callee = module.entry_computation(), module.computation("add_f32")
    with pytest.raises(ValueError, match="not one of its instructions"):
        entry.set_root_instruction(callee.root_instruction())
    with pytest.raises(ValueError, match="is not parameter"):
        callee.replace_parameter(0, callee.parameter(1))
    with pytest.raises(ValueError, match="is not parameter"):
        entry.set_parameters([callee.parameter(0)])


def test_set_called_computations_drops_the_caller_index():
    module = parse_module(_TEXT)
    r = module.instruction("r")
    callee = module.computation("add_f32")
    assert module.callers_of(callee) == [r]
    r.set_called_computations({})
    assert module.callers_of(callee) == []


_WRITES_ALLOWED = {("syntax/computation_reader.py", "body"), ("syntax/body_scope.py", "self")}
"""``Body.root`` (set in ``Body.__init__``, syntax/body_scope.py, and by the reader): the parser's note of
the ROOT it read, not a computation's."""
_PARSED_BODY = {("syntax/computation_reader.py", "comp", "root"), ("syntax/computation_reader.py", "comp", "parameters")}
"""``_finish_body``'s stores of a body just read, before it joins a module: its ROOT (or last instruction) and
its parameters by number, which ``set_root_instruction`` and ``set_parameters`` would only check, and the
checks hold there by construction (tests/test_parser_parameters.py; the calls were ~1% of a jax_entry parse)."""
_FRESH_STORES = {("syntax/instruction_line.py", "_FRESH")}
"""The one statement that stores ``HloInstruction.__init__``'s values (``_FRESH``, the empty calls among
them) in an instruction ``read_fast`` has just made (pure Python: the class call ran ``__init__`` in an
interpreter loop of its own, h48p)."""


def _direct_writes(path: Path) -> list[str]:
    out = []
    rel = path.relative_to(SRC).as_posix()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(t, ast.Subscript):
                    t = t.value
                if isinstance(t, ast.Attribute) and t.attr in ("root", "called", "parameters"):
                    owner = t.value.id if isinstance(t.value, ast.Name) else ""
                    value = node.value.id if isinstance(getattr(node, "value", None), ast.Name) else ""
                    if (rel, owner) not in _WRITES_ALLOWED and (rel, value) not in _FRESH_STORES \
                            and (rel, owner, t.attr) not in _PARSED_BODY:
                        out.append(f"{rel}:{node.lineno}: .{t.attr} written directly")
    return out


def test_root_called_and_parameters_are_written_by_ir_methods_only():
    problems = [w for path in sorted(SRC.rglob("*.py")) if "ir" not in path.relative_to(SRC).parts[:1]
                for w in _direct_writes(path)]
    assert not problems, "\n".join(problems)


def test_an_instruction_built_in_code_takes_a_parsed_ones_metadata():
    """No reader is installed into the IR at import: the parser's instructions carry theirs, and
    one built in code copies the metadata (decoded and as text) from one that has it."""
    module = parse_module(_TEXT.replace("negate(p)", 'negate(p), metadata={op_name="jit(f)/neg" source_line=3}'))
    x = module.instruction("x")
    built = HloInstruction("copy", HloOpcode.COPY, x.shape)
    built.copy_metadata_from(x)
    assert built.metadata == x.metadata and built.metadata.op_name == "jit(f)/neg"
    assert built.attributes["metadata"] == x.attributes["metadata"]
    again = HloInstruction("copy.1", HloOpcode.COPY, x.shape)
    again.copy_metadata_from(built)  # from a built one: the text it holds
    assert again.attributes["metadata"] == x.attributes["metadata"]
    with pytest.raises(TypeError, match="copy_metadata_from"):
        again.metadata = x.metadata
    clone = x.clone_with_new_operands(x.shape, list(x.operands), "x.1")
    assert type(clone) is type(x) and clone.metadata == x.metadata


_CALLS = """HloModule calls

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

twice {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p, p), to_apply=add_f32
}

ENTRY main {
  x = f32[] parameter(0)
  first = f32[] call(x), to_apply=twice
  second = f32[] call(first), to_apply=twice
  ROOT r = f32[] call(second, x), to_apply=add_f32
}
"""


def test_the_caller_index_keeps_one_caller_itself_and_a_list_from_the_second():
    """ir/callers.caller_index (compiled in the compiled core): callers in module order, the
    computations nobody calls absent."""
    from xladoctor.ir.callers import caller_index

    module = parse_module(_CALLS)
    index = caller_index(module.computations)
    add, twice = module.computation("add_f32"), module.computation("twice")
    assert index[add] == [module.instruction("c"), module.instruction("r")]
    assert index[twice] == [module.instruction("first"), module.instruction("second")]
    assert set(index) == {add, twice}
    single = parse_module(_TEXT)
    assert caller_index(single.computations) == {single.computation("add_f32"): single.instruction("r")}
    assert module.callers_of(add) == [module.instruction("c"), module.instruction("r")]
    assert module.callers_of(module.entry_computation()) == []


def test_an_attribute_absent_from_the_text_is_none_without_the_split():
    """A parsed instruction's attribute named nowhere in its text is None (no split); named only
    inside another attribute's value, the split still says None; present, its value."""
    module = parse_module("""HloModule m

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  b = f32[4] custom-call(a), custom_call_target="metadata", frontend_attributes={note="metadata"}
  ROOT c = f32[4] negate(b), metadata={op_name="jit(f)/neg" source_file="f.py" source_line=7}
}
""")
    a, b, c = (module.instruction(n) for n in "abc")
    assert all(isinstance(i._attributes, str) for i in (a, b, c))  # kept as the text read: the path tested
    assert a.metadata is None and a.source_location() is None
    assert b.metadata is None and b.custom_call_target == "metadata"
    assert c.metadata is not None and c.metadata.op_name == "jit(f)/neg"
    assert (c.source_location().file, c.source_location().line) == ("f.py", 7)
