"""The parser's shared scope (syntax/computation_reader.py, issue 36 item 3): a top-level
computation's names join the module's name table as they are read, and that table is the body's
scope, where other computations' names are out of scope.  Each case is parsed twice, with the
shared scope and with a scope of its own from the first line (the full reader alone, which
leaves the shared scope before its first line), and must give the same module or the same
located error; and the usual module must never leave the shared scope."""

from __future__ import annotations

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.ir.module import HloModule
from xladoctor.syntax import computation_reader
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module


def _outcome(text: str) -> tuple:
    try:
        module = parse_module(text, "m.hlo")
    except HloParseError as e:
        return ("error", e.message, e.line, e.col)
    return ("ok", _names(module), print_module(module))


def _names(module: HloModule) -> list[tuple[str, list[str]]]:
    return [(c.name, [i.name for i in c.instructions]) for c in module.computations] + \
        [("table", list(module.names.table()))]


def _own_scope_from_the_first_line(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple:
    with monkeypatch.context() as m:
        m.setattr(computation_reader, "read_fast", lambda p, module, by_name, owner=None: None)
        return _outcome(text)


ADD = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n"

CASES = {
    "a name another computation holds is renamed": (
        "HloModule m\n\n" + ADD + "\nENTRY main {\n  x = f32[] parameter(0)\n  ROOT s.1 = f32[] negate(x)\n}\n",
        ("ok",)),
    "a name taken after a reused one": (
        "HloModule m\n\n" + ADD + "\nENTRY main {\n  p = f32[] parameter(0)\n  x = f32[] negate(p)\n"
        "  x.1 = f32[] negate(x)\n  ROOT s = f32[] add(x.1, x)\n}\n",
        ("ok",)),
    "a zero suffix then its root": (
        "HloModule m\n\nENTRY main {\n  p.0 = f32[] parameter(0)\n  p = f32[] negate(p.0)\n  ROOT r = f32[] negate(p)\n}\n",
        ("ok",)),
    "an operand of another computation": (
        "HloModule m\n\n" + ADD + "\nENTRY main {\n  p = f32[] parameter(0)\n  ROOT r = f32[] add(p, y)\n}\n",
        ("error", "instruction does not exist: y (operands and control-predecessors must be defined earlier "
                  "in computation 'main', as XLA requires)", 11, 25)),
    "a control predecessor of another computation": (
        "HloModule m\n\n" + ADD + "\nENTRY main {\n  p = f32[] parameter(0)\n"
        "  ROOT r = f32[] negate(p), control-predecessors={y}\n}\n",
        ("error", "instruction does not exist: y (operands and control-predecessors must be defined earlier "
                  "in computation 'main', as XLA requires)", 11, 50)),
    "a name defined twice in one computation": (
        "HloModule m\n\nENTRY main {\n  p = f32[] parameter(0)\n  n = f32[] negate(p)\n  n = f32[] negate(p)\n"
        "  ROOT r = f32[] negate(n)\n}\n",
        ("error", "instruction already exists: n (defined twice in computation 'main')", 6, 3)),
    "a reused name defined twice": (
        "HloModule m\n\n" + ADD + "\nENTRY main {\n  p = f32[] parameter(0)\n  y = f32[] negate(p)\n"
        "  y = f32[] negate(p)\n  ROOT r = f32[] negate(y)\n}\n",
        ("error", "instruction already exists: y (defined twice in computation 'main')", 12, 3)),
    "an inline computation in the middle of a body": (
        "HloModule m\n\nENTRY main {\n  p = f32[8] parameter(0)\n  z = f32[] constant(0)\n  a = f32[] negate(z)\n"
        "  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n    a = f32[] parameter(0)\n"
        "    b = f32[] parameter(1)\n    ROOT c = f32[] add(a, b)\n  }\n}\n",
        ("ok",)),
    "a computation joining in the middle of a body (async sugar)": (
        "HloModule m\n\nb0 {\n  a = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(a)\n}\n\nENTRY main {\n"
        "  p = f32[2]{0} parameter(0)\n  s = ((f32[2]{0}), f32[2]{0}, s32[]) call-start(p), to_apply=b0\n"
        "  d = f32[2]{0} call-done(s)\n  k = f32[2]{0} constant({1, 2})\n  ROOT r = f32[2]{0} add(d, k)\n}\n",
        ("ok",)),
    "a nested operand after names read in the shared scope": (
        "HloModule m\n\nENTRY main {\n  p = f32[8] parameter(0)\n  n = f32[8] negate(p)\n"
        "  ROOT r = f32[8] add(f32[8] negate(n), n)\n}\n",
        ("ok",)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_shared_scope_reads_as_a_scope_of_its_own(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text, expected = CASES[name]
    shared = _outcome(text)
    assert shared[:len(expected)] == expected
    assert shared == _own_scope_from_the_first_line(text, monkeypatch)


def test_a_reused_name_is_renamed_as_xla_renames_it() -> None:
    module = parse_module(CASES["a name taken after a reused one"][0])
    assert [i.name for i in module.entry_computation().instructions] == ["p", "x.1", "x.2", "s.1"]


def test_the_usual_module_stays_in_the_shared_scope(monkeypatch: pytest.MonkeyPatch) -> None:
    """Names each computation's own, no line for the full reader: no second scope is made, and
    the module's table holds every instruction once."""
    left: list[str] = []
    real = computation_reader.ComputationReader._own_scope  # (syntax/body_scope.py: leave)

    def leaving(self, comp, body, pending=None):
        left.append(comp.name)
        return real(self, comp, body, pending)
    monkeypatch.setattr(computation_reader.ComputationReader, "_own_scope", leaving)
    calls = "".join(f"  c{k} = f32[] call(n{k}), to_apply=g{k}\n  n{k + 1} = f32[] negate(c{k})\n" for k in range(50))
    bodies = "".join(f"g{k} {{\n  a{k} = f32[] parameter(0)\n  ROOT b{k} = f32[] negate(a{k})\n}}\n\n" for k in range(50))
    module = parse_module(f"HloModule m\n\n{bodies}ENTRY main {{\n  n0 = f32[] parameter(0)\n{calls}"
                          "  ROOT r = f32[] negate(n50)\n}\n")
    assert left == []
    assert len(module.names) == module.instruction_count() == 50 * 2 + 102
    assert module.instruction_names.taken("b49") and not module.instruction_names.taken("b50")
