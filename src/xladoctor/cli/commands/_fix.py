"""``offload --fix``: the fix applied to the text the user wrote, as ruff applies its fixes.

Only the statements the fix changes are edited (:mod:`xladoctor.findings.edits`): comments, the
ENTRY header, line endings (CRLF stays CRLF), trailing white space and a header or ROOT written
over several lines stay as written.  When a changed statement cannot be placed in the original,
the whole printed module is the result (in the file's line endings): correct, only respelt.

Never a damaged file: the result is parsed back with the same parser and must print as the fixed
module does (the fix and nothing else); a result that does not parse, or differs, is never
written (:class:`~xladoctor.base.errors.InputError`, exit 2).
"""

from __future__ import annotations

import difflib
import sys
from typing import NamedTuple

from ...base.errors import InputError
from ...findings.edits import apply_edits, line_edits, newline_of
from ...ir.module import HloModule
from ...syntax.hlo_printer import print_module


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
    back as ``fixed``."""
    want = print_module(fixed)
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
    from ...base.errors import located
    from ...route.module_analysis import parse_hlo

    try:
        with located(text, source):
            parsed = parse_hlo(text, source)
    except InputError:
        return None
    return parsed if print_module(parsed) == want else None


def unified_diff(original: str, fixed: str, source: str, target: str) -> str:
    """What ``--diff`` prints: the change as a unified diff (``a/`` and ``b/`` the same file), each
    line with its own line ending (a CRLF file's diff applies to it with ``patch``)."""
    return "".join(difflib.unified_diff(_lines(original), _lines(fixed), fromfile=source, tofile=target))


def _lines(text: str) -> list[str]:
    """Lines split at LF only, each keeping its ending: a CR before it stays in the line (as patch
    reads a CRLF file), and no other character (form feed, U+2028) splits one."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def write_module_text(text: str) -> None:
    """A module (``-o -``) or its diff on stdout, byte for byte into a pipe or file (a CR stays a CR,
    not the text ``\\r``); on a terminal through the escaping stream, CRLF shown as a line break."""
    if sys.stdout.isatty():
        sys.stdout.write(text.replace("\r\n", "\n"))
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()
