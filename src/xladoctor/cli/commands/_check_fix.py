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

from ...base.escape import escape_field
from ...base.labels import glossary, label, plural

if TYPE_CHECKING:
    from ...route.folder import Item
    from ...route.options import Options


def fix_items(items: list[Item], opts: Options, unsafe: bool, lang: str, say: Any = None) -> int:
    """Fix every file of ``items`` in place; one line per fix on ``say`` (stdout), then a tally.
    Returns how many fixes were applied."""
    from ._atomic import refuse_fixing_an_example, refuse_fixing_compressed

    say = say or sys.stdout
    for it in items:  # every file first: nothing is written when one cannot be
        if it.status == "file" and it.graph is None:
            refuse_fixing_an_example(it.path)
            refuse_fixing_compressed(it.path)
    fixed = 0
    lines: list[str] = []
    for it in items:
        if it.status == "file" and it.graph is None:  # a tensors file is torch_xla's record, not an input to edit
            for what in _fix_file(it.path, it.explicit, it.stablehlo, opts, unsafe, lang):
                lines.append(label("offload.fixed", lang, source=escape_field(it.path), what=what))
                fixed += 1
    lines.append(label("check.fix_tally", lang, fixed=plural(fixed, "offload.n_fixed_one", "offload.n_fixed_many", lang)))
    print("\n".join(lines), file=say)
    return fixed


def diff_items(items: list[Item], opts: Options, unsafe: bool, lang: str) -> int:
    """``check --diff`` (ruff's ``--diff``): what :func:`fix_items` would do, written nowhere.  Each
    file's change, all its rounds together, goes to stdout as a unified diff; one "would fix" line
    per fix and the tally to stderr.  Returns how many fixes would be applied."""
    fixable = 0
    lines: list[str] = []
    for it in items:
        if it.status == "file" and getattr(it, "graph", None) is None:  # a torch_xla tensors file is no input to edit
            for what in _fix_file(it.path, it.explicit, it.stablehlo, opts, unsafe, lang, diff=True):
                lines.append(label("offload.would_fix", lang, source=escape_field(it.path), what=what))
                fixable += 1
    lines.append(label("check.fix_tally", lang,
                       fixed=plural(fixable, "offload.n_fixable_one", "offload.n_fixable_many", lang)))
    print("\n".join(lines), file=sys.stderr)
    return fixable


def _fix_file(path: str, explicit: bool, stablehlo: str | None, opts: Options, unsafe: bool, lang: str,
              diff: bool = False) -> list[str]:
    """Fix ``path`` one E1200 at a time (:func:`xladoctor.route.fix.fix_rounds`: check, apply the
    fix's edits, refuse what does not parse); what each fix did, in words.  Each round is written
    into the file itself before the next is checked; with ``diff`` nothing is written and the
    whole change is printed as a diff."""
    from ...ir.shape import format_shape_index
    from ...route.fix import fix_rounds
    from ._atomic import refuse_if_changed, rewrite_in_place

    done: list[str] = []
    original = text = None
    for step in fix_rounds(path, explicit, opts, stablehlo, unsafe, in_memory=diff):
        original = step.before if original is None else original
        if not diff:
            # the edits are line numbers in the text the check read: applied to another text they
            # would edit the wrong lines, so a file written meanwhile is refused, not damaged
            refuse_if_changed(path, step.before)
            # into the file itself (its inode: hard links keep sharing it); fix_items says "fixed"
            rewrite_in_place(path, step.before, step.after,
                             label("status.fixed_module", lang, fix="host" if unsafe else "device"))
        text = step.after
        index = format_shape_index(tuple(step.finding.fields.get("output_index") or ()))  # type: ignore[arg-type]
        done.append(label("offload.fixed_host" if unsafe else "offload.fixed_device", lang, output=glossary.output(index, lang)))
    if diff and original is not None and text is not None and text != original:
        from ._fix import unified_diff

        sys.stdout.write(unified_diff(original, text, path, path))
        sys.stdout.flush()
    return done
