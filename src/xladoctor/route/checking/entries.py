"""The ``check --json`` entry of each kind of input (docs/json.md#check): an analysed HLO
module, a module triaged without parsing, a scanned log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...base.files import located
from ...oracle.confirm import confirm, is_error
from ..options import Options
from ..pipeline import compiled_note

if TYPE_CHECKING:
    from ...catalogue.logscan import LogScan
    from ...ir.module import HloModule
    from ...triage.provenance import Provenance


def check_hlo(text: str, source: str, options: Options | None = None,
              stablehlo_path: str | None = None) -> dict[str, Any]:
    """Check one module; ``stablehlo_path`` names the same program's StableHLO (``--stablehlo``,
    or the ``NAME.mlir``/``NAME.stablehlo`` beside ``NAME.hlo``), which gives the memory kinds;
    the findings' titles and fix texts are in ``options.lang`` (``check --lang``)."""
    from ...syntax.companion import resolve
    from ..pipeline import parse_hlo

    module = parse_hlo(text, source)
    # the resolver every command uses: the file named, else the one beside, and only if it is this program's
    companion = resolve(module, None if source == "<stdin>" else source, stablehlo_path)
    with located(text, source):
        options = (options or Options()).with_companion(companion.path if companion else None,
                                                        companion.found if companion else None)
        return _check_module(module, text, source, options, companion.text if companion else None)


def _check_module(module: HloModule, text: str, source: str, options: Options,
                  stablehlo: str | None = None) -> dict[str, Any]:
    """The ``offload`` command's steps (the pipeline's) on one module, after its summary."""
    from ...triage.hlo_summary import summarize
    from ...triage.provenance import detect as detect_provenance
    from ..pipeline import analyse_module, offload_document
    from .memory_kinds import memory_kinds_of

    origin = detect_provenance(text, None if source == "<stdin>" else source)
    entry: dict[str, Any] = {"path": source, "kind": "hlo", "hlo": summarize(module), "provenance": origin.to_json()}
    if origin.stage == "compiled":
        entry["note"] = compiled_note()
        entry["findings"] = 0
        return entry
    lang = options.lang
    kinds = memory_kinds_of(module, options.stablehlo_path, source)
    entry["memory_kinds"] = kinds.to_json()
    if not kinds.known:
        return _undecidable(entry, kinds, source, lang)
    # With --confirm, the prediction is for the confirming compiler (XLA:GPU for a GPU --topology).
    options = options.for_platform()
    mc = analyse_module(module, text, source, options, stablehlo, provenance=origin)
    # The StableHLO beside an as_text("hlo") module can show a CPU lowering (the analysis adds
    # that to the provenance): the entry carries it, and with it the note (file or folder alike).
    entry["provenance"] = mc.provenance.to_json()
    result = mc.result
    # the parser's layout warnings are findings of the document too (E0002): counted, so the text's
    # tally and its quiet line agree with the diagnostics and the exit code
    entry["findings"] = len(result.errors) + len(result.failures) + len(module.layout_warnings)
    if options.confirm_topology is not None:
        entry["confirm"] = mc.confirm = confirm(text, module, result, options.confirm_topology, stablehlo,
                                                 options.platform, run=options.confirm_run is not None,
                                                 seed=options.confirm_run or 0)
        if not entry["findings"] and is_error(mc.confirm):
            entry["findings"] = 1  # the real compiler rejects what we did not predict
    entry["offload"] = offload_document(mc, lang)
    if mc.confirm is not None:
        entry["confirm"] = entry["offload"]["confirm"]  # the same object, in the check's language
    return entry


def _undecidable(entry: dict[str, Any], kinds: Any, source: str, lang: str = "en") -> dict[str, Any]:
    """No verdict: the text does not say which memory the outputs and arguments are in.  One
    finding (a warning, exit 1), never a confident ``ok`` or E1200; ``--confirm`` is not run
    (compiling the same kind-less text would only "confirm" the guess)."""
    from ..pipeline import diagnostics

    note, finding = undecided(kinds, source, lang)
    entry["verdict"] = "undecidable"
    entry["note"] = note
    entry["findings"] = 1
    entry["diagnostics"] = diagnostics("check", [source], (finding,), lang)
    return entry


def undecided(kinds: Any, source: str, lang: str = "en") -> tuple[str, Any]:
    """The NO VERDICT note and its finding (``check`` and ``offload`` alike): an E1200 that cannot
    be ruled out, severity ``warning``, ``fields.undecidable`` true; the hint names the outputs
    the verdict hangs on and how to give the memory kinds (the StableHLO beside it, --stablehlo)."""
    from ...base.escape import escape_field
    from ...base.labels import label
    from ...base.labels.glossary import count
    from ...catalogue.loader import load_catalogue
    from ...findings.model import (
        Finding,
        FindingKind,
        Location,
        Origin,
        Severity,
    )
    from ...offload.result import E1200_CODE, E1200_NAME

    outputs = ", ".join("{" + ",".join(map(str, i)) + "}" for i in kinds.outputs) or "-"
    stem = source.rsplit(".", 1)[0] if "." in source.rsplit("/", 1)[-1] else source
    key = "check.kinds_unknown" if kinds.annotations else "check.kinds_unknown_arguments"
    # the stem is pasted into a line of Python: every control visible, so a name cannot forge a line
    # in the check's language, as its diagnostics (a log's notes are in the explain document's lang)
    note = label(key, lang, outputs=outputs, arguments=count(kinds.arguments, "argument", lang),
                 stem=escape_field(stem))
    finding = Finding(E1200_CODE, E1200_NAME, FindingKind.OFFLOAD_OUTPUT_MISMATCH, Origin.PREDICTED, Severity.WARNING,
                      load_catalogue().entries[E1200_CODE].describe(lang).title, note, Location(source, 1, 1),
                      fields={"undecidable": True, "memory_kinds": kinds.to_json()})
    return note, finding


def triaged_entry(source: str, name: str, compiled: bool, cpu: Provenance | None = None,
                  lang: str = "en") -> dict[str, Any]:
    """A module no analysis applies to; ``cpu``: it is a CPU lowering or compile, whose lack of
    annotations says nothing of the TPU/GPU program (``stream._cpu_provenance``): said in the
    note, and its ``provenance`` kept for the report's one line about such modules."""
    from ...base.labels import label

    note = compiled_note() if compiled else (
        "no host-offload annotation (MoveToHost/MoveToDevice, annotate_device_placement, S(5), host compute): "
        "no E1200 is possible, so the module was not parsed (--full parses it)")
    entry: dict[str, Any] = {"path": source, "kind": "hlo", "module": name, "parsed": False, "compiled": compiled,
                             "note": note, "findings": 0}
    if cpu is not None:
        key = "status.cpu_triaged_compiled" if cpu.stage == "compiled" else "status.cpu_triaged_lowered"
        entry["note"] = f"{note}; " + label(key, lang, evidence=cpu.evidence[0])
        entry["provenance"] = cpu.to_json()
    return entry


def log_entry(scan: LogScan, lang: str) -> dict[str, Any]:
    from ...report.explain_json import scan_document

    return {"path": scan.source, "kind": "log",
            "explain": scan_document(scan.findings, scan.source, lang, scan.not_shown),
            "findings": len(scan.findings)}


def error_entry(path: str, error: str) -> dict[str, Any]:
    return {"path": path, "kind": "error", "error": error, "findings": 0}
