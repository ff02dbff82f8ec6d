"""The one JSON form of findings (``"diagnostics"`` in every command's document).

Rules kept in one place so no two serialisers can disagree again (a hop's location was a
``file:line`` string in one and a dict in another): enums are written as their string
values, shape indexes as lists of ints, every location (``location``, ``source``, a hop's
``source``) is an object or null, never a string.  ``from_json`` inverts ``to_json``
exactly (tests round-trip every command's output), so a consumer in Python (SARIF, GitHub
annotations, the notebook view) can read the JSON back into the typed model.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import JSON, FindingKind, FixKind, Origin, Report, Severity

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..ir.metadata import SourceLocation
    from .finding import Edit, Finding, Fix, Hop, Location

FINDINGS_SCHEMA_VERSION = 1
"""Version of the findings document; a key is never removed or changes meaning within it."""


def thaw_json(value: JSON) -> Any:
    """A frozen JSON value back to plain lists and dicts."""
    if isinstance(value, tuple):
        return [thaw_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw_json(v) for k, v in value.items()}
    return value


def _source_json(s: SourceLocation | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {"file": s.file, "line": s.line, "function": s.function, "column": s.column}


def _location_json(loc: Location) -> dict[str, Any]:
    return {"path": loc.path, "line": loc.line, "column": loc.column, "instruction": loc.instruction,
            "computation": loc.computation}


def _hop_json(h: Hop) -> dict[str, Any]:
    return {"instruction": h.instruction, "shape_index": list(h.shape_index), "opcode": h.opcode,
            "shape": h.shape, "computation": h.computation, "line": h.line, "source": _source_json(h.source)}


def _fix_json(f: Fix) -> dict[str, Any]:
    return {"kind": f.kind.value, "text": f.text, "code": f.code,
            "command": list(f.command) if f.command is not None else None,
            "applicability": f.applicability,
            "edits": [_edit_json(e) for e in f.edits]}


def _edit_json(e: Edit) -> dict[str, Any]:
    d: dict[str, Any] = {"path": e.path, "start_line": e.start_line, "end_line": e.end_line, "content": e.content}
    if e.start_column is not None:  # a span of one line (only then: whole-line edits keep their four keys)
        d["start_column"], d["end_column"] = e.start_column, e.end_column
    return d


def finding_json(f: Finding) -> dict[str, Any]:
    return {"code": f.code, "name": f.name, "kind": f.kind.value, "origin": f.origin.value,
            "severity": f.severity.value, "title": f.title, "message": f.message,
            "location": _location_json(f.location), "source": _source_json(f.source),
            "path": [_hop_json(h) for h in f.path], "fixes": [_fix_json(x) for x in f.fixes],
            "count": f.count, "lines": list(f.lines), "fields": thaw_json(f.fields)}


def offload_record_json(f: Finding, trace_length: int) -> dict[str, Any]:
    """``explain LOG --hlo``'s record of one predicted E1200 (``analysis.offload.errors[]``), drawn
    from the finding's own JSON so the facts are written here only: its E1200 ``fields`` and its
    path, each hop with its ``source`` object under the record's older name ``location``.  XLA's
    trace is the path's last ``trace_length`` hops (the path only puts the MoveToHost before it)."""
    d = finding_json(f)
    fields = d["fields"]
    hops = [{"instruction": h["instruction"], "shape_index": h["shape_index"], "opcode": h["opcode"],
             "shape": h["shape"], "location": h["source"], "computation": h["computation"]} for h in d["path"]]
    return {**{k: fields[k] for k in ("start", "context", "output_index", "output_layout", "customized")},
            "trace": hops[len(hops) - trace_length:],
            **{k: fields[k] for k in ("origin", "origin_instruction")}, "path": hops, "first": fields["first"]}


def report_json(r: Report) -> dict[str, Any]:
    return {"schema_version": FINDINGS_SCHEMA_VERSION, "command": r.command, "inputs": list(r.inputs),
            "lang": r.lang, "findings": [finding_json(f) for f in r.findings],
            "input_errors": list(r.input_errors)}


def with_verdict(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with the one verdict key every document with findings carries, after ``command``:
    ``input_error`` when an input could not be read or parsed (the command exits 2: whatever else
    it says, not all was checked), ``findings`` when its ``diagnostics`` has any (exit 1), else
    ``clean`` (exit 0): the exit code's order.  The older per-command keys (check's count,
    offload's ``outcome``, inputs' ``ok``) stay, for compatibility."""
    diagnostics = doc.get("diagnostics")
    if not isinstance(diagnostics, dict) or "verdict" in doc:
        return doc
    head: dict[str, Any] = {k: doc[k] for k in ("schema_version", "$schema", "command") if k in doc}
    verdict = "input_error" if diagnostics.get("input_errors") else "findings" if diagnostics.get("findings") else "clean"
    return {**head, "verdict": verdict, **doc}


def to_json(obj: Report | Finding) -> dict[str, Any]:
    """The JSON object of a report (the ``diagnostics`` document) or of one finding."""
    if isinstance(obj, Report):
        return report_json(obj)
    return finding_json(obj)


def _source(d: Mapping[str, Any] | None) -> SourceLocation | None:
    if d is None:
        return None
    from ..ir.metadata import SourceLocation

    return SourceLocation(d["file"], d["line"], d.get("function"), d.get("column"))


def _hop(d: Mapping[str, Any]) -> Hop:
    from .finding import Hop  # read back only: writing a clean report creates none of its classes

    return Hop(d["instruction"], tuple(d.get("shape_index") or ()), d.get("opcode"), d.get("shape"),
               d.get("computation"), d.get("line"), _source(d.get("source")))


def _fix(d: Mapping[str, Any]) -> Fix:
    from .finding import Edit, Fix

    command = d.get("command")
    edits = tuple(Edit(e["path"], e["start_line"], e["end_line"], e["content"], e.get("start_column"),
                       e.get("end_column")) for e in d.get("edits") or ())
    return Fix(FixKind(d["kind"]), d["text"], d.get("code"), tuple(command) if command is not None else None,
               d.get("applicability"), edits)


def finding_from_json(d: Mapping[str, Any]) -> Finding:
    from .finding import Finding, Location

    loc = d.get("location") or {}
    return Finding(
        code=d["code"], name=d["name"], kind=FindingKind(d["kind"]), origin=Origin(d["origin"]),
        severity=Severity(d["severity"]), title=d["title"], message=d["message"],
        location=Location(loc.get("path"), loc.get("line"), loc.get("column"), loc.get("instruction"),
                          loc.get("computation")),
        source=_source(d.get("source")), path=tuple(_hop(h) for h in d.get("path") or ()),
        fixes=tuple(_fix(x) for x in d.get("fixes") or ()), count=d.get("count", 1),
        lines=tuple(d.get("lines") or ()), fields=d.get("fields") or {})


def from_json(d: Mapping[str, Any]) -> Report | Finding:
    """Inverse of :func:`to_json`: a document with ``findings`` is a Report, else a Finding.

    Raises ``ValueError`` for a findings document of a newer schema version.
    """
    if "findings" in d:
        version = d.get("schema_version", FINDINGS_SCHEMA_VERSION)
        if version != FINDINGS_SCHEMA_VERSION:
            raise ValueError(f"findings schema_version {version} is not {FINDINGS_SCHEMA_VERSION}")
        return Report(command=d.get("command", ""), inputs=tuple(d.get("inputs") or ()),
                      findings=tuple(finding_from_json(f) for f in d["findings"]), lang=d.get("lang", "en"),
                      input_errors=tuple(d.get("input_errors") or ()))
    return finding_from_json(d)
