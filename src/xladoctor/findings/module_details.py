"""The details of a module: ``offload``'s analysis, ``check``'s module states, ``hlo``'s summary
and ``inputs``' comparison (:mod:`.details`, which re-exports them; a log's are in
:mod:`.log_details`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..inputs.compare import InputCheck
    from ..ir.module import HloModule
    from ..offload.fixes import FixSuggestion
    from ..offload.result import HostOffloadResult
    from ..oracle.confirmation import Confirmation
    from ..syntax.companion import Companion
    from ..triage.provenance import Provenance
    from .model import Finding, Report


@dataclass(frozen=True)
class OffloadDetails:
    """One module's host-offload analysis as ``offload --json`` (and ``check``'s ``offload``) shows
    it: HostOffloader's result and the fixes, the provenance, the StableHLO companion read with it
    (its JSON: ``stablehlo``), where the memory kinds came from, and ``--confirm``'s verdict."""

    result: HostOffloadResult
    fixes: tuple[FixSuggestion, ...]
    provenance: Provenance
    stablehlo: dict[str, Any] | None
    """The companion read with the module (``Options.companion_json``), or None."""
    memory_kinds: dict[str, Any] | None = None
    confirm: Confirmation | None = None
    module: HloModule | None = None
    """The module analysed (``offload``'s text draws it; its fix starts from it)."""
    text: str | None = None
    """The module as read (the graph chosen of a tensors file): what ``--fix`` edits."""
    companion: Companion | None = None
    """The StableHLO read with it (its text gives the memory kinds), or None."""
    undecidable: Finding | None = None
    """NO VERDICT: the warning that replaces the verdict when the memory kinds are not known."""

    @property
    def applies(self) -> bool:
        """False for a compiled module: XLA's HostOffloader already ran on it (no finding)."""
        return self.provenance.stage != "compiled"


@dataclass(frozen=True)
class ModuleDetails:
    """An HLO module ``check`` parsed: its summary and provenance, and one of three states:
    ``compiled`` (XLA already ran HostOffloader on it: a note, no verdict), ``undecidable`` (the
    text does not give the memory kinds: NO VERDICT, one warning) or ``analysed`` (``offload``)."""

    state: str
    """``compiled``, ``undecidable`` or ``analysed``."""
    summary: dict[str, Any]
    provenance: Provenance
    count: int
    """The entry's ``findings``: E1200s, later failures and layout warnings (1 for a rejection by
    the real compiler that nothing predicted; 1 for NO VERDICT)."""
    note: str | None = None
    memory_kinds: dict[str, Any] | None = None
    offload: OffloadDetails | None = None
    graph: dict[str, Any] | None = None
    """Which graph of a PyTorch/XLA tensors file, and where its step synced."""


@dataclass(frozen=True)
class TriagedModule:
    """An HLO module no analysis applies to, told from its bytes and never parsed; ``provenance``
    only for a CPU lowering or compile, whose lack of annotations says nothing of the TPU program."""

    module: str
    compiled: bool
    note: str
    provenance: Provenance | None = None
    graph: dict[str, Any] | None = None


@dataclass(frozen=True)
class ModuleSummary:
    """``hlo``: what a module holds at a glance (:func:`xladoctor.triage.hlo_summary.summarize`,
    with its StableHLO companion's memory kinds and the companion itself under ``stablehlo``)."""

    summary: dict[str, Any]


@dataclass(frozen=True)
class ComparedInputs:
    """``inputs``: the comparison of an executable's parameters with the buffers supplied, and the
    expected side's module when it is HLO (the findings' lines name its instructions)."""

    check: InputCheck
    module: HloModule | None = None


def offload_of(report: Report) -> OffloadDetails:
    """``offload``'s details of ``report`` (what its route, ``route.hlo_text.analyse_file``, attached)."""
    details = report.details
    if not isinstance(details, OffloadDetails):
        raise TypeError(f"{report.command}: not the Report of an analysed module")
    return details
