"""Opcode guard (issue 36): no function in ``ir/``, ``syntax/`` or ``offload/`` reads ``HloOpcode.X``.

On Python 3.10 and 3.11 a member read through the class costs ~65 ns more than a module global
(``EnumType.__getattr__`` sends every attribute read of the class through a Python-level call;
``ir/opcodes.py`` says why no definition of the enum avoids it), and these layers test opcodes
per instruction.  So a function there reads the module constants ``ir/opcodes.py`` ends with
(``from ..ir.opcodes import WHILE``); a read at module level (a table built once at import, a
class attribute, a default argument) is fine.  Found by reading every source file with ``ast``:
an attribute of the name ``HloOpcode`` (or an alias it was imported under) whose attribute is a
member, anywhere in a function's body.

No function is exempt today; an exemption would be a cold path listed in :data:`ALLOWED` with
the reason, but a constant is as easy to read as the member, so prefer the constant.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from xladoctor.ir.opcodes import HloOpcode

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "xladoctor"
LAYERS = ("ir", "syntax", "offload")
ALLOWED: dict[str, str] = {}
"""``rel::function`` -> why a member read there is not per instruction (none today)."""


def _enum_names(tree: ast.Module) -> set[str]:
    """The names ``HloOpcode`` is bound to in the module (``HloOpcode``, ``Op`` for ``as Op``)."""
    names = {"HloOpcode"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("opcodes"):
            names.update(a.asname for a in node.names if a.name == "HloOpcode" and a.asname)
    return names


def member_reads(text: str, rel: str) -> dict[str, list[str]]:
    """``rel::function`` -> the ``HloOpcode.X`` reads (``line:X``) in that function's body (nested
    functions and lambdas named by their enclosing ones); defaults and decorators are read once, at
    the ``def``, so they count as the enclosing scope's."""
    tree = ast.parse(text, filename=rel)
    enum = _enum_names(tree)
    out: dict[str, list[str]] = {}

    def read(node: ast.AST, scope: str | None) -> None:
        if (scope is not None and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in enum and node.attr in HloOpcode.__members__):
            out.setdefault(f"{rel}::{scope}", []).append(f"{node.lineno}:{node.attr}")

    def visit(node: ast.AST, scope: str | None, prefix: str) -> None:
        read(node, scope)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            name = prefix + (node.name if not isinstance(node, ast.Lambda) else "<lambda>")
            body = node.body if isinstance(node.body, list) else [node.body]
            for child in ast.iter_child_nodes(node):
                inside = any(child is b for b in body)
                visit(child, name if inside else scope, name + "." if inside else prefix)
            return
        if isinstance(node, ast.ClassDef) and scope is None:  # a class body runs once, at import
            for child in ast.iter_child_nodes(node):
                visit(child, None, f"{prefix}{node.name}.")
            return
        for child in ast.iter_child_nodes(node):
            visit(child, scope, prefix)

    visit(tree, None, "")
    return out


def _sources() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (PACKAGE / layer).rglob("*.py"))


def test_no_function_reads_an_opcode_member_through_the_class():
    found = {}
    for path in _sources():
        found.update(member_reads(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix()))
    unexpected = {k: v for k, v in found.items() if k not in ALLOWED}
    assert not unexpected, ("read the constants of ir/opcodes.py (from ..ir.opcodes import X) instead: "
                            + "; ".join(f"{k} {v}" for k, v in sorted(unexpected.items())))


def test_every_exemption_is_still_needed():
    found = set()
    for path in _sources():
        found.update(member_reads(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix()))
    assert not set(ALLOWED) - found


SAMPLE = '''
from ..ir.opcodes import HloOpcode as Op
from ..ir.opcodes import HloOpcode

TABLE = {HloOpcode.ADD: 1}


class Rule:
    op = HloOpcode.COPY

    def hot(self, instr):
        return instr.opcode is Op.WHILE


def walk(instrs, skip=HloOpcode.TUPLE):
    keep = [i for i in instrs if i.opcode is not HloOpcode.PARAMETER]
    return sorted(keep, key=lambda i: i.opcode is HloOpcode.CONSTANT), HloOpcode.arity


@decorate(HloOpcode.CALL)
def outer():
    def inner():
        return HloOpcode.FUSION
    return inner
'''


@pytest.mark.parametrize("scope,reads", [
    ("Rule.hot", ["12:WHILE"]),
    ("walk", ["16:PARAMETER"]),
    ("walk.<lambda>", ["17:CONSTANT"]),
    ("outer.inner", ["23:FUSION"]),
])
def test_the_guard_finds_reads_in_function_bodies_only(scope, reads):
    """Module level, class bodies, defaults and decorators are read once; ``HloOpcode.arity``
    (not a member) and aliases (``as Op``) are told apart."""
    found = member_reads(SAMPLE, "m.py")
    assert found[f"m.py::{scope}"] == reads
    assert set(found) == {"m.py::Rule.hot", "m.py::walk", "m.py::walk.<lambda>", "m.py::outer.inner"}
