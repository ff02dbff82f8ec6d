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
from ...base.labels import label, plural

if TYPE_CHECKING:
    from ...findings.model import Finding, Fix, Report
    from ...route.folder import Item
    from ...route.options import Options

_ROUNDS = 16
"""At most this many fixes per file (each removes one offending output)."""


def fix_items(items: list[Item], opts: Options, unsafe: bool, lang: str, say: Any = None) -> int:
    """Fix every file of ``items`` in place; one line per fix on ``say`` (stdout), then a tally.
    Returns how many fixes were applied."""
    from ._atomic import refuse_fixing_compressed

    say = say or sys.stdout
    for it in items:  # every file first: nothing is written when one cannot be
        if it.status == "file" and it.graph is None:
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
    """Fix ``path`` one E1200 at a time; what each fix did, in words.  With ``diff`` the rounds are
    made on the text in memory, each checked as the file itself would be (same name, so the same
    StableHLO beside it and the same dump folder), and the whole change printed as a diff."""
    from ...base.files import decode_text, read_path
    from ...ir.shape import format_shape_index
    from ...route.dispatch import check_path
    from ._atomic import refuse_if_changed, rewrite_in_place

    done: list[str] = []
    original = text = None
    for _ in range(_ROUNDS):
        if not diff:
            text = decode_text(*read_path(path))  # the text this round's check reads
            report = check_path(path, explicit, opts, stablehlo)
        else:
            report = check_path(path, explicit, opts, stablehlo) if text is None else _check_text(
                text, path, opts, stablehlo)
        finding = next(iter(_e1200(report)), None)
        fix = _chosen(finding, unsafe) if finding is not None else None
        if finding is None or fix is None:
            break
        if text is None:
            text = decode_text(*read_path(path))
        original = text if original is None else original
        fixed_text = _apply(text, fix)
        if not diff:
            # the edits are line numbers in the text the check read: applied to another text they
            # would edit the wrong lines, so a file written meanwhile is refused, not damaged
            _refuse_unparsable(fixed_text, path)
            refuse_if_changed(path, text)
            # into the file itself (its inode: hard links keep sharing it); fix_items says "fixed"
            rewrite_in_place(path, text, fixed_text, label("status.fixed_module", lang, fix="host" if unsafe else "device"))
        text = fixed_text
        index = format_shape_index(tuple(finding.fields.get("output_index") or ()))  # type: ignore[arg-type]
        done.append(label("offload.fixed_host" if unsafe else "offload.fixed_device", lang, index=index))
    if diff and original is not None and text is not None and text != original:
        from ._fix import unified_diff

        sys.stdout.write(unified_diff(original, text, path, path))
        sys.stdout.flush()
    return done


def _check_text(text: str, path: str, opts: Options, stablehlo: str | None) -> Report:
    """``check_path`` on ``text`` as if it were ``path``'s contents (``--diff``'s later rounds)."""
    import io

    from ...route.dispatch import check_stream

    return check_stream(io.BytesIO(text.encode("utf-8")), path, opts, None, stablehlo)


def _e1200(report: Report) -> list[Finding]:
    """The module's predicted E1200s (none for a log, an unread file, a module without a verdict)."""
    from ...findings.details import ModuleDetails
    from ...findings.model import FindingKind

    if not isinstance(report.details, ModuleDetails) or report.details.offload is None:
        return []
    return [f for f in report.findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]


def _chosen(finding: Finding, unsafe: bool) -> Fix | None:
    from ...findings.model import FixKind

    kind = FixKind.HOST_OUTPUT if unsafe else FixKind.MOVE_TO_DEVICE
    return next((x for x in finding.fixes if x.kind is kind and x.edits), None)


def _refuse_unparsable(text: str, path: str) -> None:
    """Raise, before the file is touched, if the fixed text does not parse with the same parser."""
    from ...base.errors import InputError
    from ...base.files import located
    from ...route.module_analysis import parse_hlo

    try:
        with located(text, path):
            parse_hlo(text, path)
    except InputError:
        raise InputError("the fixed module would not parse back; nothing was written "
                         "(a bug in xladoctor's fix, please report it)", path, 1, 1) from None


def _apply(text: str, fix: Fix) -> str:
    """The fix's edits (1-based lines, end exclusive) applied to ``text``."""
    from ...findings.edits import LineEdit, apply_edits

    edits = [LineEdit(e.start_line - 1, e.end_line - 1, tuple(e.content.splitlines(keepends=True))) for e in fix.edits]
    return apply_edits(text, edits)
