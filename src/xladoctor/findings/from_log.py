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

import sys
from collections.abc import Iterable, Mapping, Sequence

from ..base.labels import Text, render
from ..base.plain_dataclass import FrozenDataclass, MutableDataclass
from ..catalogue.fixes import finding_fixes
from ..catalogue.scanner import LogMatch
from ..ir.record import MutableValue
from ..ir.value import FrozenValue
from .model import FindingKind, FixKind, Origin, Severity

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from .finding import Finding, Fix, Hop

# Analysis keys that steer the report (or hold text per language) rather than state a fact.
_STEERING = ("trace", "notes", "fixes_first", "replaces_fixes", "skips_fixes_with", "offload")
_INDEX = r"-?\d+"  # compiled (and kept by re) when a finding is made: a clean log imports no re


def plain(value: Any, lang: str = "en") -> Any:
    """A scanner value as plain JSON (dataclasses and frozen values as objects, words in ``lang``, anything else odd as its text)."""
    if isinstance(value, Text):
        return value.render(lang)
    if isinstance(value, (FrozenValue, MutableValue, FrozenDataclass, MutableDataclass)):  # written out: as a dataclass
        return {name: plain(getattr(value, name), lang) for name in value._FIELDS}
    dataclasses = sys.modules.get("dataclasses")  # no dataclass exists before it is imported (issue 36, start-up)
    if dataclasses is not None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name), lang) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        out = {str(k): plain(v, lang) for k, v in value.items()}
        from .wire import Record  # an analysis record keeps its typed finding in this process

        return Record(out, value.finding, value.trace) if isinstance(value, Record) else out
    if isinstance(value, (list, tuple)):
        return [plain(v, lang) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def log_fixes(f: LogMatch, lang: str, texts: Sequence[str] | None = None) -> tuple[Fix, ...]:
    """The fixes ``explain`` prints for a logged finding, in that order (chosen by
    :func:`xladoctor.catalogue.fixes.finding_fixes`, their one home).  ``texts``: those fixes
    already chosen by a caller that also wrote them elsewhere (the scan document), so the
    choice is made once per finding."""
    from .finding import Fix  # with a finding only (a clean log creates none of its classes)

    return tuple(Fix(FixKind.ADVICE, text) for text in (finding_fixes(f, lang) if texts is None else texts))


def _shape_index(text: Any) -> tuple[int, ...]:
    """``{1,0}`` as the trace prints it (or a list already) -> (1, 0)."""
    if isinstance(text, (list, tuple)):
        return tuple(int(i) for i in text)
    import re

    return tuple(int(m) for m in re.findall(_INDEX, str(text or "")))


def trace_hops(trace: Iterable[Mapping[str, Any]]) -> tuple[Hop, ...]:
    from .finding import Hop

    return tuple(Hop(str(h.get("instruction")), _shape_index(h.get("shape_index"))) for h in trace)


def log_finding(f: LogMatch, path: str | None, lang: str = "en", fixes: Sequence[str] | None = None) -> Finding:
    from ..catalogue.loader import load_catalogue  # with a finding only
    from .finding import Finding, Location

    entry = load_catalogue().entries[f.code]
    fields: dict[str, Any] = plain(f.fields, lang)
    analysis = {k: plain(v, lang) for k, v in f.analysis.items() if k not in _STEERING}
    if analysis:
        fields["analysis"] = analysis
    notes = [render(t, lang) for t in f.analysis.get("notes") or ()]
    if notes:
        fields["notes"] = notes
    return Finding(f.code, f.name, FindingKind.LOGGED_ERROR, Origin.LOGGED, Severity.ERROR,
                   entry.describe(lang).title, f.text, Location(path, f.line), None,
                   trace_hops(f.analysis.get("trace") or ()), log_fixes(f, lang, fixes), f.count, tuple(f.lines), fields)


def log_findings(findings: Iterable[LogMatch], path: str | None, lang: str = "en",
                 fixes: Sequence[Sequence[str]] | None = None) -> tuple[Finding, ...]:
    """Every distinct error of one log, in the order the scanner kept them (``fixes``: each
    finding's fix texts when the caller has chosen them already, in the same order)."""
    if fixes is None:
        return tuple(log_finding(f, path, lang) for f in findings)
    return tuple(log_finding(f, path, lang, texts) for f, texts in zip(findings, fixes, strict=True))
