"""``xladoctor.explain_log``: ``xladoctor explain FILE`` from Python, as an object.

Why a :class:`~xladoctor.findings.Report` with the scan attached: in a notebook the result of a call is displayed, so the scan of a log
(a file, or text already in memory: a cell's captured stderr, a string from a job
API) should show itself: the text report as ``explain`` prints it, and in Jupyter the
``explain --html`` page (``_repr_html_``).  ``to_json()`` is the ``explain`` scan
document of docs/json.md.  The scan is the command's own (bounded memory, same findings).
"""

from __future__ import annotations

import io
import os

from ..base.labels import label
from ..base.plain_dataclass import FACTORY, FrozenDataclass
from ..catalogue.scanner import LogMatch
from ..findings.model import Report

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

LogReport = Report
"""The name ``explain_log`` returned before there was one report type; kept so users' code works."""


class ExplainedLog(FrozenDataclass):
    """A log as ``explain`` explains it, the :class:`Report`'s ``analysis`` for ``explain_log``:
    what only the scan of one log knows (the scanner's raw matches, which the ``explain`` document
    writes beside the findings, and the messages past the distinct-error limit) and how the
    Report draws itself from them (``str``, ``repr``, ``to_json()``, the notebook page).  Named
    apart from the catalogue's :class:`~xladoctor.catalogue.logscan.LogScan`, the scanner's result."""

    _FACTORIES = (("matches", list), ("not_shown", dict))
    source: str
    """The file scanned, or ``<text>`` for text given directly."""
    matches: list[LogMatch]
    not_shown: dict[str, int]
    """Messages past the distinct-error limit, by code."""

    def __init__(self, source: str, matches: list[LogMatch] = FACTORY, not_shown: dict[str, int] = FACTORY) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "matches", [] if matches is FACTORY else matches)
        object.__setattr__(self, "not_shown", {} if not_shown is FACTORY else not_shown)

    def codes(self) -> list[str]:
        return [m.code for m in self.matches]

    def ok(self, report: Report) -> bool:
        return not self.matches

    def document(self, report: Report) -> dict[str, Any]:
        from ..findings.schema_files import schema_id
        from ..report.explain_json import SCAN_SCHEMA_VERSION, scan_document

        return {"schema_version": SCAN_SCHEMA_VERSION, "$schema": schema_id("explain"),
                **scan_document(self.matches, self.source, report.lang, self.not_shown, report)}

    def text(self, report: Report) -> str:
        from ..report.explain_text import draw_findings, not_shown_text

        text = draw_findings(report.findings, report.lang, 100, "logical",
                             [m.analysis.get("offload") for m in self.matches])
        if self.not_shown:
            text += not_shown_text(self.not_shown, report.lang, 100, "logical")
        return text

    def summary(self, report: Report) -> str:
        counts = ", ".join(f"{m.code} x{m.count}" if m.count > 1 else m.code for m in self.matches)
        return f"<LogReport {self.source}: {counts or label('check.no_xla_error')}>"

    def html(self, report: Report) -> str:
        """The ``explain --html`` page."""
        from ..report.html import render_explain_html
        from ..report.notebook import notebook_frame

        return notebook_frame(render_explain_html(self.document(report),
                                                  title=label("status.explain_title", source=self.source)))


def log_report(source: str, lang: str, matches: list[LogMatch], not_shown: dict[str, int]) -> Report:
    """The scan of one log as the one report type: its findings made once (``findings.from_log``)."""
    from ..findings.details import ScannedLog

    findings: tuple = ()
    if matches:  # a clean log's report imports no finding maker (nor the IR records it brings), h52s
        from ..findings.from_log import log_findings

        findings = log_findings(matches, source, lang)
    return Report("explain", (source,), findings, lang,
                  analysis=ExplainedLog(source, matches, not_shown), details=ScannedLog(tuple(matches), not_shown))


def explain_log(log: str | bytes | os.PathLike[str] | BaseException, lang: str | None = None) -> Report:
    """Find and explain every XLA error in ``log``.

    ``log`` is a path (``os.PathLike``, or a ``str`` without a line break) or the log's
    text itself (``bytes``, or a ``str`` holding a line break: end a one-line log with
    ``"\\n"``), or the exception JAX raised (its message is the text; ``xladoctor.jax.explain``
    also reads the program from its traceback).  ``lang`` is ``"en"`` or ``"fa"`` (default: from ``LC_ALL``/``LANG``, as
    the command).  A path that cannot be read raises :class:`xladoctor.InputError`.
    """
    from ..base.labels import language_from_env

    lang = lang or language_from_env()
    if isinstance(log, BaseException):
        log = f"{log}\n"
    if isinstance(log, bytes) or (isinstance(log, str) and "\n" in log):
        from ..catalogue.fastscan import scan_stream
        from ..catalogue.scanner import LogScanner

        data = log if isinstance(log, bytes) else log.encode("utf-8", "surrogateescape")
        scanner = scan_stream(io.BytesIO(data), LogScanner())
        return log_report("<text>", lang, scanner.finish(), dict(scanner.not_shown))
    from ..catalogue.logscan import scan_file

    scan = scan_file(os.fspath(log))
    return log_report(scan.source, lang, scan.findings, dict(scan.not_shown))
