"""``xladoctor.explain_log``: ``xladoctor explain FILE`` from Python, as an object.

Why an object: in a notebook the result of a call is displayed, so the scan of a log
(a file, or text already in memory: a cell's captured stderr, a string from a job
API) should show itself: the text report as ``explain`` prints it, and in Jupyter the
``explain --html`` page (``_repr_html_``).  ``to_json()`` is the ``explain`` scan
document of docs/json.md.  The scan is the command's own (bounded memory, same findings).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from typing import Any

from .catalogue.scanner import LogMatch
from .labels import label


@dataclass
class LogReport:
    """Every distinct XLA error found in one log."""

    source: str
    """The file scanned, or ``<text>`` for text given directly."""
    lang: str
    findings: list[LogMatch] = field(default_factory=list)
    not_shown: dict[str, int] = field(default_factory=dict)
    """Messages past the distinct-error limit, by code."""

    @property
    def ok(self) -> bool:
        return not self.findings

    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def to_json(self) -> dict[str, Any]:
        from .findings.schema_files import schema_id
        from .report.explain_json import SCAN_SCHEMA_VERSION, scan_document

        return {"schema_version": SCAN_SCHEMA_VERSION, "$schema": schema_id("explain"),
                **scan_document(self.findings, self.source, self.lang, self.not_shown)}

    def __str__(self) -> str:
        from .report.explain_text import not_shown_text, render_findings

        text = render_findings(self.findings, self.source, self.lang, 100, "logical")
        return text + (not_shown_text(self.not_shown, self.lang, 100, "logical") if self.not_shown else "")

    def __repr__(self) -> str:
        counts = ", ".join(f"{f.code} x{f.count}" if f.count > 1 else f.code for f in self.findings)
        return f"<LogReport {self.source}: {counts or label('check.no_xla_error')}>"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """IPython's plain display: the text report."""
        p.text(repr(self) if cycle else str(self))

    def _repr_html_(self) -> str:
        """Jupyter's display: the ``explain --html`` page."""
        from .report.html import render_explain_html
        from .report.notebook import notebook_frame

        return notebook_frame(render_explain_html(self.to_json(), title=label("status.explain_title", source=self.source)))


def explain_log(log: str | bytes | os.PathLike[str] | BaseException, lang: str | None = None) -> LogReport:
    """Find and explain every XLA error in ``log``.

    ``log`` is a path (``os.PathLike``, or a ``str`` without a line break) or the log's
    text itself (``bytes``, or a ``str`` holding a line break: end a one-line log with
    ``"\\n"``), or the exception JAX raised (its message is the text; ``xladoctor.jax.explain``
    also reads the program from its traceback).  ``lang`` is ``"en"`` or ``"fa"`` (default: from ``LC_ALL``/``LANG``, as
    the command).  A path that cannot be read raises :class:`xladoctor.InputError`.
    """
    from .labels import language_from_env

    lang = lang or language_from_env()
    if isinstance(log, BaseException):
        log = f"{log}\n"
    if isinstance(log, bytes) or (isinstance(log, str) and "\n" in log):
        from .catalogue.fastscan import scan_stream
        from .catalogue.scanner import LogScanner

        data = log if isinstance(log, bytes) else log.encode("utf-8", "surrogateescape")
        scanner = scan_stream(io.BytesIO(data), LogScanner())
        return LogReport("<text>", lang, scanner.finish(), dict(scanner.not_shown))
    from .catalogue.logscan import scan_file

    scan = scan_file(os.fspath(log))
    return LogReport(scan.source, lang, scan.findings, dict(scan.not_shown))
