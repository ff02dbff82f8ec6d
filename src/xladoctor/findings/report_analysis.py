"""What an in-process route attaches to its :class:`~.model.Report` (:class:`ReportAnalysis`).

A protocol for readers and type checkers: nothing checks it at run time, so :mod:`.model` names it
and imports this module (and ``typing``, ~3 ms of a command's start-up, issue 36) only when it is
asked for (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .model import Report

__all__ = ["ReportAnalysis"]


class ReportAnalysis(Protocol):
    """What an in-process route attaches to its :class:`Report`: the analysis' own typed result
    (``xladoctor.jax``'s lowered program and HostOffloader result, a JAX call's argument leaves, a
    log's raw matches) and how that route draws the report.  A report that crosses a process has
    none: only the findings cross (``findings/wire.py``)."""

    def ok(self, report: Report) -> bool:
        """The route's verdict (an ``xladoctor.jax`` report is ok with warnings, say)."""
        ...

    def text(self, report: Report) -> str:
        """``str(report)``: the route's text report."""
        ...

    def summary(self, report: Report) -> str:
        """``repr(report)``: one line."""
        ...

    def html(self, report: Report) -> str:
        """``_repr_html_``: the route's ``--html`` page, for notebooks."""
        ...

    def document(self, report: Report) -> dict[str, Any]:
        """``report.to_json()``: the route's JSON document (docs/jax.md, docs/json.md)."""
        ...
