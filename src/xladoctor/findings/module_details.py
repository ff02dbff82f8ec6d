"""The details of a module: ``offload``'s analysis, ``check``'s module states, ``hlo``'s summary
and ``inputs``' comparison (:mod:`.details`, which re-exports them; a log's are in
:mod:`.log_details`)."""

from __future__ import annotations

from ..ir.value import FrozenValue, fields_with

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..inputs.compare import InputCheck
    from ..ir.module import HloModule
    from ..offload.fixes import FixSuggestion
    from ..offload.result import HostOffloadResult
    from ..oracle.confirmation import Confirmation
    from ..syntax.companion import Companion
    from ..triage.provenance import Provenance
    from .model import Finding, Report


class _Details(FrozenValue):
    """A module's details: frozen values written out (:mod:`..ir.value`: each of these five as a
    dataclass cost ~0.5 ms of every ``offload`` and ``check`` run to make, issue 36), compared,
    hashed and printed as the frozen dataclasses they were; :meth:`replace` made in this layer
    (tests/test_route_layers.py), as ``dataclasses.replace``."""

    __slots__ = ()

    def replace(self: Any, **changes: Any) -> Any:
        """A copy with ``changes`` (field names), as ``dataclasses.replace``."""
        return self.__class__(**fields_with(self, changes))


class OffloadDetails(_Details):
    """One module's host-offload analysis as ``offload --json`` (and ``check``'s ``offload``) shows
    it: HostOffloader's result and the fixes, the provenance, the StableHLO companion read with it
    (its JSON: ``stablehlo``), where the memory kinds came from, and ``--confirm``'s verdict."""

    _FIELDS = ("result", "fixes", "provenance", "stablehlo", "memory_kinds", "confirm", "module", "text", "companion",
               "undecidable")

    result: HostOffloadResult
    fixes: tuple[FixSuggestion, ...]
    provenance: Provenance
    stablehlo: dict[str, Any] | None
    """The companion read with the module (``Options.companion_json``), or None."""
    memory_kinds: dict[str, Any] | None
    confirm: Confirmation | None
    module: HloModule | None
    """The module analysed (``offload``'s text draws it; its fix starts from it)."""
    text: str | None
    """The module as read (the graph chosen of a tensors file): what ``--fix`` edits."""
    companion: Companion | None
    """The StableHLO read with it (its text gives the memory kinds), or None."""
    undecidable: Finding | None
    """NO VERDICT: the warning that replaces the verdict when the memory kinds are not known."""

    def __init__(self, result: HostOffloadResult, fixes: tuple[FixSuggestion, ...], provenance: Provenance,
                 stablehlo: dict[str, Any] | None, memory_kinds: dict[str, Any] | None = None,
                 confirm: Confirmation | None = None, module: HloModule | None = None, text: str | None = None,
                 companion: Companion | None = None, undecidable: Finding | None = None) -> None:
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "fixes", fixes)
        object.__setattr__(self, "provenance", provenance)
        object.__setattr__(self, "stablehlo", stablehlo)
        object.__setattr__(self, "memory_kinds", memory_kinds)
        object.__setattr__(self, "confirm", confirm)
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "companion", companion)
        object.__setattr__(self, "undecidable", undecidable)

    @property
    def applies(self) -> bool:
        """False for a compiled module: XLA's HostOffloader already ran on it (no finding)."""
        return self.provenance.stage != "compiled"


class ModuleDetails(_Details):
    """An HLO module ``check`` parsed: its summary and provenance, and one of three states:
    ``compiled`` (XLA already ran HostOffloader on it: a note, no verdict), ``undecidable`` (the
    text does not give the memory kinds: NO VERDICT, one warning) or ``analysed`` (``offload``)."""

    _FIELDS = ("state", "summary", "provenance", "count", "note", "memory_kinds", "offload", "graph")

    state: str
    """``compiled``, ``undecidable`` or ``analysed``."""
    summary: dict[str, Any]
    provenance: Provenance
    count: int
    """The entry's ``findings``: E1200s, later failures and layout warnings (1 for a rejection by
    the real compiler that nothing predicted; 1 for NO VERDICT)."""
    note: str | None
    memory_kinds: dict[str, Any] | None
    offload: OffloadDetails | None
    graph: dict[str, Any] | None
    """Which graph of a PyTorch/XLA tensors file, and where its step synced."""

    def __init__(self, state: str, summary: dict[str, Any], provenance: Provenance, count: int,
                 note: str | None = None, memory_kinds: dict[str, Any] | None = None,
                 offload: OffloadDetails | None = None, graph: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "summary", summary)
        object.__setattr__(self, "provenance", provenance)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "memory_kinds", memory_kinds)
        object.__setattr__(self, "offload", offload)
        object.__setattr__(self, "graph", graph)


class TriagedModule(_Details):
    """An HLO module no analysis applies to, told from its bytes and never parsed; ``provenance``
    only for a CPU lowering or compile, whose lack of annotations says nothing of the TPU program."""

    _FIELDS = ("module", "compiled", "note", "provenance", "graph")

    module: str
    compiled: bool
    note: str
    provenance: Provenance | None
    graph: dict[str, Any] | None

    def __init__(self, module: str, compiled: bool, note: str, provenance: Provenance | None = None,
                 graph: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "compiled", compiled)
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "provenance", provenance)
        object.__setattr__(self, "graph", graph)


class ModuleSummary(_Details):
    """``hlo``: what a module holds at a glance (:func:`xladoctor.triage.hlo_summary.summarize`,
    with its StableHLO companion's memory kinds and the companion itself under ``stablehlo``)."""

    _FIELDS = ("summary",)

    summary: dict[str, Any]

    def __init__(self, summary: dict[str, Any]) -> None:
        object.__setattr__(self, "summary", summary)


class ComparedInputs(_Details):
    """``inputs``: the comparison of an executable's parameters with the buffers supplied, and the
    expected side's module when it is HLO (the findings' lines name its instructions)."""

    _FIELDS = ("check", "module")

    check: InputCheck
    module: HloModule | None

    def __init__(self, check: InputCheck, module: HloModule | None = None) -> None:
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "module", module)


def offload_of(report: Report) -> OffloadDetails:
    """``offload``'s details of ``report`` (what its route, ``route.hlo_text.analyse_file``, attached)."""
    details = report.details
    if not isinstance(details, OffloadDetails):
        raise TypeError(f"{report.command}: not the Report of an analysed module")
    return details
