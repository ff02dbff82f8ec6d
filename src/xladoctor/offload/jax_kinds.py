"""Memory kinds JAX declares for a program's inputs and outputs, read from its StableHLO text.

``Lowered.as_text("hlo")`` drops them: the entry layout it prints has no ``S(5)``
even for ``pinned_host`` outputs, because JAX passes memory kinds to the compiler
beside the module (``mhlo.memory_kind`` on ``@main``'s arguments and results).
Analysing that HLO as-is would call every host output an E1200.  These helpers
read the kinds from ``Lowered.as_text()`` and put them into the entry layout, the
way the compiler sees it.  Text only: no jax import.
"""

from __future__ import annotations

import re

from ..ir.module import HloModule, ProgramShape
from ..ir.shape import HOST_MEMORY_SPACE

HOST_KINDS = ("pinned_host", "unpinned_host")
_MAIN = re.compile(r"func\.func\s+public\s+@main\(")


def _balanced(text: str, start: int, open_ch: str, close_ch: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _values(region: str) -> list[str]:
    """Split ``a {..}, b {..}`` at top-level commas (braces, angles and brackets nest)."""
    out, depth, cur = [], 0, []
    for c in region:
        if c in "{<([":
            depth += 1
        elif c in "}>)]":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def _kind(value: str) -> str | None:
    m = re.search(r'mhlo\.memory_kind\s*=\s*"([^"]*)"', value)
    return m.group(1) if m else None


def main_memory_kinds(stablehlo: str) -> tuple[list[str | None], list[str | None]]:
    """``(argument kinds, result kinds)`` of ``@main``; None where none is declared."""
    m = _MAIN.search(stablehlo)
    if not m:
        return [], []
    args_end = _balanced(stablehlo, m.end() - 1, "(", ")")
    args = _values(stablehlo[m.end():args_end - 1])
    rest = stablehlo[args_end:]
    arrow = re.match(r"\s*->\s*", rest)
    results: list[str] = []
    if arrow:
        after = rest[arrow.end():]
        if after.startswith("("):
            end = _balanced(after, 0, "(", ")")
            results = _values(after[1:end - 1])
        else:
            results = [after.split("{", 1)[0] + "{" + after.split("{", 1)[1].split("}", 1)[0] + "}"] \
                if "{" in after.split("\n", 1)[0] else [after.split("\n", 1)[0]]
    return [_kind(a) for a in args], [_kind(r) for r in results]


def apply_memory_kinds(module: HloModule, stablehlo: str) -> HloModule:
    """Put ``S(5)`` into ``module``'s entry layout where JAX declares a host memory kind (in place)."""
    arg_kinds, result_kinds = main_memory_kinds(stablehlo)
    ecl = module.entry_computation_layout
    params = list(ecl.parameters)
    for i, kind in enumerate(arg_kinds):
        if kind in HOST_KINDS and i < len(params):
            params[i] = params[i].with_memory_space(HOST_MEMORY_SPACE)
    result = ecl.result
    leaves = [idx for idx, _ in result.leaves()]
    for k, kind in enumerate(result_kinds):
        if kind in HOST_KINDS and k < len(leaves):
            result = result.with_memory_space(HOST_MEMORY_SPACE, leaves[k])
    module.entry_computation_layout = ProgramShape(params, result)
    module.has_explicit_entry_layout = True
    return module
