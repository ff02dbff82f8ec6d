"""The ``explain FILE --json`` document (docs/json.md ``## explain``), also a log's entry in ``check --json``."""

from __future__ import annotations

from ..catalogue import scanner
from ..catalogue.scanner import LogMatch
from ..findings.model import Report

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

# Version 2: `notes` and `fixes_first` are in the document's `lang`; `notes_fa` and `fixes_first_fa`
# are gone (docs/json.md).  `check` embeds this document, so its version moves with it.
SCAN_SCHEMA_VERSION = 2


def scan_document(findings: list[LogMatch], source: str, lang: str,
                  not_shown: dict[str, int] | None = None, report: Report | None = None) -> dict[str, Any]:
    """The ``explain FILE --json`` document (docs/json.md ``## explain``), without ``schema_version``.

    ``report``: the log's findings already made (``log_report.log_report``), one per match in
    order, whose fixes the scan entries repeat; without it they are made here."""
    if findings:  # a clean log's document imports neither (nor the IR records they bring), h52s
        from ..catalogue.fixes import finding_fixes
        from ..findings.from_log import plain as jsonable  # the one converter of scanner values (words in lang)
    if report is None:
        from ..findings.from_log import log_findings  # the one findings serialiser (explain and check)

        # Each finding's fixes are chosen once and written twice: in its scan entry and in diagnostics.
        fixes = [finding_fixes(f, lang) for f in findings]
        report = Report("explain", (source,), log_findings(findings, source, lang, fixes), lang, ())
    else:
        fixes = [[x.text for x in f.fixes] for f in report.findings]
    doc: dict[str, Any] = {"command": "explain", "mode": "scan", "source": source, "lang": lang,
           "findings": [jsonable(f.to_json(texts), lang) for f, texts in zip(findings, fixes, strict=True)]
           if findings else []}
    if not_shown:
        doc["not_shown"] = {"distinct_limit": scanner.MAX_DISTINCT, "messages": sum(not_shown.values()),
                            "by_code": dict(sorted(not_shown.items()))}
    from ..findings.serialise import with_verdict
    from ..findings.wire import typed

    doc["diagnostics"] = typed(Report("explain", (source,), report.findings, lang, ()))
    return with_verdict(doc)
