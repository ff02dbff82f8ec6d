"""Errors found in a log (the catalogue scanner's findings) -> findings.

A logged error is ``Origin.LOGGED`` and ``Severity.ERROR`` (XLA or the runtime printed it:
it happened).  The location is the log line of the first occurrence; ``lines`` holds the
first occurrences' lines and ``count`` how many there were.  A host_offloader trace printed
before an E1200 becomes the finding's path (as XLA's trace names the hops: instruction and
shape index, no opcode or shape).  Fixes are the analysis' own first (E0102: device_put to
the compiled format, relayout of saved bytes), then the catalogue's prose unless the
analysis rules them out, as ``explain`` prints them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..catalogue.loader import load_catalogue
from ..catalogue.scanner import Finding as LogFinding
from .model import Finding, FindingKind, Fix, FixKind, Hop, Location, Origin, Severity

# Analysis keys that steer the report (or hold text per language) rather than state a fact.
_STEERING = ("trace", "notes", "notes_fa", "fixes_first", "fixes_first_fa", "replaces_fixes", "skips_fixes_with",
             "offload")
_INDEX = re.compile(r"-?\d+")


def plain(value: Any) -> Any:
    """A scanner value as plain JSON (dataclasses as objects, anything else odd as its text)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def log_fixes(f: LogFinding, lang: str) -> tuple[Fix, ...]:
    """The fixes ``explain`` prints for a logged finding, in that order."""
    entry = load_catalogue().entries[f.code]
    first = list(f.analysis.get("fixes_first_fa" if lang == "fa" else "fixes_first") or [])
    rest: list[str] = []
    if not f.analysis.get("replaces_fixes"):
        skip = tuple(f.analysis.get("skips_fixes_with") or ())
        rest = [x for x in entry.describe(lang).fixes if not any(s in x for s in skip)]
    return tuple(Fix(FixKind.ADVICE, text) for text in first + rest)


def _shape_index(text: Any) -> tuple[int, ...]:
    """``{1,0}`` as the trace prints it (or a list already) -> (1, 0)."""
    if isinstance(text, (list, tuple)):
        return tuple(int(i) for i in text)
    return tuple(int(m) for m in _INDEX.findall(str(text or "")))


def trace_hops(trace: Iterable[Mapping[str, Any]]) -> tuple[Hop, ...]:
    return tuple(Hop(str(h.get("instruction")), _shape_index(h.get("shape_index"))) for h in trace)


def log_finding(f: LogFinding, path: str | None, lang: str = "en") -> Finding:
    entry = load_catalogue().entries[f.code]
    fields: dict[str, Any] = plain(f.fields)
    analysis = {k: plain(v) for k, v in f.analysis.items() if k not in _STEERING}
    if analysis:
        fields["analysis"] = analysis
    notes = f.analysis.get("notes_fa" if lang == "fa" else "notes") or f.analysis.get("notes")
    if notes:
        fields["notes"] = list(notes)
    return Finding(f.code, f.name, FindingKind.LOGGED_ERROR, Origin.LOGGED, Severity.ERROR,
                   entry.describe(lang).title, f.text, Location(path, f.line), None,
                   trace_hops(f.analysis.get("trace") or ()), log_fixes(f, lang), f.count, tuple(f.lines), fields)


def log_findings(findings: Iterable[LogFinding], path: str | None, lang: str = "en") -> tuple[Finding, ...]:
    """Every distinct error of one log, in the order the scanner kept them."""
    return tuple(log_finding(f, path, lang) for f in findings)
