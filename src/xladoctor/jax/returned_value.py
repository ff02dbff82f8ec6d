"""Which Python expression a jitted function returns at a given output.

The device fix of an E1200 finding ("bring it back to device") is a line of code:
``saved = jax.device_put(saved, jax.memory.Space.Device)``.  It must name the
user's variable, not a placeholder, so the output's pytree path (``result[1]``,
``result['saved']``, as ``jax.result_info`` spells it) is followed through the
``return`` statement of the traced function, read from its source with :mod:`ast`.
"""

from __future__ import annotations

import ast
import linecache
import re
from dataclasses import dataclass
from functools import lru_cache

_STEP = re.compile(r"\[(\d+|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


@dataclass(frozen=True)
class ReturnedExpression:
    """The returned expression at one output: ``name`` when it is a plain variable."""

    source: str
    name: str | None
    line: int


@lru_cache(maxsize=32)
def _module_ast(path: str) -> ast.Module | None:
    text = "".join(linecache.getlines(path))
    if not text:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _path_steps(output: str) -> list[int | str] | None:
    """``result[1]['w']`` -> ``[1, 'w']``; None when the path is not of that form."""
    if not output.startswith("result"):
        return None
    rest = output[len("result"):]
    steps: list[int | str] = []
    pos = 0
    for m in _STEP.finditer(rest):
        if m.start() != pos:
            return None
        token = m.group(1)
        steps.append(int(token) if token.isdigit() else ast.literal_eval(token))
        pos = m.end()
    return steps if pos == len(rest) else None


def _function_at(tree: ast.Module, name: str, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function called ``name`` whose body holds ``line``."""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            end = getattr(node, "end_lineno", node.lineno)
            if node.lineno <= line <= end and (best is None or node.lineno >= best.lineno):
                best = node
    return best


def _own_returns(fn: ast.AST) -> list[ast.Return]:
    """``return`` statements of ``fn`` itself, not of functions nested in it."""
    out: list[ast.Return] = []
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda r: r.lineno)


def _select(expr: ast.expr, steps: list[int | str]) -> ast.expr | None:
    for step in steps:
        if isinstance(step, int) and isinstance(expr, (ast.Tuple, ast.List)):
            if step >= len(expr.elts) or any(isinstance(e, ast.Starred) for e in expr.elts):
                return None
            expr = expr.elts[step]
        elif isinstance(step, str) and isinstance(expr, ast.Dict):
            for k, v in zip(expr.keys, expr.values):
                if isinstance(k, ast.Constant) and k.value == step:
                    expr = v
                    break
            else:
                return None
        else:
            return None
    return expr


def returned_expression(file: str, function: str | None, line: int, output: str) -> ReturnedExpression | None:
    """The expression ``function`` (defined in ``file`` around ``line``) returns at ``output``.

    None when the source cannot be read, the function has several ``return`` statements
    that disagree, or the output is built in a way a reader cannot point to (``*args``,
    a helper's return value).
    """
    steps = _path_steps(output)
    if steps is None or not function:
        return None
    tree = _module_ast(file)
    if tree is None:
        return None
    fn = _function_at(tree, function.rsplit(".", 1)[-1], line)
    if fn is None:
        return None
    text = "".join(linecache.getlines(file))
    found = []
    for ret in _own_returns(fn):
        expr = _select(ret.value, steps) if ret.value is not None else None
        if expr is None:
            return None
        found.append(ReturnedExpression(ast.get_source_segment(text, expr) or ast.unparse(expr),
                                        expr.id if isinstance(expr, ast.Name) else None, ret.lineno))
    if not found or len({r.source for r in found}) != 1:
        return None
    return found[-1]
