"""Fixing what a Report found: the one place that applies a fix to the text the user wrote, parses
it back and analyses it again (issue 37: the commands keep only their arguments and the writes).

Two commands fix E1200, as ruff does, and both come here:

* ``offload --fix host|device`` (:func:`fix_module`): HostOffloader's fix of the module
  (:mod:`xladoctor.offload.fixes`), written into the original text by editing only the statements
  it changes (:func:`fixed_text`); the result must parse back and print as the fixed module, the
  fix and nothing else, or it is refused.  The fixed text is analysed again: what is left.
* ``check --fix``/``--diff`` (:func:`fix_rounds`): the Report's own machine-applicable edits (a
  finding's :class:`~xladoctor.findings.model.Fix`, as JSON and SARIF carry them), one E1200 at a
  time, each round checked again by the same route as the file itself; an edited text that does
  not parse is refused before anything is written.

Never a damaged file: a refusal is an :class:`~xladoctor.base.errors.InputError` (exit 2), raised
before the command writes.  Writing (in place, atomically, or a diff) is the command's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..base.errors import InputError
from ..findings.edits import apply_edits, line_edits, newline_of

if TYPE_CHECKING:
    from ..findings.model import Finding, Fix, Report
    from ..ir.module import HloModule
    from ..offload.result import OutputMismatch
    from .options import Options

ROUNDS = 16
"""``check --fix``: at most this many fixes per file (each removes one offending output)."""


class Fixed(NamedTuple):
    text: str
    """What is written: the original with the fix's statements edited, or the printed module."""
    module: HloModule
    """``text`` parsed back (it prints as the fixed module)."""
    respelt: bool
    """The printed module, not the original edited: comments and spacing are not kept."""


def fixed_text(original: str, module: HloModule, fixed: HloModule, source: str = "<input>") -> Fixed:
    """``original`` with the fix applied, as close to the written text as the fix allows, and that
    text parsed back; :class:`InputError` when neither the edited text nor the printed module reads
    back as ``fixed``.

    Only the statements the fix changes are edited (:mod:`xladoctor.findings.edits`): comments, the
    ENTRY header, line endings (CRLF stays CRLF), trailing white space and a header or ROOT written
    over several lines stay as written.  When a changed statement cannot be placed in the original,
    the whole printed module is the result (in the file's line endings): correct, only respelt."""
    from ..syntax.hlo_printer import print_module

    return _fixed_as(original, module, print_module(fixed), source)


def _fixed_as(original: str, module: HloModule, want: str, source: str) -> Fixed:
    """:func:`fixed_text` from the fixed module as printed (``want``): a fix that changes only the
    entry layout is printed without a copy of the module (:func:`fix_module`)."""
    from ..syntax.hlo_printer import print_module

    edits = line_edits(original, print_module(module), want)
    nl = newline_of(original)
    candidates = [] if edits is None else [apply_edits(original, edits)]
    candidates.append(want if nl == "\n" else want.replace("\n", nl))
    for n, text in enumerate(candidates):
        parsed = _parsed_as(text, want, source)
        if parsed is not None:
            return Fixed(text, parsed, n == len(candidates) - 1 and text != original)
    raise InputError("the fixed module would not parse back as the fix alone; nothing was written "
                     "(a bug in xladoctor's fix, please report it)", source, 1, 1)


def _parsed_as(text: str, want: str, source: str) -> HloModule | None:
    """``text`` parsed, if it parses and prints as ``want``; else None."""
    from ..syntax.hlo_printer import print_module

    parsed = _parsed(text, source)
    return parsed if parsed is not None and print_module(parsed) == want else None


def _parsed(text: str, source: str) -> HloModule | None:
    """``text`` parsed by the parser every route uses, or None when it does not parse."""
    from ..base.errors import located
    from .module_analysis import parse_hlo

    try:
        with located(text, source):
            return parse_hlo(text, source)
    except InputError:
        return None


@dataclass(frozen=True)
class ModuleFix:
    """``offload --fix``'s result: the text to write, what was fixed, and what is left."""

    text: str
    respelt: bool
    fixed: tuple[OutputMismatch, ...]
    """The offending outputs the fix moved (each one line of the command's report)."""
    left: tuple[Finding, ...]
    """The findings of the fixed text, analysed again as ``target``."""


def fix_module(report: Report, how: str, target: str, options: Options) -> ModuleFix | None:
    """``offload``'s Report fixed (``how``: ``host`` keeps each offending output in host memory,
    ``device`` moves it back), written as ``target`` and analysed again with ``options`` (the
    command's; the module's companion is added as the route added it); None when the Report has
    no E1200 to fix.  Refused (:class:`InputError`) if the result does not read back as the fix."""
    from ..base.errors import located
    from ..findings.details import offload_of
    from ..offload import fix_device
    from ..offload.fixes import host_layout
    from ..syntax.hlo_printer import print_module
    from .module_analysis import analyse_module, parse_hlo

    details = offload_of(report)
    assert details.module is not None and details.text is not None
    mismatches = tuple(details.result.errors) if details.applies else ()
    if not mismatches:
        return None
    text, source, companion = details.text, report.inputs[0], details.companion
    stablehlo = companion.text if companion is not None else None
    # The fix as printed: ``fix_host``'s module differs only in its entry layout, printed here
    # without copying the module for it; ``fix_device`` inserts instructions into a copy.
    want = (print_module(details.module, host_layout(details.module, details.result)) if how == "host"
            else print_module(fix_device(details.module, details.result)))
    # Against the module as written: with its StableHLO, the module analysed carries JAX's memory
    # kinds, which the written entry layout lacks; the fixed file must carry them for the compiler.
    written = parse_hlo(text, source) if stablehlo is not None else details.module
    out = _fixed_as(text, written, want, target)
    options = options.with_companion(companion.path if companion else None,
                                     companion.found if companion else None).for_platform()
    with located(out.text, target):
        after = analyse_module(out.module, out.text, target, options, stablehlo)
    return ModuleFix(out.text, out.respelt, mismatches, after.findings(report.lang))


@dataclass(frozen=True)
class Round:
    """One ``check --fix`` round: the text checked, the text with one E1200 fixed, and which."""

    before: str
    after: str
    finding: Finding


def fix_rounds(path: str, explicit: bool, options: Options, stablehlo: str | None, unsafe: bool,
               in_memory: bool = False) -> Iterator[Round]:
    """``check --fix`` on ``path``, one E1200 at a time: each round checks the file (the route
    ``check`` takes), applies the chosen fix's edits (``unsafe``: the host-output fix) and yields
    the round, which the command writes before the next is checked; ``in_memory`` (``--diff``):
    the rounds after the first check the text in memory as if it were the file (same name, so
    the same StableHLO beside it and the same dump folder), and nothing is read again.  An edited
    text that does not parse is refused before it is yielded."""
    from ..base.files import decode_text, read_path
    from .dispatch import check_path

    text: str | None = None
    for _ in range(ROUNDS):
        if not in_memory:
            text = decode_text(*read_path(path))  # the text this round's check reads
            report = check_path(path, explicit, options, stablehlo)
        else:
            report = check_path(path, explicit, options, stablehlo) if text is None else _check_text(
                text, path, options, stablehlo)
        finding = next(iter(_e1200(report)), None)
        fix = _chosen(finding, unsafe) if finding is not None else None
        if finding is None or fix is None:
            return
        if text is None:
            text = decode_text(*read_path(path))
        after = apply_fix(text, fix)
        if not in_memory:
            # the edits are line numbers in the text the check read: the command refuses a file
            # written meanwhile; an edit that breaks the module is refused here
            _refuse_unparsable(after, path)
        yield Round(text, after, finding)
        text = after


def _check_text(text: str, path: str, options: Options, stablehlo: str | None) -> Report:
    """``check_path`` on ``text`` as if it were ``path``'s contents (``--diff``'s later rounds)."""
    import io

    from .dispatch import check_stream

    return check_stream(io.BytesIO(text.encode("utf-8")), path, options, None, stablehlo)


def _e1200(report: Report) -> list[Finding]:
    """The module's predicted E1200s (none for a log, an unread file, a module without a verdict)."""
    from ..findings.details import ModuleDetails
    from ..findings.model import FindingKind

    if not isinstance(report.details, ModuleDetails) or report.details.offload is None:
        return []
    return [f for f in report.findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]


def _chosen(finding: Finding, unsafe: bool) -> Fix | None:
    from ..findings.model import FixKind

    kind = FixKind.HOST_OUTPUT if unsafe else FixKind.MOVE_TO_DEVICE
    return next((x for x in finding.fixes if x.kind is kind and x.edits), None)


def _refuse_unparsable(text: str, path: str) -> None:
    """Raise, before the file is touched, if the fixed text does not parse with the same parser."""
    if _parsed(text, path) is None:
        raise InputError("the fixed module would not parse back; nothing was written "
                         "(a bug in xladoctor's fix, please report it)", path, 1, 1)


def apply_fix(text: str, fix: Fix) -> str:
    """The fix's edits (1-based lines, end exclusive) applied to ``text``."""
    from ..findings.edits import LineEdit

    edits = [LineEdit(e.start_line - 1, e.end_line - 1, tuple(e.content.splitlines(keepends=True))) for e in fix.edits]
    return apply_edits(text, edits)
