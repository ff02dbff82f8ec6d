"""What the log scanner finds (:class:`LogMatch`, one distinct error) and hands between scanners
(:class:`ScanPart`); :mod:`.scanner` re-exports both, their home before they were written out as
dataclasses without ``dataclasses`` (:mod:`xladoctor.base.plain_dataclass`, issue 36 start-up).
"""

from __future__ import annotations

from ..base.plain_dataclass import FACTORY, MutableDataclass

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LogMatch", "ScanPart"]


class ScanPart(MutableDataclass):
    """What a fresh scanner found in one stretch of a log, to be folded into the scan of the whole
    (:meth:`LogScanner.absorb`) exactly as if that stretch had been scanned there (a dataclass
    written out: :mod:`xladoctor.base.plain_dataclass`)."""

    findings: list[tuple[tuple[str, str], LogMatch]]
    not_shown: dict[str, int]
    first_event: tuple | None
    """``("trace",)`` or ``("e1200", key)``: which came first, a trace block or an E1200 message."""
    pending_trace: list[dict[str, str]] | None

    def __init__(self, findings: list[tuple[tuple[str, str], LogMatch]], not_shown: dict[str, int],
                 first_event: tuple | None, pending_trace: list[dict[str, str]] | None) -> None:
        self.findings = findings
        self.not_shown = not_shown
        self.first_event = first_event
        self.pending_trace = pending_trace


class LogMatch(MutableDataclass):
    """One distinct error found in the input (a dataclass written out: no ``dataclasses`` on a log's
    way, :mod:`xladoctor.base.plain_dataclass`)."""

    _FACTORIES = (("lines", list),)
    code: str
    name: str
    line: int
    text: str
    fields: dict[str, Any]
    analysis: dict[str, Any]
    count: int
    lines: list[int]

    def __init__(self, code: str, name: str, line: int, text: str, fields: dict[str, Any], analysis: dict[str, Any],
                 count: int = 1, lines: list[int] = FACTORY) -> None:
        self.code = code
        self.name = name
        self.line = line
        self.text = text
        self.fields = fields
        self.analysis = analysis
        self.count = count
        self.lines = [] if lines is FACTORY else lines

    def to_json(self, fixes: list[str]) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "line": self.line, "text": self.text,
                "fields": self.fields, "analysis": self.analysis, "fixes": fixes, "count": self.count,
                "lines": self.lines}
