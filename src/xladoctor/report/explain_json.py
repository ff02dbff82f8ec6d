"""The ``explain FILE --json`` document (docs/json.md ``## explain``), also a log's entry in ``check --json``."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..catalogue import scanner
from ..catalogue.fixes import finding_fixes
from ..catalogue.scanner import Finding


def jsonable(value: Any) -> Any:
    """Dataclasses, dicts and sequences as JSON values; anything else as its ``str``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def scan_document(findings: list[Finding], source: str, lang: str,
                  not_shown: dict[str, int] | None = None) -> dict[str, Any]:
    """The ``explain FILE --json`` document (docs/json.md ``## explain``), without ``schema_version``."""
    doc: dict[str, Any] = {"command": "explain", "mode": "scan", "source": source, "lang": lang,
           "findings": [jsonable(f.to_json(finding_fixes(f, lang))) for f in findings]}
    if not_shown:
        doc["not_shown"] = {"distinct_limit": scanner.MAX_DISTINCT, "messages": sum(not_shown.values()),
                            "by_code": dict(sorted(not_shown.items()))}
    return doc
