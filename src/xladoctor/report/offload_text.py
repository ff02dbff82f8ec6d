"""The text of ``xladoctor offload``: the verdict, each finding in full, then what ends in host memory.

The findings (each offending output, each other failure of the pass) are drawn from the
typed model (``findings.from_offload``), their hops by :func:`.finding_text.hop_detail`, so
``offload`` and ``check`` read the same facts; the JAX code of the two E1200 fixes comes from
the analysis' fix suggestions, which the model's fix sentences summarise.  What ends in host
memory (host compute, rewritten slices, legalized copies) is the pass' bookkeeping, not a
finding, and is drawn from the result.  Words from ``labels/*.toml`` ``[offload]``, in ``lang``;
XLA's own messages stay as XLA writes them.
"""

from __future__ import annotations

from ..base.labels import (
    glossary,
    in_lang,
    label,
    plural,
)
from ..findings.model import Finding, FindingKind, Report
from ..ir.module import HloModule
from ..ir.shape import format_shape_index
from ..offload.fixes import FixSuggestion
from ..offload.result import HostOffloadResult
from ..offload.rules import RULES

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from ..oracle.confirmation import Confirmation
    from ..syntax.companion import Companion
    from ..triage.provenance import Provenance


def offload_report_text(report: Report, trace: bool) -> str:
    """``offload``'s text of its Report: with no verdict (the memory kinds unknown), ``check``'s
    NO VERDICT line word for word; else :func:`offload_text`, a compiled module with its note."""
    from ..base.escape import escape_field
    from ..findings.details import offload_of

    details = offload_of(report)
    assert details.module is not None
    source = escape_field(report.inputs[0])
    if details.undecidable is not None and details.applies:
        return layout_text(report.findings, report.lang) + f"{source}: {details.undecidable.message}\n"
    # route.module_analysis.compiled_note's words: English, as the JSON documents' note
    compiled = None if details.applies else label("status.compiled_module")
    return offload_text(source, details.module, details.result, list(details.fixes), report.findings, trace,
                        report.lang, details.companion, details.provenance, compiled, details.confirm)


def offload_text(source: str, module: HloModule, result: HostOffloadResult, fixes: list[FixSuggestion],
                 findings: tuple[Finding, ...], trace: bool, lang: str, companion: Companion | None,
                 provenance: Provenance, compiled_note: str | None, confirmed: Confirmation | None) -> str:
    """The whole ``offload`` text: the parser's layout warnings, the report (:func:`render_text`),
    then where the memory kinds came from, the provenance's note, why a compiled module has no
    finding (``compiled_note``, None for a module the analysis applies to) and the real compiler's
    verdict (``--confirm``).  ``source`` is already made safe for a terminal."""
    from ..base.escape import escape_field
    from .companion_text import companion_shown
    from .confirm import confirm_lines
    from .snippet import inputs_forgotten

    with inputs_forgotten():  # the checked file's lines are not kept past its report (a caller in-process)
        report = layout_text(findings, lang) + render_text(source, module, result, fixes, trace, lang)
    if companion is not None:
        how = label("check.kinds_beside" if companion.found == "beside" else "check.kinds_option", lang)
        report += "\n" + label("check.kinds_from", lang, path=companion_shown(companion.to_json(), lang),
                                how=how) + "\n"
    note = provenance.note()
    if note:
        report += "\n" + label("check.note", lang, note=escape_field(in_lang(note, lang))) + "\n"
    if compiled_note is not None:
        report += "\n" + label("offload.compiled_note", lang, note=in_lang(compiled_note, lang)) + "\n"
    if confirmed is not None:
        report += "\n".join(["", *confirm_lines(confirmed, lang=lang)]) + "\n"
    return report


def layout_text(findings: tuple[Finding, ...], lang: str) -> str:
    """The parser's layout warnings (layout_warnings.py), each two lines, before the verdict."""
    warned = [f for f in findings if f.kind is FindingKind.LAYOUT_WARNING]
    if not warned:  # the findings' renderer is imported for a finding to draw (issue 36 item 1)
        return ""
    from .finding_text import layout_warning

    lines = [line for f in warned for line in layout_warning(f, lang)]
    return "\n".join(lines) + "\n" if lines else ""


def render_text(source: str, module: HloModule, result: HostOffloadResult, fixes: list[FixSuggestion],
                trace: bool, lang: str = "en") -> str:
    """The ``offload`` report: verdict, each offending output with its path and fixes, failures, then
    what ends in host memory, in ``lang`` (logical order: the command draws it for its reader)."""
    from ..findings.from_offload import offload_findings

    out: list[str] = []
    mode = in_lang(RULES[result.rule].label, lang)
    if result.outcome == "ok" and not result.errors and not result.failures:
        out.append(label("offload.none_predicted", lang, source=source, mode=mode))
    if result.errors:
        n = len(result.errors)
        out.append(plural(n, "offload.predicted_one", "offload.predicted_many", lang, source=source, mode=mode))
    by_index = {tuple(f.output_index): f for f in fixes}
    for finding in offload_findings(result, fixes, None, module):
        out.append("")
        if finding.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH:
            from .finding_text import shape_index_of  # a finding's: a clean module's text needs none

            fix = by_index.get(shape_index_of(finding.fields.get("output_index")))
            out.extend(_mismatch_lines(finding, fix, result.outcome, lang, source))
        else:
            out.append(_failure_line(finding, lang))
    if trace and result.vlog:
        out.append("")
        out.append(label("offload.vmodule", lang))
        out.extend("  " + line for line in result.vlog)
    out.append("")
    out.extend(_host_memory_lines(result, lang))
    return "\n".join(out) + "\n"


def _mismatch_lines(f: Finding, fix: FixSuggestion | None, outcome: str, lang: str, source: str) -> list[str]:
    """One offending output: its heading, XLA's message, the path (and its lines, ``source`` being the
    module's file) and the two fixes with their JAX."""
    from .finding_text import hop_detail, index_text, snippet_lines

    first = bool(f.fields.get("first"))
    tag = glossary.xla_reports(lang) if first else glossary.also_offending(lang)
    if first and outcome != "E1200":
        tag = label("offload.follows_earlier_failure", lang)
    index = index_text(f.fields.get("output_index"))
    out = [label("offload.output", lang, output=glossary.output(index, lang, f.fields.get("result_name")),
                 layout=f.fields.get("output_layout"),
                 tag=tag)]
    out.extend("  " + line for line in f.message.splitlines())
    out.append("  " + label("offload.path_from", lang, origin=f.fields.get("origin")))
    out.extend("    " + hop_detail(h) for h in f.path)
    out.extend(snippet_lines(f, lang, source, "  "))
    if fix is not None:
        out.append("  " + label("offload.fix_host", lang, fix=glossary.fix_host(lang), output=glossary.output(index, lang, f.fields.get("result_name")),
                                layout=fix.host_layout, frontend=fix.frontend_name, jax=fix.host_jax_text(lang)))
        out.append("  " + label("offload.fix_device", lang, fix=glossary.fix_device(lang), value=fix.returned_value,
                                frontend=fix.frontend_name, jax=fix.device_jax_text(lang)))
    return out


def _failure_line(f: Finding, lang: str) -> str:
    """Another failure of the pass: its status (a CHECK crash says so), XLA's message, the instruction."""
    status = f.fields.get("status")
    first = f" ({glossary.xla_reports(lang)})" if f.fields.get("first") and status != "ValueError" else ""
    what = (label("offload.check_failure", lang) if status == "CHECK" else
            label("offload.call_refused", lang) if status == "ValueError" else
            label("offload.would_fail", lang, status=status))
    instruction = f.location.instruction
    at = f" {label('offload.at_instruction', lang, instruction=instruction)}" if instruction else ""
    return f"{what}{first}: {in_lang(f.message, lang)}{at}"


_LEGALIZE_LABELS = {"moved-down": "offload.legalize_moved_down", "moved-up": "offload.legalize_moved_up"}


def _host_memory_lines(result: HostOffloadResult, lang: str) -> list[str]:
    """What ends in host memory, host compute, rewritten slices, dropped offloads, legalized copies, warnings."""
    names = [n + (format_shape_index(i) if i else "") for n, i in result.host_positions]
    # A copy to host the pass inserts (a move to host read only by a move back, as a remat offload
    # policy lowers) is host memory too: "none" beside "Offloading tanh.2 to host" in the trace.
    names += [label("offload.host_copy", lang, name=c.name, operand=c.operand) for c in result.inserted
              if c.kind in ("copy-to-host", "output-copy-to-host") and c.name not in names]
    out = [label("offload.host_memory", lang, names=", ".join(names) or label("offload.nothing", lang))]
    if result.host_compute:
        out.append(label("offload.host_compute", lang,
                         items=", ".join(f"{h.instruction} ({h.opcode})" for h in result.host_compute)))
    if result.dynamified_slices:
        out.append(label("offload.dynamified", lang, names=", ".join(result.dynamified_slices)))
    out.extend(label("offload.dynamic_update_slice", lang, instruction=d.instruction, action=d.action)
               for d in result.dynamic_update_slices)
    out.extend(label("offload.dropped", lang, name=d.move_to_host, reason=d.reason) for d in result.dropped_offloads)
    for m in (result.legalize.moves if result.legalize is not None else []):
        where = (label("offload.legalize_after", lang, names=", ".join(m.after)) if m.after
                 else label("offload.legalize_removed", lang))
        out.append(label(_LEGALIZE_LABELS.get(m.action, "offload.legalize_kept"), lang, copy=m.copy, where=where))
    out.extend(label("offload.moved_output", lang, output=glossary.output(format_shape_index(o.output_index), lang), old=o.old_layout,
                     new=o.new_layout) for o in result.outputs_moved_to_host)
    if result.warnings:
        out.append(label("offload.warnings", lang))
        out.extend("  " + in_lang(w, lang) for w in result.warnings)
    return out
