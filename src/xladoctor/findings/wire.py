"""Typed findings in-process, JSON between processes (issue 20 item 5).

A command's document is JSON-shaped (it is printed with ``--json``), and its ``diagnostics`` key
is the JSON of a :class:`~.model.Report`.  Renderers used to read that JSON back with
``from_json`` inside the process that had just written it.  :class:`Diagnostics` is that JSON
object *and* the typed report it was written from: it serialises as the same bytes (a ``dict``),
and renderers take ``report_of(...)`` from it, so nothing is parsed back in-process.

An ``offload`` document's analysis records (``details.errors[i]``) are typed the same way, as
:class:`Record` (findings/records.py): in-process the analysis makes them so; a document read
back gets them here, so the pages draw every record from typed hops and fixes.

JSON stays the wire format where a document crosses a process boundary: ``check``'s worker
processes return their entries as JSON text (:func:`to_wire`), and the parent reads them with
:func:`from_wire`, where each ``diagnostics`` is parsed once (:func:`load_document`).  A
document handed in from outside (a ``--json`` file, a test's subprocess output) is loaded the
same way by the renderers' public entry points; loading a document already typed costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import Report
from .serialise import finding_from_json, to_json

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from .finding import Finding, Hop


class Diagnostics(dict["str", "Any"]):  # quoted: typing is not imported (issue 36)
    """A ``diagnostics`` JSON object with the :class:`Report` it is the JSON of.

    ``aligned`` holds one typed finding per JSON entry, in order (None where a hand-edited
    document's entry does not read back: the renderer draws that one from its own facts)."""

    __slots__ = ("aligned", "report")

    def __init__(self, doc: Mapping[str, Any], report: Report, aligned: tuple[Finding | None, ...] | None = None):
        super().__init__(doc)
        self.report = report
        self.aligned = report.findings if aligned is None else aligned

    def __reduce__(self) -> Any:
        # Never pickled with its objects: what crosses a process boundary is the JSON only.
        return (dict, (dict(self),))


class Record(dict["str", "Any"]):  # quoted: typing is not imported (issue 36)
    """An analysis record of a document that is not a finding (an ``offload`` document's
    ``details.errors[i]`` of a compiled module, whose ``diagnostics`` is empty by design) with the typed
    finding it stands for and XLA's trace as hops, so the page draws it without reading JSON."""

    __slots__ = ("finding", "trace")

    def __init__(self, doc: Mapping[str, Any], finding: Finding, trace: tuple[Hop, ...] = ()):
        super().__init__(doc)
        self.finding = finding
        self.trace = trace

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


def typed(report: Report) -> Diagnostics:
    """The ``diagnostics`` key of a document, written once from ``report`` and carrying it."""
    return Diagnostics(to_json(report), report)


def report_of(diagnostics: Any) -> Report | None:
    """The typed report of a document's ``diagnostics`` (None where it has none: absent, or a
    plain JSON object that no :func:`load_document` typed)."""
    return diagnostics.report if isinstance(diagnostics, Diagnostics) else None


def findings_of(diagnostics: Any) -> tuple[Finding | None, ...]:
    """One typed finding per entry of ``diagnostics["findings"]`` (see :attr:`Diagnostics.aligned`)."""
    return diagnostics.aligned if isinstance(diagnostics, Diagnostics) else ()


def details_of(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """An ``offload`` document's analysis internals, its ``details`` key (schema version 2: the
    top level is what a user or CI reads), which the page and ``check``'s text draw below the
    verdict; a version-1 document saved earlier (the same keys at its top level) reads as its
    own details; ``{}`` for a document without them."""
    details = doc.get("details")
    if isinstance(details, Mapping):
        return details
    return doc if "outcome" in doc and "errors" in doc else {}


def _read(d: Mapping[str, Any]) -> Finding | None:
    try:
        return finding_from_json(d)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _load_diagnostics(d: Mapping[str, Any]) -> Any:
    if isinstance(d, Diagnostics) or not isinstance(d.get("findings"), list):
        return d
    from .serialise import FINDINGS_SCHEMA_VERSION

    if d.get("schema_version", FINDINGS_SCHEMA_VERSION) != FINDINGS_SCHEMA_VERSION:
        return d
    aligned = tuple(_read(f) if isinstance(f, Mapping) else None for f in d["findings"])
    report = Report(command=str(d.get("command", "")), inputs=tuple(d.get("inputs") or ()),
                    findings=tuple(f for f in aligned if f is not None), lang=str(d.get("lang", "en")),
                    input_errors=tuple(d.get("input_errors") or ()))
    return Diagnostics(d, report, aligned)


def _load_records(items: list[Any]) -> list[Any]:
    """An ``errors`` list of E1200 analysis records, each typed (findings/records.py)."""
    from .records import is_analysis_record, record_from_json

    if not items or isinstance(items[0], Record):
        return items
    if not all(is_analysis_record(e) for e in items):
        return load_document(items)
    return [e if isinstance(e, Record) else record_from_json(e) for e in items]


def _load_value(key: str, value: Any) -> Any:
    if key == "diagnostics" and isinstance(value, dict):
        return _load_diagnostics(value)
    if key == "confirm" and isinstance(value, dict):
        from ..oracle.confirmation import load_confirm  # the oracle's own reader of its record

        return load_confirm(value)
    if key == "errors" and isinstance(value, list):
        return _load_records(value)
    return load_document(value)


def load_document(doc: Any) -> Any:
    """``doc`` with every ``diagnostics`` object, every E1200 analysis record and every ``confirm``
    object in it typed (parsed once); the process boundary's reader.  Other values are left as they are; a document already
    typed is returned unchanged."""
    if isinstance(doc, dict):
        out = {k: _load_value(k, v) for k, v in doc.items()}
        return out if any(out[k] is not doc[k] for k in doc) else doc
    if isinstance(doc, list):
        items = [load_document(v) for v in doc]
        return items if any(a is not b for a, b in zip(items, doc)) else doc
    return doc


def to_wire(doc: Any) -> str:
    """A document as the JSON text a worker process returns (surrogate-escaped names included)."""
    import json  # here: a document written in this process needs no json (base/json_plain), h52s

    return json.dumps(doc)


def from_wire(text: str) -> Any:
    """A worker's document read back, its ``diagnostics`` typed (:func:`load_document`)."""
    import json

    return load_document(json.loads(text))
