"""Typed findings: one model (:mod:`.model`), one JSON form (:mod:`.serialise`), one adapter per analysis.

Import the adapters from their modules (``findings.from_offload``, ``findings.from_log``);
this package only re-exports the model and the serialiser, which need nothing heavy.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: every --json run imports this package for schema_files (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from .model import JSON, Finding, FindingKind, Fix, FixKind, Hop, Location, Origin, Report, Severity, SourceLocation
    from .serialise import FINDINGS_SCHEMA_VERSION, from_json, to_json

__all__ = ["FINDINGS_SCHEMA_VERSION", "JSON", "Finding", "FindingKind", "Fix", "FixKind", "Hop", "Location",
           "Origin", "Report", "Severity", "SourceLocation", "from_json", "to_json"]

# Re-exported on first use (as ``xladoctor.ir`` does): a submodule such as ``schema_files``, whose
# ``schema_id`` every ``--json`` document names, is imported without the model and the IR it uses.
_FROM_SERIALISE = frozenset(("FINDINGS_SCHEMA_VERSION", "from_json", "to_json"))


def __getattr__(name: str) -> Any:
    if name in _FROM_SERIALISE:
        from . import serialise

        return getattr(serialise, name)
    if name in __all__:
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
