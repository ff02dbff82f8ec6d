"""``HloComputation.post_order`` is XLA's ``MakeInstructionPostOrder``, step for step.

The passes make several post orders of a module's entry per run (issue 36), so the method takes
shortcuts (an instruction that pushes nothing is finished at once; the operand field read as
stored; two sets for the three states).  Checked here against the algorithm written out plainly,
as XLA's loop runs it, on real artefacts (the corpus, generated modules) and on the cases the
shortcuts must not change: control predecessors, an operand used twice, a cycle of control
edges, a wide operand list being rewritten.  Pure Python walks it as a recursion (one iterator
per node on the path, ``_post_order_walk``), the compiled core as XLA's stack
(``_post_order_stack``): both are checked in either build.
"""

from __future__ import annotations

from pathlib import Path

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.ir.computation import HloComputation
from xladoctor.ir.instruction import HloInstruction
from xladoctor.syntax.hlo_parser import parse_module


def _xla_post_order(comp: HloComputation) -> list[HloInstruction]:
    """MakeInstructionPostOrder as XLA writes it: a DFS from each instruction without users, in
    list order; the stack gets the operands in reverse, then the control predecessors; a node
    may be on the stack twice and is emitted when first finished."""
    order: list[HloInstruction] = []
    state: dict[int, int] = {}
    for start in comp.instructions:
        if start.users or state.get(id(start)) == 2:
            continue
        stack = [start]
        while stack:
            node = stack[-1]
            seen = state.get(id(node))
            if seen is None:
                state[id(node)] = 1
            else:
                stack.pop()
                if seen != 2:
                    state[id(node)] = 2
                    order.append(node)
                continue
            for dep in [*reversed(node.operands), *node.control_predecessors]:
                if dep.parent is comp and state.get(id(dep)) != 2:
                    stack.append(dep)
    placed = {id(i) for i in order}
    return order + [i for i in comp.instructions if id(i) not in placed]


def _same(module) -> int:
    """Both walks (pure Python's per-node iterators, the compiled core's stack) are XLA's."""
    for comp in module.computations:
        xla = _xla_post_order(comp)
        assert comp.post_order() == xla, comp.name
        assert comp._post_order_walk() == xla, comp.name
        assert comp._post_order_stack() == xla, comp.name
    return len(module.computations)


def test_post_order_is_xlas_on_real_modules(tmp_path: Path):
    checked = sum(_same(parse_module(p.read_text(), str(p))) for p in [*CORPUS, *generated_hlo(tmp_path, 40)])
    assert checked > 100


EDGES = """HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

ENTRY e {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} negate(p)
  b = f32[4]{0} add(a, a)
  c = f32[4]{0} exponential(p), control-predecessors={b}
  d = f32[4]{0} multiply(c, b), control-predecessors={a}
  dead = f32[4]{0} sine(p)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(d, b)
}
"""


def test_post_order_with_control_edges_and_a_cycle(monkeypatch):
    module = parse_module(EDGES)
    _same(module)
    entry = module.entry_computation()
    assert [i.name for i in entry.post_order()] == ["p", "dead", "a", "b", "c", "d", "t"]
    a, c = entry.get("a"), entry.get("c")
    assert a is not None and c is not None
    a.control_predecessors = [c]  # c waits for b, which reads a: a cycle through control edges
    _same(module)
    stack = HloComputation._post_order_stack
    asked: list[HloComputation] = []
    monkeypatch.setattr(HloComputation, "_post_order_stack", lambda comp: asked.append(comp) or stack(comp))
    assert entry._post_order_walk() == _xla_post_order(entry)
    assert asked == [entry]  # the walk's path outgrew the computation: the stack's walk answered


def test_post_order_of_a_wide_instruction_being_rewritten():
    names = [f"n{k}" for k in range(40)]
    body = "\n".join(f"  {n} = f32[4]{{0}} negate(p)" for n in names)
    text = (f"HloModule m, entry_computation_layout={{(f32[4]{{0}})->f32[4]{{0}}}}\n\nENTRY e {{\n"
            f"  p = f32[4]{{0}} parameter(0)\n{body}\n"
            f"  t = ({', '.join(['f32[4]{0}'] * 40)}) tuple({', '.join(reversed(names))})\n"
            f"  ROOT g = f32[4]{{0}} get-tuple-element(t), index=0\n}}\n")
    module = parse_module(text)
    entry = module.entry_computation()
    t, n0 = entry.get("t"), entry.get("n0")
    assert t is not None and n0 is not None
    t.replace_operand(3, n0)  # the tuple's operands become a wide list (WideOperands)
    assert t._operands.__class__.__name__ == "WideOperands"
    _same(module)


CHAIN = """HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY e {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} negate(p)
  b = f32[4]{0} negate(a)
  c = f32[4]{0} negate(b)
  s = f32[4]{0} sine(c)
  d = f32[4]{0} add(s, b)
  ROOT r = f32[4]{0} negate(d)
}
"""


def test_post_order_of_one_operand_chains_and_their_cycle(monkeypatch):
    """Nodes of one operand kept bare (no tuple, no iterator per node): a chain, a leaf under it,
    an operand finished before its second user; then a cycle through such nodes (a control edge
    on the chain's first node), which the stack's walk must answer."""
    module = parse_module(CHAIN)
    entry = module.entry_computation()
    assert type(entry.get("c")._operands).__name__ == "ParsedInstruction"  # kept bare
    _same(module)
    assert [i.name for i in entry.post_order()] == ["p", "a", "b", "c", "s", "d", "r"]
    a, c = entry.get("a"), entry.get("c")
    assert a is not None and c is not None
    a.control_predecessors = [c]  # a waits for c, which reads b, which reads a
    _same(module)
    stack = HloComputation._post_order_stack
    asked: list[HloComputation] = []
    monkeypatch.setattr(HloComputation, "_post_order_stack", lambda comp: asked.append(comp) or stack(comp))
    assert entry._post_order_walk() == _xla_post_order(entry)
    assert asked == [entry]
