"""One HLO module analysed: HostOffloader as XLA runs it, the later failures, fixes, provenance.

The analysis step every HLO route shares: ``check`` (:mod:`.hlo_text`), ``offload``, ``explain
--hlo``'s neighbours and ``xladoctor.jax`` (:func:`analysis_of`, for an analysis it ran itself)
all make their :class:`ModuleCheck` here, so one module gives the same findings by every route.
Its JSON is drawn by ``report/offload_json.py`` from :meth:`ModuleCheck.details`.  Layering: above the analyses (offload,
triage, syntax) and the findings model; below the commands.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base.collector import paused
from ..base.labels import label
from ..findings import Finding, Report
from ..ir.record import MutableValue
from .options import Options

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..findings.details import OffloadDetails
    from ..ir.module import HloModule
    from ..offload.fixes import FixSuggestion
    from ..offload.result import HostOffloadResult
    from ..oracle.confirmation import Confirmation
    from ..triage.provenance import Provenance


class ModuleCheck(MutableValue):
    """One module through the host-offload steps: analysis, fixes, provenance, and (``--confirm``)
    the real compiler's verdict, which the caller sets before asking for findings.  Written out,
    not a generated class (:mod:`..ir.value`: start-up, issue 36): compared and printed by its
    fields as the dataclass was, the findings' cache left out."""

    _FIELDS = ("source", "module", "result", "fixes", "provenance", "options", "confirm", "text", "undecidable",
               "memory_kinds")

    source: str | None
    module: HloModule
    result: HostOffloadResult
    fixes: list[FixSuggestion]
    provenance: Provenance
    options: Options
    confirm: Confirmation | None
    """``--confirm``'s result (typed; its JSON is written once, in ``report/offload_json.py``)."""
    text: str | None
    """The module as written, so each E1200 fix carries its edits of that text."""
    _findings: dict[tuple[str, int], tuple[Any, tuple[Finding, ...]]]
    undecidable: Finding | None
    """The warning that replaces the verdict when the text does not say which memory the entry's
    values are in and no StableHLO gives it (``check``'s NO VERDICT, the same in ``offload``)."""
    memory_kinds: dict[str, Any] | None
    """Where the memory kinds came from (``check --json``'s ``memory_kinds``)."""

    def __init__(self, source: str | None, module: HloModule, result: HostOffloadResult, fixes: list[FixSuggestion],
                 provenance: Provenance, options: Options | None = None, confirm: Confirmation | None = None,
                 text: str | None = None, undecidable: Finding | None = None,
                 memory_kinds: dict[str, Any] | None = None) -> None:
        self.source = source
        self.module = module
        self.result = result
        self.fixes = fixes
        self.provenance = provenance
        self.options = Options() if options is None else options
        self.confirm = confirm
        self.text = text
        self._findings = {}
        self.undecidable = undecidable
        self.memory_kinds = memory_kinds

    @property
    def applies(self) -> bool:
        """False for a compiled (post-optimization) module: XLA's HostOffloader already ran on it,
        so what the analysis says about it is not what XLA does (``check`` skips such modules;
        ``offload`` still shows the analysis but reports no finding)."""
        return self.provenance.stage != "compiled"

    def findings(self, lang: str = "en") -> tuple[Finding, ...]:
        """The findings in ``lang``, made once per language and ``confirm`` verdict (``offload``
        asks for them for the document and again for its exit code; each E1200's fix edits cost)."""
        key = (lang, id(self.confirm))
        cached = self._findings.get(key)
        if cached is None or cached[0] is not self.confirm:
            cached = self._findings[key] = (self.confirm, self._make_findings(lang))
        return cached[1]

    def report(self, command: str, lang: str = "en") -> Report:
        """The module's findings as the one report type (its exit code is the command's)."""
        return Report(command, (self.source or "",), self.findings(lang), lang)

    def details(self) -> OffloadDetails:
        """The analysis as the views draw it (:func:`xladoctor.report.offload_json.offload_document`)."""
        from ..findings.details import OffloadDetails

        return OffloadDetails(self.result, tuple(self.fixes), self.provenance, self.options.companion_json(),
                              self.memory_kinds, self.confirm)

    def _make_findings(self, lang: str) -> tuple[Finding, ...]:
        from ..findings.from_layout import layout_findings

        # the layouts the parser read with the default layout come first, whatever the verdict
        return layout_findings(self.module, self.source, lang) + self._verdict_findings(lang)

    def _verdict_findings(self, lang: str) -> tuple[Finding, ...]:
        from ..findings.from_offload import confirm_finding, offload_findings

        if self.undecidable is not None and self.applies:
            return (self.undecidable,)
        if not self.applies:
            rejected = confirm_finding(self.confirm, self.source, lang)
            return (rejected,) if rejected is not None else ()
        return offload_findings(self.result, self.fixes, self.source, self.module, self.provenance, lang,
                                self.confirm, self.options.command_args(), self.text)


def compiled_note() -> str:
    """Why a compiled module gets no E1200 analysis (English: it is a note in the JSON documents).
    A function, not a constant, so importing this module reads no label file."""
    return label("status.compiled_module")


def parse_hlo(text: str, source: str) -> HloModule:
    """Parse step (HLO module text; ``source`` names it in error messages)."""
    from ..syntax.hlo_parser import parse_module

    return parse_module(text, source)  # with the collector paused (see parse_module)


def analyse_module(module: HloModule, text: str, source: str | None, options: Options | None = None,
                   stablehlo: str | None = None, provenance: Provenance | None = None) -> ModuleCheck:
    """Analyse step for an HLO module: HostOffloader as XLA runs it, fixes and provenance.

    ``stablehlo`` (the same program's StableHLO text) puts JAX's memory kinds into the entry
    layout and names the outputs, as ``offload --stablehlo`` does; ``provenance``, when the
    caller already detected it, is not detected again.
    """
    with paused():  # the IR allocated here is freed with the module (collector.py says why)
        return _analyse(module, text, source, options or Options(), stablehlo, provenance)


def _analyse(module: HloModule, text: str, source: str | None, options: Options,
             stablehlo: str | None, provenance: Provenance | None) -> ModuleCheck:
    from ..offload import analyze_host_offload
    from ..offload.fixes import suggest_fixes
    from ..triage.provenance import detect as detect_provenance

    names = None
    if stablehlo is not None:
        from ..syntax.stablehlo_main import apply_memory_kinds, read_main_signature

        signature = read_main_signature(stablehlo)
        apply_memory_kinds(module, signature)
        names = [r.name or "" for r in signature.results] or None
    later = unpinned_host_failures(module)
    result = analyze_host_offload(module, options.rule, disable_host_compute=options.disable_host_compute,
                                  platform=options.platform)
    if options.platform != "tpu":
        from ..offload.platform_checks import predict_for_platform

        result = predict_for_platform(module, result, options.platform)
    add_later_failures(result, later)
    if provenance is None:
        provenance = detect_provenance(text, None if source in (None, "<stdin>", "-") else source)
    fixes = suggest_fixes(module, result, names, provenance.frontend)  # advice in the frontend's terms
    if stablehlo is not None and provenance.platform is None:  # as_text("hlo") alone cannot tell (h22fixes)
        from ..triage.provenance import cpu_lowering_from_memory_kinds

        evidence = cpu_lowering_from_memory_kinds(module)
        if evidence is not None:
            provenance.platform, provenance.evidence = "cpu", [evidence, *provenance.evidence]
        elif result.errors:
            from ..triage.provenance import possibly_cpu_lowering

            evidence = possibly_cpu_lowering(module)
            if evidence is not None:
                provenance.possibly_cpu, provenance.evidence = True, [evidence, *provenance.evidence]
    return ModuleCheck(source, module, result, fixes, provenance, options, text=text)


UNPINNED_SPACE = 6
"""``unpinned_host`` in libtpu's entry layout (see :mod:`xladoctor.syntax.stablehlo_main`)."""
UNPINNED_OUTPUT_MESSAGE = "Unimplemented DMA from hbm to hbm."


def unpinned_host_failures(module: HloModule) -> list[Any]:
    """What libtpu 0.0.42.1 does with ``unpinned_host`` (``S(6)``) entry values, after HostOffloader
    accepted them (measured with the real compiler, v5e): an ``S(6)`` argument that anything
    computes on fails INTERNAL after optimisation ("Shape mismatch between parameter ... and its
    operand"), and an ``S(6)`` output fails FAILED_PRECONDITION ("Unimplemented DMA from hbm to
    hbm").  An ``S(6)`` argument returned as it is compiles, and then never runs: on a real v5e
    chip (tests/data/chip/) JAX refuses every call, since the array it places in ``unpinned_host``
    has no tiling and the executable wants the tiled layout (``Status.CALL_REFUSED``, after the
    compile failures; a scalar, whose compute compiles, is refused too).  Run on the module before
    the analysis edits it."""
    from ..offload.kinds import Status
    from ..offload.result import PassFailure

    ecl, entry = module.entry_computation_layout, module.entry
    if ecl is None or entry is None:
        return []
    out: list[PassFailure] = []
    root = entry.root_instruction()
    if any(leaf.memory_space == UNPINNED_SPACE for _, leaf in ecl.result.leaves()):
        out.append(PassFailure(Status.FAILED_PRECONDITION, UNPINNED_OUTPUT_MESSAGE, root.name))
    refused: list[PassFailure] = []
    for n, shape in enumerate(ecl.parameters):
        if n >= len(entry.parameters) or not any(leaf.memory_space == UNPINNED_SPACE for _, leaf in shape.leaves()):
            continue
        param = entry.parameter(n)
        scalar = all(not leaf.dimensions for _, leaf in shape.leaves())
        if _computed_on(param) and not scalar:  # measured on the chip: a scalar is refused at the call instead
            out.append(PassFailure(Status.INTERNAL, label("offload.later_unpinned_compute", n=n, name=param.name),
                                   param.name))
        else:
            refused.append(PassFailure(Status.CALL_REFUSED, label("offload.unpinned_argument_refused", n=n,
                                                                  name=param.name), param.name))
    return out + refused


_PASS_THROUGH = frozenset({"tuple", "get-tuple-element", "bitcast", "copy", "reshape"})
_PASS_THROUGH_CALLS = frozenset({"Sharding", "annotate_device_placement", "MoveToHost", "MoveToDevice"})
_FUSED_CONSTANTS = frozenset({"broadcast", "iota", "constant"})


def _computed_on(param: Any) -> bool:
    """Does an instruction fuse ``param`` with a broadcast constant (``x * 2.0``, ``x @ ones``)?

    Measured (libtpu 0.0.42.1, v5e, ``unpinned_host`` f32[8,128]): ``x * 2.0``, ``x + 1.0`` and
    ``x @ jnp.ones(...)`` fail, also after ``device_put(x, Space.Device)``, with XLA's "Shape
    mismatch between parameter number N and its operand in %broadcast_multiply_fusion"; ``tanh``,
    ``sin``, ``x * x``, ``sum``, ``reshape`` and returning it (to any memory kind) compile.  So
    the failing pattern is a loop fusion that takes the S(6) parameter and a fused broadcast;
    data movement (tuples, copies, sharding and placement annotations) passes through, dead
    instructions do not count."""
    seen, todo = {id(param)}, [param]
    while todo:
        x = todo.pop()
        for u in x.users:
            if id(u) in seen or (not u.users and u is not u.parent.root):
                continue
            seen.add(id(u))
            op = u.opcode.value
            target = u.custom_call_target or ""
            if op in _PASS_THROUGH or (op == "custom-call" and (target in _PASS_THROUGH_CALLS
                                                                or target.startswith("xla.sdy."))):
                todo.append(u)
            elif any(o is not x and o.opcode.value in _FUSED_CONSTANTS and id(o) not in seen for o in u.operands):
                return True
    return False


def add_later_failures(result: HostOffloadResult, failures: Sequence[Any]) -> None:
    """Failures that come after HostOffloader: the outcome when the pass itself succeeds."""
    from ..offload.kinds import FirstKind

    if not failures:
        return
    first = result.outcome == "ok"
    result.failures.extend(f.replace(first=first and i == 0) for i, f in enumerate(failures))
    if first:
        result._first_kind = FirstKind.FAILURE


def analysis_of(module: HloModule, result: HostOffloadResult, source: str | None,
                result_names: list[str] | None = None, provenance: Provenance | None = None) -> ModuleCheck:
    """A ModuleCheck for an analysis already run (``xladoctor.jax`` lowers and analyses itself).

    ``result_names`` are ``jax.result_info`` per output (``""`` where none), as ``offload
    --stablehlo`` reads them from @main, so the findings equal that command's on the same
    program's ``Lowered.as_text("hlo")`` and ``Lowered.as_text()``."""
    from ..offload.fixes import suggest_fixes
    from ..triage.provenance import Provenance

    origin = provenance or Provenance(None, "lowered")
    return ModuleCheck(source, module, result, suggest_fixes(module, result, result_names, origin.frontend), origin,
                       Options(rule=result.rule))
