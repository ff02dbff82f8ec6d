"""The ``explain FILE --json`` document (docs/json.md ``## explain``), also a log's entry in ``check --json``."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..catalogue import scanner
from ..catalogue.fixes import finding_fixes
from ..catalogue.scanner import Finding
from ..labels import Text

# Version 2: `notes` and `fixes_first` are in the document's `lang`; `notes_fa` and `fixes_first_fa`
# are gone (docs/json.md).  `check` embeds this document, so its version moves with it.
SCAN_SCHEMA_VERSION = 2


def jsonable(value: Any, lang: str = "en") -> Any:
    """Dataclasses, dicts and sequences as JSON values; words an analysis left unchosen
    (:class:`~xladoctor.labels.Text`) in ``lang``; anything else as its ``str``."""
    if isinstance(value, Text):
        return value.render(lang)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name), lang) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v, lang) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, lang) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def scan_document(findings: list[Finding], source: str, lang: str,
                  not_shown: dict[str, int] | None = None) -> dict[str, Any]:
    """The ``explain FILE --json`` document (docs/json.md ``## explain``), without ``schema_version``."""
    doc: dict[str, Any] = {"command": "explain", "mode": "scan", "source": source, "lang": lang,
           "findings": [jsonable(f.to_json(finding_fixes(f, lang)), lang) for f in findings]}
    if not_shown:
        doc["not_shown"] = {"distinct_limit": scanner.MAX_DISTINCT, "messages": sum(not_shown.values()),
                            "by_code": dict(sorted(not_shown.items()))}
    from ..findings import Report, to_json
    from ..findings.from_log import log_findings  # the one findings serialiser (explain and check)

    doc["diagnostics"] = to_json(Report("explain", (source,), log_findings(findings, source, lang), lang, ()))
    return doc
