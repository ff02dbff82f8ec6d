"""An E1200 analysis record of a JSON document read back as the model (the process boundary only).

An ``offload`` document's ``details.errors[i]`` (and an ``explain --hlo`` finding's ``analysis.offload``
errors) is the analysis' own record of one mismatch.  For a compiled module it is not a finding
(XLA already ran the pass: ``diagnostics`` is empty by design), yet the page draws it as one: its
path, XLA's trace, both fixes.  In the process that ran the analysis the record is a
:class:`~.wire.Record` carrying those as typed values.  A document that crossed a process (a
``check`` worker's entry) or came from outside (a ``--json`` file) is typed here, once, by
:func:`~.wire.load_document`; the renderers never read a record's JSON into hops or fixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..ir.shape import format_shape_index
from .model import Finding, FindingKind, Fix, Hop, Origin, Severity, SourceLocation

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

_LOCATION = re.compile(r"^(?P<file>.*):(?P<line>\d+)(?: \((?P<function>.*)\))?$")


def is_analysis_record(value: Any) -> bool:
    """An E1200 analysis record: what :func:`record_from_json` types (an output index and XLA's trace)."""
    return isinstance(value, Mapping) and "output_index" in value and "trace" in value


def _shape_index(value: Any) -> tuple[int, ...]:
    return tuple(i for i in value if isinstance(i, int)) if isinstance(value, (list, tuple)) else ()


def _source(value: Any) -> SourceLocation | None:
    """A hop's Python line as an ``offload`` document writes it (``file:line (function)``) or
    as the ``diagnostics``/``explain`` analysis does (``{file, line, function, column}``)."""
    if isinstance(value, Mapping):
        if not value.get("file"):
            return None
        return SourceLocation(str(value["file"]), int(value.get("line") or 0), value.get("function"),
                              value.get("column"))
    match = _LOCATION.match(str(value or ""))
    if match is None:
        return None
    return SourceLocation(match["file"], int(match["line"]), match["function"])


def hops_from_json(path: Iterable[Mapping[str, Any]]) -> tuple[Hop, ...]:
    """An analysis' path (``errors[i].path``) or XLA's trace (``errors[i].trace``) as the model's hops."""
    return tuple(Hop(str(h.get("instruction", "?")), _shape_index(h.get("shape_index")), h.get("opcode") or None,
                     h.get("shape") or None, h.get("computation") or None, h.get("line"),
                     _source(h.get("source") or h.get("location")))
                 for h in path)


def _index_text(index: Any) -> str:
    if isinstance(index, (list, tuple)):
        return format_shape_index(tuple(index))
    return "" if index is None else str(index)


def _user_location(location: Any, fix: Mapping[str, Any]) -> str | None:
    """Where remedy (b) goes, as the in-process adapter says it: not torch_xla's own frame."""
    from ..ir.frames import is_library
    from ..offload.fixes import PYTORCH_XLA

    if not isinstance(location, str) or (fix.get("frontend") == PYTORCH_XLA and is_library(location)):
        return None
    return location


def e1200_fixes_from_json(err: Mapping[str, Any]) -> tuple[tuple[Fix, ...], dict[str, Any]]:
    """An analysis' ``errors[i].fix`` as the model's fixes, through the adapter's own
    constructors, and the fields their cards read."""
    from .from_offload import host_output_fix, move_to_device_fix

    fix = err.get("fix")
    if not isinstance(fix, Mapping):
        return (), {}
    from ..offload.fixes import FRONTEND_NAMES

    host, dev = fix.get("host") or {}, fix.get("device") or {}
    frontend = FRONTEND_NAMES.get(fix.get("frontend"), FRONTEND_NAMES[None])
    fixes = (host_output_fix(_index_text(err.get("output_index")), str(host.get("entry_result_layout") or ""),
                             str(host.get("jax") or ""), frontend=frontend,
                             result_name=host.get("result_name") or None),
             move_to_device_fix(str(dev.get("after_instruction") or ""), _user_location(dev.get("location"), fix),
                                str(dev.get("jax") or ""), frontend=frontend))
    facts = {"result_name": host.get("result_name"), "host_layout": host.get("entry_result_layout"),
             "returned_value": dev.get("after_instruction"), "returned_location": dev.get("location")}
    return fixes, facts


def record_from_json(err: Mapping[str, Any]) -> Any:
    """``err`` as a :class:`~.wire.Record`: the same JSON, with the finding it stands for (its
    fields the record's own plus those its fix cards read) and XLA's trace as hops."""
    from ..offload.result import E1200_CODE, E1200_NAME
    from .wire import Record

    fixes, fix_facts = e1200_fixes_from_json(err)
    finding = Finding(str(err.get("code") or E1200_CODE), E1200_NAME, FindingKind.OFFLOAD_OUTPUT_MISMATCH,
                      Origin.PREDICTED, Severity.ERROR, E1200_NAME, str(err.get("message", "")),
                      path=hops_from_json(err.get("path") or []), fixes=fixes, fields={**err, **fix_facts})
    return Record(err, finding, hops_from_json(err.get("trace") or []))
