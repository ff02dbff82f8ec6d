"""What a route read and decided beyond its findings: the typed details a view draws (issue 37).

A route returns a :class:`~.model.Report`; its findings say what to act on, and its ``details``
(one of the classes here) what only that kind of input has: a module's summary, provenance,
memory kinds and host-offload analysis, a log's raw matches, a module no analysis applies to.
The JSON documents (``offload --json``, ``check --json``'s files) are drawn from them once, by
``report/`` (:mod:`xladoctor.report.offload_json`, :mod:`xladoctor.report.check_json`): the route
builds no dict of its own, and no view reaches back into the route's objects.

These are values the route fills after its analysis is done; they hold the analyses' own typed
results (``HostOffloadResult``, ``Provenance``, ``Confirmation``, the scanner's ``LogMatch``), so
unlike the findings they do not cross a process: a worker sends the JSON drawn from them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    from .log_details import ScannedLog, SkippedInput
    from .module_details import (
        ComparedInputs,
        ModuleDetails,
        ModuleSummary,
        OffloadDetails,
        TriagedModule,
        offload_of,
    )

__all__ = ["ComparedInputs", "Details", "ModuleDetails", "ModuleSummary", "OffloadDetails", "ScannedLog",
           "SkippedInput", "TriagedModule", "offload_of"]

_LOG = frozenset({"ScannedLog", "SkippedInput"})
_MODULE = frozenset({"ComparedInputs", "ModuleDetails", "ModuleSummary", "OffloadDetails", "TriagedModule",
                     "offload_of"})


def __getattr__(name: str) -> object:
    """A name's home imported when it is first asked for (PEP 562): a log's two classes apart from
    a module's five, so a log's route creates no module's dataclass (~0.5 ms each, issue 36 item 6)
    and importers keep ``from .details import X``."""
    if name in _LOG:
        from . import log_details as home
    elif name in _MODULE:
        from . import module_details as home  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(home, name)
    globals()[name] = value  # asked once
    return value


Details: TypeAlias = "OffloadDetails | ComparedInputs | ModuleSummary | ModuleDetails | TriagedModule | ScannedLog | SkippedInput"
"""A Report's ``details``: ``offload``'s, ``inputs``', ``hlo``'s, or one of ``check``'s inputs (an input that could not be
read has none: its ``input_errors`` say why)."""
