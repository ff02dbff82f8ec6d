"""An ``offload`` document's ``details`` typed once, for the views that draw them (issue 37).

The pages draw HostOffloader's internals below the verdict: the E1200 records, the later
failures, the outputs moved to host, host compute, warnings, host positions and the ``vmodule``
trace.  They reach a view as the ``details`` key of an ``offload`` document: drawn in this
process from the Report (:mod:`xladoctor.report.offload_json`), or read back from JSON where a
``check -j`` worker sent its entry across the process boundary (:mod:`.wire`).  Either way the
view takes :func:`offload_facts` of it, one frozen value, and never reads a dict key itself.

Values that a view passes on as they are (a warning that is a label in-process and its words in a
document read back, an index list) keep their JSON form; what the page tests or formats is typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .wire import details_of


@dataclass(frozen=True)
class Failure:
    """A failure HostOffloader would raise after the first (``details.failures[i]``)."""

    status: Any
    """``CHECK`` (a CHECK failure: the process aborts) or XLA's status code."""
    message: Any
    instruction: str | None
    first: bool
    """The one XLA reports (it stops at the first)."""


@dataclass(frozen=True)
class MovedOutput:
    """An entry output whose layout HostOffloader moves to host memory."""

    output_index: Any
    old_layout: Any
    new_layout: Any
    start: Any


@dataclass(frozen=True)
class HostCompute:
    """An instruction that runs on the host (``compute_type="host"``)."""

    instruction: Any
    opcode: Any
    location: str | None


@dataclass(frozen=True)
class HostPosition:
    """A buffer position HostOffloader puts in host memory."""

    instruction: str
    shape_index: tuple[int, ...]


@dataclass(frozen=True)
class OffloadFacts:
    """What a view draws of one ``offload`` document's ``details`` (empty for a document without)."""

    errors: tuple[dict[str, Any], ...] = ()
    """The E1200 records, each a :class:`.wire.Record` once loaded (a hand-made one stays as written)."""
    failures: tuple[Failure, ...] = ()
    warnings: tuple[Any, ...] = ()
    moved: tuple[MovedOutput, ...] = ()
    host_compute: tuple[HostCompute, ...] = ()
    host_positions: tuple[HostPosition, ...] = ()
    vlog: tuple[str, ...] = ()
    rule: str | None = None
    """``unmerged-pr-36525`` when the unmerged XLA fix's rule was modelled, else the shipped one."""

    @property
    def host_keys(self) -> set[tuple[str, tuple[int, ...]]]:
        """The host positions as lookup keys (instruction, shape index)."""
        return {(p.instruction, p.shape_index) for p in self.host_positions}


def offload_facts(doc: Mapping[str, Any]) -> OffloadFacts:
    """The typed details of an ``offload`` document (or ``check``'s ``offload`` entry), in-process
    or read back (loaded by :func:`.wire.load_document`, as every page's entry point does, so its
    records are typed); a version-1 document's details are its top level (:func:`.wire.details_of`)."""
    details = details_of(doc)
    if not details:
        return OffloadFacts()
    return OffloadFacts(
        errors=tuple(details.get("errors") or ()),
        failures=tuple(Failure(f.get("status"), f.get("message"), f.get("instruction") or None, bool(f.get("first")))
                       for f in details.get("failures") or ()),
        warnings=tuple(details.get("warnings") or ()),
        moved=tuple(MovedOutput(o.get("output_index"), o.get("old_layout"), o.get("new_layout"), o.get("start"))
                    for o in details.get("outputs_moved_to_host") or ()),
        host_compute=tuple(HostCompute(h.get("instruction"), h.get("opcode"), h.get("location") or None)
                           for h in details.get("host_compute") or ()),
        host_positions=tuple(HostPosition(str(p.get("instruction", "")), tuple(p.get("shape_index") or ()))
                             for p in details.get("host_positions") or ()),
        vlog=tuple(details.get("vlog") or ()),
        rule=details.get("rule"),
    )
