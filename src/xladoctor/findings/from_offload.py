"""Host-offload analysis -> findings: one per offending output (E1200), one per other failure.

XLA stops at the first error; every offending output is still a finding (fixing the first
one only uncovers the next), marked ``fields["first"]`` for the one XLA reports.  The
location is the start instruction's line in the HLO text (what XLA names in "starting
from X"); the Python source is the first hop of the path whose metadata names one (the
MoveToHost's ``jax.device_put`` line, usually).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..base.labels import glossary, in_lang, label
from ..ir.frames import is_library
from ..ir.shape import format_shape_index
from ..offload.fixes import PYTORCH_XLA
from ..offload.result import E1200_CODE, E1200_NAME, HostOffloadResult, OutputMismatch, PassFailure, PathHop
from ..offload.rules import SHIPPED
from .model import Edit, Finding, FindingKind, Fix, FixKind, Hop, Location, Origin, Severity, SourceLocation

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..catalogue.model import Entry
    from ..ir.module import HloModule
    from ..offload.fixes import FixSuggestion
    from ..oracle.confirmation import Confirmation
    from ..triage.provenance import Provenance
    from .edits import FixEdits

# absl status of a failure of the pass -> the catalogue's generic code for it (a CHECK crash
# aborts the process: XLA's INTERNAL is the nearest code).
_STATUS_CODES = {"INVALID_ARGUMENT": "E0002", "UNIMPLEMENTED": "E0011", "INTERNAL": "E0012", "CHECK": "E0012",
                 "FAILED_PRECONDITION": "E0008", "NOT_FOUND": "E0004", "ValueError": "E01xx"}
_STDIN_NAMES = ("-", "<stdin>")


def _title(code: str, lang: str) -> str:
    return filed_entry(code).describe(lang).title


_FILED: dict[str, Entry] = {}


def filed_entry(code: str) -> Entry:
    """The catalogue's entry filed as ``code`` (``E1200``, ``E0012``: each a file of its own), read
    once per process and alone where the catalogue is not read yet (:func:`find_entry`): an
    ``offload`` run with a finding read and validated all 33 files for one title (~17 ms of a train
    step's whole process, issue 36)."""
    entry = _FILED.get(code)
    if entry is None:
        from ..catalogue.loader import find_entry  # a finding's or NO VERDICT's title: a clean run reads none

        found = find_entry(code)[0]
        if found is None or found.code != code:
            raise KeyError(code)
        entry = _FILED[code] = found
    return entry


def _place(module: HloModule | None, name: str | None) -> tuple[int | None, int | None, str | None]:
    """(line, column, computation) of the named instruction in the input text, when known."""
    if module is None or name is None:
        return None, None, None
    instr = module.get_instruction(name)
    if instr is None:
        return None, None, None
    comp = instr.parent.name if instr.parent is not None else None
    return instr.line or None, instr.col or None, comp


def hop_of(h: PathHop, module: HloModule | None) -> Hop:
    line = _place(module, h.instruction)[0]
    return Hop(h.instruction, tuple(h.shape_index), h.opcode or None, h.shape or None, h.computation or None,
               line, h.location)


def _fix_command(path: str | None, how: str, rule: str, options: tuple[str, ...]) -> tuple[str, ...] | None:
    """``xladoctor offload PATH [options] --fix how`` (in place, as ruff): only for a file the user can name again.

    ``options`` are the analysis options the finding was made under (``--disable-host-compute``,
    ``--stablehlo FILE``), so the command edits what was analysed."""
    if path is None or path in _STDIN_NAMES or os.path.isdir(path):
        return None
    if path.startswith("-"):  # a file named --select=Z.hlo stays a file in the command
        path = os.path.join(".", path)
    rule_args = () if rule == SHIPPED else ("--rule", rule)
    return ("xladoctor", "offload", path, *rule_args, *options, "--fix", how)


def host_output_fix(index: str, host_layout: str, jax: str, command: tuple[str, ...] | None = None,
                    edits: tuple[Edit, ...] = (), lang: str = "en", frontend: str = "JAX",
                    result_name: str | None = None) -> Fix:
    """E1200 remedy (a): the entry result ``index`` (``{1}``) gets the host layout ``host_layout``.
    Unsafe in ruff's sense: the caller then receives that output in host memory.  ``jax`` is the
    advice in the terms of ``frontend`` (its proper name: ``JAX``, ``PyTorch/XLA``); ``result_name``
    the output's Python path, so the fix names it as the finding does (glossary.output)."""
    text = label("finding.fix_host_text", lang, fix=glossary.fix_host(lang),
                 output=glossary.output(index, lang, result_name),
                 layout=host_layout, frontend=frontend, jax=jax)
    return Fix(FixKind.HOST_OUTPUT, text, None, command, "unsafe", edits)


def move_to_device_fix(value: str, where: str | None, jax: str, command: tuple[str, ...] | None = None,
                       edits: tuple[Edit, ...] = (), lang: str = "en", frontend: str = "JAX") -> Fix:
    """E1200 remedy (b): a move-to-device after ``value`` (the returned instruction, at Python ``where``).
    Safe: the output is where the program declares it, holding the same values."""
    at = f" ({where})" if where else ""
    text = label("finding.fix_device_text", lang, fix=glossary.fix_device(lang), value=value, at=at, frontend=frontend,
                 jax=jax)
    return Fix(FixKind.MOVE_TO_DEVICE, text, None, command, "safe", edits)


def _e1200_fixes(e: OutputMismatch, fix: FixSuggestion | None, path: str | None, rule: str,
                 options: tuple[str, ...], edits: FixEdits | None = None, lang: str = "en") -> tuple[Fix, ...]:
    if fix is None:
        return ()
    loc = fix.returned_location
    # torch_xla's frame for its own custom-call helper is no place of the user's (ir/frames.py)
    where = str(loc) if loc and not (fix.frontend == PYTORCH_XLA and is_library(loc.file)) else None
    host_edits, device_edits = edits or ((), ())
    return (host_output_fix(format_shape_index(e.output_index), fix.host_layout, fix.host_jax_text(lang),
                            _fix_command(path, "host", rule, options), host_edits, lang, fix.frontend_name,
                            fix.result_name),
            move_to_device_fix(fix.returned_value, where, fix.device_jax_text(lang), _fix_command(path, "device", rule, options),
                               device_edits, lang, fix.frontend_name))


def _source_of(path: tuple[Hop, ...]) -> SourceLocation | None:
    return next((h.source for h in path if h.source is not None), None)


def _severity(provenance: Provenance | None) -> Severity:
    """A verdict on a CPU module cannot stand for TPU/GPU (jax's CPU lowering drops the offload)."""
    if provenance is not None and provenance.faithful_for_accelerator is False:
        return Severity.WARNING
    return Severity.ERROR


def _provenance_fields(provenance: Provenance | None) -> dict[str, Any]:
    if provenance is None or provenance.faithful_for_accelerator is not False:
        return {}
    return {"platform": provenance.platform, "faithful_for_accelerator": False}


def mismatch_finding(e: OutputMismatch, result: HostOffloadResult, fix: FixSuggestion | None, path: str | None,
                     module: HloModule | None = None, provenance: Provenance | None = None,
                     lang: str = "en", options: tuple[str, ...] = (), edits: FixEdits | None = None) -> Finding:
    line, col, comp = _place(module, e.start)
    hops = tuple(hop_of(h, module) for h in e.path)
    fields: dict[str, Any] = {
        "output_index": list(e.output_index), "output_layout": e.output_layout, "start": e.start,
        "context": e.context, "customized": e.customized, "origin": e.origin,
        "origin_instruction": e.origin_instruction, "first": e.first, "rule": result.rule}
    if fix is not None:
        fields["flat_output"] = fix.flat_output
        fields["result_name"] = fix.result_name
        fields["host_layout"] = fix.host_layout
        fields["returned_value"] = fix.returned_value
        fields["returned_location"] = str(fix.returned_location) if fix.returned_location else None
    fields.update(_provenance_fields(provenance))
    return Finding(E1200_CODE, E1200_NAME, FindingKind.OFFLOAD_OUTPUT_MISMATCH, Origin.PREDICTED,
                   _severity(provenance), _title(E1200_CODE, lang), e.full_message,
                   Location(path, line, col, e.start, comp), _source_of(hops), hops,
                   _e1200_fixes(e, fix, path, result.rule, options, edits, lang), fields=fields)


def failure_finding(f: PassFailure, result: HostOffloadResult, path: str | None, module: HloModule | None = None,
                    provenance: Provenance | None = None, lang: str = "en") -> Finding:
    code = _STATUS_CODES.get(f.status, "E0012")
    entry = filed_entry(code)
    line, col, comp = _place(module, f.instruction)
    instr = module.get_instruction(f.instruction) if module is not None and f.instruction else None
    fields: dict[str, Any] = {"status": f.status, "first": f.first, "rule": result.rule,
                              **_provenance_fields(provenance)}
    return Finding(code, entry.name, FindingKind.OFFLOAD_PASS_FAILURE, Origin.PREDICTED, _severity(provenance),
                   entry.describe(lang).title, in_lang(f.message, lang), Location(path, line, col, f.instruction, comp),
                   instr.source_location() if instr is not None else None, fields=fields)


def offload_findings(result: HostOffloadResult, fixes: Sequence[FixSuggestion] = (), path: str | None = None,
                     module: HloModule | None = None, provenance: Provenance | None = None,
                     lang: str = "en", confirm: Confirmation | None = None,
                     options: tuple[str, ...] = (), text: str | None = None) -> tuple[Finding, ...]:
    """Every finding of one module's host-offload analysis (and of ``--confirm``, when given).

    ``module`` is the parsed input (for HLO lines and computations; None leaves them out);
    ``path`` names the artefact (None in memory; ``<stdin>``); ``options`` are the command-line
    options of the analysis, repeated in each fix's command; ``text``, the module as written,
    gives each E1200 fix its edits of that text.
    """
    by_index = {tuple(f.output_index): f for f in fixes}
    edits: dict = {}
    if text is not None and module is not None and result.errors:  # the fixes' edits: a finding's only
        from .edits import e1200_fix_edits

        edits = e1200_fix_edits(text, module, result, path or "<input>")
    out = [mismatch_finding(e, result, by_index.get(tuple(e.output_index)), path, module, provenance, lang, options,
                            edits.get(tuple(e.output_index))) for e in result.errors]
    out.extend(failure_finding(f, result, path, module, provenance, lang) for f in result.failures)
    compiler = confirm_finding(confirm, path, lang, predicted=bool(out))
    if confirm is not None and confirm.judge is not None:  # which judge answered, on each finding it judged
        from dataclasses import replace

        says = confirm.judge.says
        out = [replace(f, fields={**f.fields, "judge": says}) for f in out]
    if compiler is not None:
        out.append(compiler)
    return tuple(out)


def confirm_finding(confirm: Confirmation | None, path: str | None, lang: str = "en",
                    predicted: bool = False) -> Finding | None:
    """The real compiler's verdict as a finding, when it rejects the module and nothing was
    predicted, or when it disagrees with the prediction (``agree`` false)."""
    if confirm is None or not confirm.available or confirm.verdict is None:
        return None
    verdict = confirm.verdict
    rejects = verdict.is_error
    if confirm.run_failed:
        return run_finding(confirm, path, lang)
    if confirm.agree is not False and (predicted or not rejects):
        return None
    code = verdict.code or _STATUS_CODES.get(verdict.status or "", "E0012")
    from ..catalogue.loader import load_catalogue

    entry = load_catalogue().entries.get(code) or load_catalogue().entries["E0012"]
    fields = {"verdict": verdict.kind, "agree": confirm.agree, "reason": confirm.reason,
              "topology": confirm.topology, "start": verdict.start, "check_line": verdict.check_line}
    if confirm.judge is not None:
        fields["judge"] = confirm.judge.says
    return Finding(entry.code, entry.name, FindingKind.COMPILER_REJECTS, Origin.COMPILER,
                   Severity.ERROR if rejects else Severity.WARNING, entry.describe(lang).title,
                   verdict.message or "", Location(path, instruction=verdict.start), fields=fields)


_RUN_CODES = {"halt": "E0200"}
"""A halted core is the runtime's E0200; the other run failures have no code of XLA's (E0012)."""


def run_finding(confirm: Confirmation, path: str | None, lang: str = "en") -> Finding:
    """``--confirm --run``: the module compiled on the chip and then failed there (wrong data, a
    halt, a crash, a refusal, a runtime error); the message is the run's line and the judge."""
    from ..catalogue.loader import load_catalogue
    from ..oracle.run_text import judge_says, run_line

    run, judge, verdict = confirm.run, confirm.judge, confirm.verdict
    assert run is not None and judge is not None and verdict is not None  # a run is judged on a chip
    entry = load_catalogue().entries.get(_RUN_CODES.get(run["outcome"], "E0012")) or load_catalogue().entries["E0012"]
    says = judge_says(judge, confirm.topology or "", lang)
    fields = {"verdict": verdict.kind, "run": run["outcome"], "judge": judge.says,
              "topology": confirm.topology, "check_line": run.get("check_line")}
    return Finding(entry.code, entry.name, FindingKind.COMPILER_REJECTS, Origin.COMPILER, Severity.ERROR,
                   entry.describe(lang).title, f"{run_line(run, lang)} ({says})", Location(path), fields=fields)
