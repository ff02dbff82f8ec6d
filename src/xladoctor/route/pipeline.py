"""One pipeline for every route: read -> sniff -> parse -> analyse -> findings.

``check``, ``offload``, ``explain``, ``inputs`` and ``xladoctor.jax`` call these steps for their
findings, so the same input gives the same findings whichever way it came in: ``check`` is the
composition of what the single-purpose commands run, with the same options.  Commands keep what
is theirs (argument parsing, ``--fix`` output, text rendering, exit codes); renderers get the
documents built here.  Layering: above the analyses (offload, inputs, catalogue), the findings
model and the renderers' inputs; below ``commands/`` (nothing here imports a command).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..base.collector import paused
from ..base.labels import label
from ..findings import Finding, Report
from .options import Options

if TYPE_CHECKING:
    from ..catalogue.scanner import LogMatch
    from ..inputs.compare import InputCheck
    from ..ir.module import HloModule
    from ..ir.sizes import DimensionPadding
    from ..offload.fixes import FixSuggestion
    from ..offload.result import HostOffloadResult
    from ..triage.provenance import Provenance


@dataclass
class ModuleCheck:
    """One module through the host-offload steps: analysis, fixes, provenance, and (``--confirm``)
    the real compiler's verdict, which the caller sets before asking for findings."""

    source: str | None
    module: HloModule
    result: HostOffloadResult
    fixes: list[FixSuggestion]
    provenance: Provenance
    options: Options = field(default_factory=Options)
    confirm: dict[str, Any] | None = None
    text: str | None = None
    """The module as written, so each E1200 fix carries its edits of that text."""
    _findings: dict[tuple[str, int], tuple[Any, tuple[Finding, ...]]] = field(default_factory=dict, init=False,
                                                                              repr=False, compare=False)
    undecidable: Finding | None = None
    """The warning that replaces the verdict when the text does not say which memory the entry's
    values are in and no StableHLO gives it (``check``'s NO VERDICT, the same in ``offload``)."""
    memory_kinds: dict[str, Any] | None = None
    """Where the memory kinds came from (``check --json``'s ``memory_kinds``)."""

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
    A function, not a constant, so importing the pipeline reads no label file."""
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
    result.failures.extend(replace(f, first=first and i == 0) for i, f in enumerate(failures))
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


def offload_document(mc: ModuleCheck, lang: str = "en") -> dict[str, Any]:
    """The ``offload --json`` document body (also ``check``'s per-module ``offload``)."""
    from ..offload.report import result_json

    doc = result_json(mc.result, mc.fixes)
    if lang != "en":  # xladoctor's own sentences in the reader's language (XLA's stay as XLA wrote them),
        # here, where the language is known: a document from a worker process reaches the renderers as JSON
        from ..base.labels import in_lang

        doc["warnings"] = [in_lang(w, lang) for w in doc["warnings"]]
        doc["failures"] = [{**f, "message": in_lang(f["message"], lang)} for f in doc["failures"]]
        doc["dropped_offloads"] = [{**d, "reason": in_lang(d["reason"], lang)} for d in doc["dropped_offloads"]]
    doc["provenance"] = mc.provenance.to_json()
    doc["stablehlo"] = mc.options.companion_json()
    if mc.memory_kinds is not None:
        doc["memory_kinds"] = mc.memory_kinds
    if mc.confirm is not None:
        from ..oracle.confirm import confirm_in_lang

        doc["confirm"] = confirm_in_lang(mc.confirm, lang)
    from ..findings.wire import typed

    doc["diagnostics"] = typed(mc.report("offload", lang))
    if mc.result.errors:
        _type_analysis_records(doc, mc, lang)
    return doc


def _type_analysis_records(doc: dict[str, Any], mc: ModuleCheck, lang: str) -> None:
    """The module's E1200 records typed for the page, as findings/records.py types them when a
    document is read back, so no renderer reads a record's JSON: each with XLA's trace as hops and
    its finding (the diagnostics' own for the same output; for a compiled module, which has none
    since XLA already ran the pass, the finding it would be, without a file to fix)."""
    from ..findings.from_offload import mismatch_finding
    from ..findings.model import FindingKind, Hop
    from ..findings.serialise import thaw_json
    from ..findings.wire import Record

    by_index = {tuple(f.output_index): f for f in mc.fixes}
    reported = {tuple(thaw_json(f.fields.get("output_index")) or ()): f for f in reversed(doc["diagnostics"].report.findings)
                if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH}
    records = []
    for err, e in zip(doc["errors"], mc.result.errors):
        finding = reported.get(tuple(e.output_index)) or mismatch_finding(
            e, mc.result, by_index.get(tuple(e.output_index)), None, None, None, lang)
        records.append(Record(err, finding, tuple(Hop(h.instruction, tuple(h.shape_index)) for h in e.trace)))
    doc["error"] = next((r for r in records if doc["error"] is not None and dict(r) == doc["error"]), doc["error"])
    doc["errors"] = records


def log_findings(findings: Iterable[LogMatch], source: str | None, lang: str = "en") -> tuple[Finding, ...]:
    """Findings step for a log scanned by the catalogue scanner."""
    from ..findings.from_log import log_findings as adapt

    return adapt(findings, source, lang)


def inputs_findings(check: InputCheck, source: str | None, module: HloModule | None = None,
                    lang: str = "en") -> tuple[Finding, ...]:
    from ..findings.from_inputs import inputs_findings as adapt

    return adapt(check, source, module, lang)


def diagnostics(command: str, inputs: Sequence[str], findings: Iterable[Finding], lang: str = "en",
                input_errors: Sequence[str] = ()) -> dict[str, Any]:
    """The ``diagnostics`` key of every command document: one serialiser for all of them; the
    object carries the typed report too, for the renderers in this process (findings/wire.py)."""
    from ..findings.wire import typed

    return typed(Report(command, tuple(inputs), tuple(findings), lang, tuple(input_errors)))


def check_diagnostics(files: Sequence[Mapping[str, Any]], lang: str = "en") -> dict[str, Any]:
    """``check``'s ``diagnostics``: every file's findings in walk order, each located in its file.

    The per-file documents already hold their findings, serialised and typed (the ``offload`` or
    ``explain`` document this process built, or a worker's, typed where it was read back), so both
    forms are concatenated, not recomputed.
    """
    from ..findings.wire import Diagnostics, findings_of

    findings: list[Any] = []
    aligned: list[Finding | None] = []
    for f in files:
        inner = (f if f.get("verdict") == "undecidable" else f.get("offload")) if f.get("kind") == "hlo" \
            else f.get("explain") if f.get("kind") == "log" else None
        if inner and "diagnostics" in inner:
            written = inner["diagnostics"]["findings"]
            got = findings_of(inner["diagnostics"])
            findings.extend(written)
            aligned.extend(got if len(got) == len(written) else [None] * len(written))
    doc = diagnostics("check", [str(f["path"]) for f in files if f.get("kind") not in ("skipped",)], (), lang,
                      [str(f["error"]) for f in files if f.get("kind") == "error"])
    assert isinstance(doc, Diagnostics)
    report = replace(doc.report, findings=tuple(x for x in aligned if x is not None))
    return Diagnostics({**doc, "findings": findings}, report, tuple(aligned))


def _padding_json(rows: Iterable[DimensionPadding]) -> list[dict[str, Any]]:
    return [{"dim": p.dim, "size": p.size, "padded_size": p.padded_size, "tile_entry": p.tile_entry,
             "physical_position": p.physical_position, "combined": p.combined} for p in rows]


def inputs_report(check: InputCheck, source: str | None = None, module: HloModule | None = None,
                  lang: str = "en") -> Report:
    """One comparison's findings as the one report type (its exit code is the command's)."""
    return Report("inputs", (source,) if source else (), inputs_findings(check, source, module, lang), lang)


def inputs_document(check: InputCheck, source: str | None = None, module: HloModule | None = None,
                    lang: str = "en", report: Report | None = None) -> dict[str, Any]:
    """The ``inputs`` JSON document body (see docs/json.md); ``source``/``module`` name and hold the
    expected side, for the findings' locations; ``lang``: of its sentences (summary, padding, fixes,
    notes) and of the diagnostics' titles and fix texts, as the text report and the page read them."""
    from ..base.labels import in_lang
    from ..findings.wire import typed
    from ..inputs.explanation import fixes, padding_phrase, summary

    mismatches = []
    for m in check.mismatches:
        mismatches.append({
            "index": m.index,
            "supplied_index": m.supplied.index,
            "name": m.expected.name,
            "supplied_name": m.supplied.name,
            "instruction": m.expected.instruction,
            "kind": m.kind,
            "expected": {"shape": str(m.expected.shape), "logical_bytes": m.expected_logical_bytes,
                         "physical_bytes": m.expected_physical_bytes, "jax_layout": m.expected_jax_layout,
                         "padding": _padding_json(m.expected_padding),
                         "padding_text": padding_phrase(m.expected_padding, m.expected.shape, lang)},
            "supplied": {"shape": str(m.supplied.shape), "logical_bytes": m.supplied_logical_bytes,
                         "physical_bytes": m.supplied_physical_bytes, "actual_bytes": m.supplied.actual_bytes,
                         "jax_layout": m.supplied_jax_layout, "padding": _padding_json(m.supplied_padding),
                         "padding_text": padding_phrase(m.supplied_padding, m.supplied.shape, lang)},
            "differences": [{"attribute": d.attribute, "expected": d.expected, "supplied": d.supplied}
                            for d in m.differences],
            "expansion": m.expansion,
            "runtimes": {v.runtime: {"accepts": v.accepts, "compares": in_lang(v.compares, lang),
                                     "expected": v.expected_value, "supplied": v.supplied_value}
                         for v in m.verdicts},
            "summary": summary(m, lang),
            "notes": [in_lang(n, lang) for n in m.notes],
            "hidden_layout_candidates": list(m.hidden_layout_candidates),
            "fixes": [{"kind": f.kind, "text": f.text, "code": f.code} for f in fixes(m, lang)],
        })
    return {"command": "inputs", "executable": check.executable, "ok": check.ok,
            "expected_count": check.expected_count, "supplied_count": check.supplied_count,
            "pairing": check.pairing, "per_tuple_element": check.per_tuple_element,
            "missing": check.missing, "extra": check.extra,
            "mismatches": mismatches, "messages": check.messages,
            "diagnostics": typed(report or inputs_report(check, source, module, lang))}
