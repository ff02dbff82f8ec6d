"""``offload --fix``: the fix applied to the text the user wrote, as ruff applies its fixes.

Only the lines the fix changes are edited (:mod:`xladoctor.findings.edits`): comments and the
ENTRY header stay as written.  When a changed line cannot be placed in the original (it spans
lines, say), the whole printed module is the result: correct, only respelt.
"""

from __future__ import annotations

import difflib

from ..findings.edits import apply_edits, line_edits
from ..ir.module import HloModule
from ..syntax.hlo_printer import print_module


def fixed_text(original: str, module: HloModule, fixed: HloModule) -> str:
    """``original`` with the fix applied, as close to the written text as the fix allows."""
    after = print_module(fixed)
    edits = line_edits(original, print_module(module), after)
    return after if edits is None else apply_edits(original, edits)


def unified_diff(original: str, fixed: str, source: str, target: str) -> str:
    """What ``--diff`` prints: the change as a unified diff (``a/`` and ``b/`` the same file)."""
    return "".join(difflib.unified_diff(original.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                        fromfile=source, tofile=target))
