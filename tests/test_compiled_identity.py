"""No ``is`` against a module constant that is a tuple or a number: the compiled core breaks it.

mypyc keeps a ``Final`` tuple (and int, float) unboxed and boxes it anew at each use, so
``walked is _UNCOVERED`` with ``_UNCOVERED: Final = (set(), ...)`` was true in pure Python and never
in the compiled build: there the empty tuple was read as a walk.  The device's fuzzing of the
compiled core found it (2026-12-07, ``offload/passes/dead_steps.py``: an IndexError on a module
with a dead call of a one-parameter callee); the compiled build's comparison corpus had no such
module.  A sentinel is an instance of a class of its own (``dead_steps._Uncovered``).

The scan reads every module of the package: the names bound at module level to a tuple display or
a number (or annotated ``Final[tuple...]``), then every ``is`` / ``is not`` with such a name (bare
or as an attribute) on either side.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "xladoctor"


def _unboxed_constants(tree: ast.Module) -> set[str]:
    """Module-level names bound to a tuple display or a number, or annotated ``Final[tuple...]``."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value, annotation = node.targets, node.value, None
        elif isinstance(node, ast.AnnAssign):
            targets, value, annotation = [node.target], node.value, node.annotation
        else:
            continue
        unboxed = isinstance(value, ast.Tuple) or (
            isinstance(value, ast.Constant) and type(value.value) in (int, float, complex))
        if annotation is not None and "Final[tuple" in ast.unparse(annotation):
            unboxed = True
        if unboxed:
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def identity_tests(source: str, constants: set[str]) -> list[str]:
    """``line:col: text`` of each ``is`` / ``is not`` comparing with one of ``constants``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for k, op in enumerate(node.ops):
            if not isinstance(op, (ast.Is, ast.IsNot)):
                continue
            for side in sides[k:k + 2]:
                name = side.id if isinstance(side, ast.Name) else side.attr if isinstance(side, ast.Attribute) else None
                if name in constants:
                    found.append(f"{node.lineno}:{node.col_offset}: {ast.unparse(node)}")
    return found


def _package() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in sorted(SRC.rglob("*.py"))}


def test_no_identity_test_against_an_unboxed_module_constant() -> None:
    sources = _package()
    constants: set[str] = set()
    for text in sources.values():
        constants |= _unboxed_constants(ast.parse(text))
    bad = [f"{p.relative_to(SRC.parent)}:{where}" for p, text in sources.items()
           for where in identity_tests(text, constants)]
    assert not bad, "identity test against a constant the compiled core unboxes:\n" + "\n".join(bad)


@pytest.mark.parametrize("source", [
    "X: Final = (set(), [])\ndef f(w):\n    return w is X\n",
    "X = (1, 2)\ndef f(w):\n    return w is not X\n",
    "X: Final[tuple[int, ...]] = make()\ndef f(w):\n    return w is X\n",
    "N = 3\ndef f(m, w):\n    return m.N is w\n",
])
def test_the_scan_finds_the_pattern(source: str) -> None:
    assert len(identity_tests(source, _unboxed_constants(ast.parse(source)))) == 1


@pytest.mark.parametrize("source", [
    "class S:\n    pass\nX: Final = S()\ndef f(w):\n    return w is X\n",  # an instance: boxed, one object
    "X = (1, 2)\ndef f(w):\n    return w == X\n",
    "def f(w):\n    return w is None\n",
])
def test_the_scan_lets_other_comparisons_be(source: str) -> None:
    assert identity_tests(source, _unboxed_constants(ast.parse(source))) == []


def test_the_scan_knew_the_bug_it_guards() -> None:
    """The two constants as dead_steps.py had them (stop 51), with its two identity tests."""
    before = ('_UNCOVERED: Final[_Walked] = (set(), ([], []), {}, [], 0)\n'
              '_STEP_UNCOVERED: Final[tuple[dict[HloInstruction, None], list[HloInstruction]]] = ({}, [])\n'
              'def g(walked):\n    return None if walked is _UNCOVERED else walked\n'
              'def h(walked):\n    if walked is _STEP_UNCOVERED:\n        return 1\n')
    assert len(identity_tests(before, _unboxed_constants(ast.parse(before)))) == 2
