"""Typed findings: one model (:mod:`.model`), one JSON form (:mod:`.serialise`), one adapter per analysis.

Import the adapters from their modules (``findings.from_offload``, ``findings.from_log``);
this package only re-exports the model and the serialiser, which need nothing heavy.
"""

from .model import JSON, Finding, FindingKind, Fix, FixKind, Hop, Location, Origin, Report, Severity, SourceLocation
from .serialise import FINDINGS_SCHEMA_VERSION, from_json, to_json

__all__ = ["FINDINGS_SCHEMA_VERSION", "JSON", "Finding", "FindingKind", "Fix", "FixKind", "Hop", "Location",
           "Origin", "Report", "Severity", "SourceLocation", "from_json", "to_json"]
