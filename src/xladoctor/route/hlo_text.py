"""The route of an HLO module's text, with or without its StableHLO companion.

From the bytes to the Report ``check`` draws its entry from (:func:`route_stream`: triaged from its bytes,
decoded, parsed, paired with its companion by :mod:`xladoctor.syntax.companion`, its memory kinds
decided (:mod:`.memory_kinds`), analysed (:mod:`.module_analysis`), judged by the real compiler
with ``--confirm``), and the same steps for ``offload`` (:func:`analyse_file`) and ``hlo``
(:func:`summary_of`), so one module gives the same findings by every command.  A PyTorch/XLA
graph goes through here too, as the module it holds (:mod:`.tensors`).
"""

from __future__ import annotations

from ..base.errors import located
from ..base.files import decode_text
from ..findings.model import Report
from .options import Options

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from ..ir.module import HloModule
    from ..syntax.companion import Companion
    from ..triage.provenance import Provenance
    from .module_analysis import ModuleCheck


def route_stream(f: BinaryIO, head: bytes, source: str, opts: Options, stablehlo: str | None = None) -> Report:
    """``check``'s Report of an HLO module read from ``f`` (``head``: its first bytes, already read):
    read whole into one buffer and triaged from its bytes before any decoding
    (:mod:`xladoctor.triage.hlo_triage`); a module no analysis applies to is neither decoded nor parsed."""
    data = read_rest(f, head, source)
    from ..triage.provenance import is_compiled

    compiled = is_compiled(data, source)
    if not opts.full and stablehlo is None:  # triage the bytes: a module no analysis applies to is neither decoded nor parsed
        from ..triage.hlo_triage import triage

        t = triage(data, compiled)
        if not t.analyse and not (not compiled and _kindless_jax(head, source)):
            return triaged(source, t.module_name, compiled, _cpu_provenance(head, source), opts.lang)
    text = decode_text(bytes(data) if isinstance(data, bytearray) else data, source)
    del data
    if text.startswith("\ufeff"):  # a BOM is not HLO; sniffing skipped it, so does the parse
        text = text[1:]
    return check_hlo(text, source, opts, stablehlo)


def read_rest(f: BinaryIO, head: bytes, source: str) -> bytearray:
    """The whole input, bounded (:func:`xladoctor.base.files.read_bounded`): one buffer sized from fstat
    for a regular file, a refusal past the limit for a stream (stdin, a FIFO, a decompressed file)."""
    from ..base.files import read_bounded

    return read_bounded(f, source, head=head)


def _kindless_jax(head: bytes, source: str) -> bool:
    """A JAX lowering whose memory kinds the text does not give is parsed even without offload
    tokens: it gets ``undecidable``, not "no annotation" (:mod:`.memory_kinds`)."""
    from ..syntax.module_sniff import hlo_header
    from .memory_kinds import is_xla_dump, kindless_jax_header

    return not is_xla_dump(source) and kindless_jax_header(hlo_header(head.decode("utf-8", "replace")) or "")


def _cpu_provenance(head: bytes, source: str) -> Provenance | None:
    """For a module with no host-offload annotation that XLA lowered or compiled for CPU (its dump
    name, the files beside it, its first bytes): jax's CPU lowering drops those annotations, so
    "nothing to analyse" says nothing of the TPU/GPU program, and the entry says so."""
    from ..triage.provenance import detect

    prov = detect(head.decode("utf-8", "replace"), source if source != "<stdin>" else None)
    # PyTorch/XLA keeps its placement calls on CPU: the note is about jax's lowering only
    jax_cpu = prov.platform == "cpu" and not prov.faithful_for_accelerator and prov.frontend is None
    return prov if jax_cpu else None


def check_hlo(text: str, source: str, options: Options | None = None,
              stablehlo_path: str | None = None) -> Report:
    """Check one module; ``stablehlo_path`` names the same program's StableHLO (``--stablehlo``,
    or the ``NAME.mlir``/``NAME.stablehlo`` beside ``NAME.hlo``), which gives the memory kinds;
    the findings' titles and fix texts are in ``options.lang`` (``check --lang``)."""
    from ..syntax.companion import resolve
    from .module_analysis import parse_hlo

    module = parse_hlo(text, source)
    # the resolver every command uses: the file named, else the one beside, and only if it is this program's
    companion = resolve(module, None if source == "<stdin>" else source, stablehlo_path)
    with located(text, source):
        options = (options or Options()).with_companion(companion.path if companion else None,
                                                        companion.found if companion else None)
        return _check_module(module, text, source, options, companion.text if companion else None)


def _check_module(module: HloModule, text: str, source: str, options: Options,
                  stablehlo: str | None = None) -> Report:
    """The ``offload`` command's steps (:mod:`.module_analysis`) on one module, after its summary:
    the module's Report, its :class:`~xladoctor.findings.details.ModuleDetails` what the entry shows."""
    from ..findings.details import ModuleDetails
    from ..triage.hlo_summary import summarize
    from ..triage.provenance import detect as detect_provenance
    from .memory_kinds import memory_kinds_of
    from .module_analysis import analyse_module, compiled_note

    origin = detect_provenance(text, None if source == "<stdin>" else source)
    summary = summarize(module)
    lang = options.lang
    if origin.stage == "compiled":
        return Report("check", (source,), (), lang, details=ModuleDetails("compiled", summary, origin, 0, compiled_note()))
    kinds = memory_kinds_of(module, options.stablehlo_path, source)
    if not kinds.known:
        # No verdict: the text does not say which memory the outputs and arguments are in.  One
        # finding (a warning, exit 1), never a confident ``ok`` or E1200; ``--confirm`` is not run
        # (compiling the same kind-less text would only "confirm" the guess).
        note, finding = undecided(kinds, source, lang)
        return Report("check", (source,), (finding,), lang,
                      details=ModuleDetails("undecidable", summary, origin, 1, note, kinds.to_json()))
    # With --confirm, the prediction is for the confirming compiler (XLA:GPU for a GPU --topology).
    options = options.for_platform()
    mc = analyse_module(module, text, source, options, stablehlo, provenance=origin)
    result = mc.result
    # the parser's layout warnings are findings of the document too (E0002): counted, so the text's
    # tally and its quiet line agree with the diagnostics and the exit code
    count = len(result.errors) + len(result.failures) + len(module.layout_warnings)
    if options.confirm_topology is not None:
        from ..oracle.confirm import confirm, is_error

        mc.confirm = confirm(text, module, result, options.confirm_topology, stablehlo, options.platform,
                             run=options.confirm_run is not None, seed=options.confirm_run or 0)
        if not count and is_error(mc.confirm):
            count = 1  # the real compiler rejects what we did not predict
    # The StableHLO beside an as_text("hlo") module can show a CPU lowering (the analysis adds
    # that to the provenance): the entry carries it, and with it the note (file or folder alike).
    return Report("check", (source,), mc.findings(lang), lang,
                  details=ModuleDetails("analysed", summary, mc.provenance, count, None, kinds.to_json(),
                                        mc.details()))


def undecided(kinds: Any, source: str, lang: str = "en") -> tuple[str, Any]:
    """The NO VERDICT note and its finding (``check`` and ``offload`` alike): an E1200 that cannot
    be ruled out, severity ``warning``, ``fields.undecidable`` true; the hint names the outputs
    the verdict hangs on and how to give the memory kinds (the StableHLO beside it, --stablehlo)."""
    from ..base.escape import escape_field
    from ..base.labels import glossary, label
    from ..base.labels.glossary import count
    from ..findings.from_offload import filed_entry
    from ..findings.model import (
        Finding,
        FindingKind,
        Location,
        Origin,
        Severity,
    )
    from ..ir.shape import format_shape_index
    from ..offload.result import E1200_CODE, E1200_NAME

    # each by the one name an output has (glossary.output): a lone ``{}`` read as "no outputs"
    outputs = ", ".join(glossary.output(format_shape_index(tuple(i)), lang) for i in kinds.outputs) or "-"
    stem = source.rsplit(".", 1)[0] if "." in source.rsplit("/", 1)[-1] else source
    key = "check.kinds_unknown" if kinds.annotations else "check.kinds_unknown_arguments"
    # the stem is pasted into a line of Python: every control visible, so a name cannot forge a line
    # in the check's language, as its diagnostics (a log's notes are in the explain document's lang)
    note = label(key, lang, outputs=outputs, arguments=count(kinds.arguments, "argument", lang),
                 stem=escape_field(stem))
    finding = Finding(E1200_CODE, E1200_NAME, FindingKind.OFFLOAD_OUTPUT_MISMATCH, Origin.PREDICTED, Severity.WARNING,
                      filed_entry(E1200_CODE).describe(lang).title, note, Location(source, 1, 1),
                      fields={"undecidable": True, "memory_kinds": kinds.to_json()})
    return note, finding


def triaged(source: str, name: str, compiled: bool, cpu: Provenance | None = None, lang: str = "en",
            graph: dict[str, Any] | None = None) -> Report:
    """The Report of a module no analysis applies to (no finding); ``cpu``: it is a CPU lowering or
    compile, whose lack of annotations says nothing of the TPU/GPU program (``_cpu_provenance``):
    said in the note, and its provenance kept for the report's one line about such modules."""
    from ..base.labels import label
    from ..findings.details import TriagedModule
    from .module_analysis import compiled_note

    note = compiled_note() if compiled else (
        "no host-offload annotation (MoveToHost/MoveToDevice, annotate_device_placement, S(5), host compute): "
        "no E1200 is possible, so the module was not parsed (--full parses it)")
    if cpu is not None:
        key = "status.cpu_triaged_compiled" if cpu.stage == "compiled" else "status.cpu_triaged_lowered"
        note = f"{note}; " + label(key, lang, evidence=cpu.evidence[0])
    return Report("check", (source,), (), lang, details=TriagedModule(name, compiled, note, cpu, graph))


def analyse_file(path: str, options: Options, stablehlo_path: str | None = None, graph: int | None = None,
                 editing: bool = False, seed: int = 0) -> Report:
    """``offload``'s route of one file: read (``-``: stdin), the graph chosen of a tensors file
    (``editing``: the file is to be fixed in place), parsed, paired with its StableHLO (the
    resolver ``check`` uses: the file ``stablehlo_path`` names, else ``NAME.mlir`` beside, if it is
    this program's), analysed; a module whose memory kinds the text does not give gets no verdict
    (:func:`mark_undecidable`), and no compile with ``--confirm`` (``options.confirm_topology``).
    The Report's details (:class:`~xladoctor.findings.details.OffloadDetails`) hold the module, the
    text as read and its companion, which the text view draws and ``--fix`` starts from."""
    from ..base.files import read_path
    from ..syntax.companion import resolve
    from ..syntax.tensors_file import select_graph
    from .module_analysis import analyse_module, parse_hlo

    data, source = read_path(path)
    text = decode_text(data, source)
    del data
    text = select_graph(text, source, graph, editing=editing)[0]
    named = source
    if not editing and graph is None:  # a lone StableHLO module: its HLO, by jaxlib (route/stablehlo.py)
        from .stablehlo import as_hlo, looks_like_stablehlo

        if looks_like_stablehlo(text[:4096].lstrip("\ufeff")):
            from ..oracle.stablehlo_hlo import hlo_text_of

            text, source = hlo_text_of(text.lstrip("\ufeff"), named), as_hlo(named)
            stablehlo_path = stablehlo_path or (None if path == "-" else named)
    module = parse_hlo(text, source)
    companion = resolve(module, None if path == "-" else source, stablehlo_path)
    stablehlo = companion.text if companion else None
    options = options.with_companion(companion.path if companion else None,
                                     companion.found if companion else None).for_platform()
    with located(text, source):
        mc = analyse_module(module, text, source, options, stablehlo)
        mark_undecidable(mc, source, options.lang)
    # as check: no compile of a kind-less text, which would only "confirm" the device-memory guess
    if options.confirm_topology is not None and mc.undecidable is None:
        from ..oracle.confirm import confirm

        mc.confirm = confirm(text, module, mc.result, options.confirm_topology, stablehlo, options.platform,
                             options.confirm_run is not None, seed)
    # a converted module is reported as <NAME.mlir as HLO>: its lines are the HLO's, not the file's
    return offload_report(mc, text, companion)


def offload_report(mc: ModuleCheck, text: str, companion: Companion | None) -> Report:
    """``offload``'s Report of an analysed module: its findings in the options' language, and the
    analysis with the module, its text and companion as its details."""
    lang = mc.options.lang
    details = mc.details().replace(module=mc.module, text=text, companion=companion, undecidable=mc.undecidable)
    return Report("offload", (mc.source or "",), mc.findings(lang), lang, details=details)


def companion_path(path: str, stablehlo_path: str | None = None) -> str | None:
    """The StableHLO file read with the module ``path``: the one ``--stablehlo`` names, else
    ``NAME.mlir``/``NAME.stablehlo`` beside it (an input too: no output may be written over it)."""
    from ..syntax.companion import beside

    return stablehlo_path or beside(path)


def mark_undecidable(mc: ModuleCheck, source: str, lang: str) -> None:
    """As ``check``: a JAX lowering whose text does not give the memory kinds, read without its
    StableHLO, gets no verdict (the same warning), so the two commands agree on every file."""
    from .memory_kinds import memory_kinds_of

    kinds = memory_kinds_of(mc.module, mc.options.stablehlo_path, source)
    mc.memory_kinds = kinds.to_json()
    if not kinds.known:
        mc.undecidable = undecided(kinds, source, lang)[1]


def result_names(module: Any, signature: Any) -> list[dict[str, Any]]:
    """Each result leaf's ``jax.result_info`` (``result[1]``) by its ShapeIndex in the entry's result:
    ``hlo`` showed the parameters' Python names and none for the outputs the findings name so.
    JAX's results are flat: result ``i`` is the tuple's element ``{i}``, a lone one the whole ``{}``."""
    ecl = module.entry_computation_layout
    is_tuple = ecl is not None and ecl.result.is_tuple
    return [{"index": [r.index] if is_tuple else [], "name": r.name}
            for r in signature.results if r.name and (is_tuple or r.index == 0)]


def summary_of(path: str, stablehlo_path: str | None = None, graph: int | None = None) -> Report:
    """``hlo``'s route: the module's summary and layout warnings; with the same program's StableHLO
    beside it (or named), its memory kinds go into the entry layout shown, so ``hlo`` shows the
    host values the verdicts use (the resolver ``offload`` and ``check`` use).  The Report's findings
    are the layout warnings (in English), its details the summary
    (:class:`~xladoctor.findings.details.ModuleSummary`), whose instruction lists are
    :class:`~xladoctor.base.json_plain.Streamed` (read from the module when written)."""
    from ..base.files import read_path
    from ..findings.from_layout import layout_findings
    from ..syntax.companion import resolve
    from ..syntax.hlo_parser import parse_module
    from ..syntax.stablehlo_main import apply_memory_kinds, read_main_signature
    from ..syntax.tensors_file import select_graph
    from ..triage.hlo_summary import summarize

    data, source = read_path(path)
    text = decode_text(data, source)
    del data  # the bytes are not held through the parse (as analyse_file): ~1x the text at the peak
    text = select_graph(text, source, graph)[0]
    module = parse_module(text, source)
    companion = resolve(module, None if path == "-" else source, stablehlo_path)
    signature = read_main_signature(companion.text) if companion is not None else None
    if signature is not None:
        apply_memory_kinds(module, signature)
    with located(text, source):  # its instruction entries made only as --json writes them (issue 36 item 3)
        summary = summarize(module, streamed=True)
    summary["stablehlo"] = companion.to_json() if companion is not None else None
    if signature is not None:
        names = result_names(module, signature)
        if names:
            summary["entry_computation_layout"]["result"]["names"] = names
    from ..findings.details import ModuleSummary

    return Report("hlo", (source,), layout_findings(module, source), details=ModuleSummary(summary))
