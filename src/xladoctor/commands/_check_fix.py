"""``check --fix``: the E1200 fixes applied to the files checked, in place, as ruff's ``check --fix``.

A fix is applied by its ``edits``, the same machine-applicable edits the JSON document and the
SARIF report carry (:mod:`xladoctor.findings.edits`), so what ``--fix`` writes is exactly what
those formats say.  Each finding's edits are made as if it were the only error, so a file is
fixed one finding at a time and checked again after each (a module with two offending outputs
takes two rounds).  ``--fix`` applies the safe fix (move the value back to device memory: the
caller's view of the output is unchanged); ``--unsafe-fixes`` applies the other one (keep the
output in host memory: the caller receives it there), as ruff's ``--unsafe-fixes``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..escape import escape_field
from ..labels import label, plural

if TYPE_CHECKING:
    from ..checking.stream import Options
    from ..checking.walk import Item
    from ..findings.model import Finding, Fix

_ROUNDS = 16
"""At most this many fixes per file (each removes one offending output)."""


def fix_items(items: list[Item], opts: Options, unsafe: bool, lang: str, say: Any = None) -> int:
    """Fix every file of ``items`` in place; one line per fix on ``say`` (stdout), then a tally.
    Returns how many fixes were applied."""
    from ._atomic import refuse_fixing_compressed

    say = say or sys.stdout
    for it in items:  # every file first: nothing is written when one cannot be
        if it.status == "file":
            refuse_fixing_compressed(it.path)
    fixed = 0
    lines: list[str] = []
    for it in items:
        if it.status == "file":
            for what in _fix_file(it.path, it.explicit, it.stablehlo, opts, unsafe, lang):
                lines.append(label("offload.fixed", lang, source=escape_field(it.path), what=what))
                fixed += 1
    lines.append(label("check.fix_tally", lang, fixed=plural(fixed, "offload.n_fixed_one", "offload.n_fixed_many", lang)))
    print("\n".join(lines), file=say)
    return fixed


def _fix_file(path: str, explicit: bool, stablehlo: str | None, opts: Options, unsafe: bool, lang: str) -> list[str]:
    """Fix ``path`` one E1200 at a time; what each fix did, in words."""
    from ..checking.stream import check_path
    from ..files import decode_text, read_path
    from ..ir.shape import format_shape_index
    from ._atomic import refuse_if_changed, write_output

    done: list[str] = []
    for _ in range(_ROUNDS):
        text = decode_text(*read_path(path))
        finding = next(iter(_e1200(check_path(path, explicit, opts, stablehlo))), None)
        fix = _chosen(finding, unsafe) if finding is not None else None
        if finding is None or fix is None:
            break
        # the edits are line numbers in the text the check read: applied to another text they would
        # edit the wrong lines, so a file written meanwhile is refused, not damaged
        refuse_if_changed(path, text)
        write_output(path, _apply(text, fix), label("status.fixed_module", lang, fix="host" if unsafe else "device"),
                     (), lang)
        index = format_shape_index(tuple(finding.fields.get("output_index") or ()))  # type: ignore[arg-type]
        done.append(label("offload.fixed_host" if unsafe else "offload.fixed_device", lang, index=index))
    return done


def _e1200(entry: dict[str, Any]) -> list[Finding]:
    from ..findings.model import FindingKind
    from ..findings.wire import report_of

    if entry.get("kind") != "hlo" or not isinstance(entry.get("offload"), dict):
        return []
    report = report_of(entry["offload"]["diagnostics"])
    found = report.findings if report is not None else ()
    return [f for f in found if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]


def _chosen(finding: Finding, unsafe: bool) -> Fix | None:
    from ..findings.model import FixKind

    kind = FixKind.HOST_OUTPUT if unsafe else FixKind.MOVE_TO_DEVICE
    return next((x for x in finding.fixes if x.kind is kind and x.edits), None)


def _apply(text: str, fix: Fix) -> str:
    """The fix's edits (1-based lines, end exclusive) applied to ``text``."""
    from ..findings.edits import LineEdit, apply_edits

    edits = [LineEdit(e.start_line - 1, e.end_line - 1, tuple(e.content.splitlines(keepends=True))) for e in fix.edits]
    return apply_edits(text, edits)
