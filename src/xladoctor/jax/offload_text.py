"""``str(check_offload(...))``: the report's findings drawn by the findings renderers.

The findings are the report's own (``diagnostics()``, the one adapter every route uses), each
E1200 carrying the facts only a JAX program has: the output's pytree path and
``out_shardings`` leaf, the Python lines where the tensor went to host and its callers,
the lines of its path, where the output's value is returned (``fields["jax"]``), and the
two fixes as JAX code (``Fix.code``).  :func:`xladoctor.report.finding_text.render_finding`
draws them, as it draws ``check``'s; this module adds only what is not a finding: the
clean verdict, the notes and the real compiler's verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..base.labels import label, plural
from ..findings.model import FindingKind, Report
from ..report.finding_text import render_finding
from .source_line import line_json

if TYPE_CHECKING:
    from .offload_check import ProgramCheck

__all__ = ["line_json", "render_text"]


def render_text(report: Report) -> str:
    """The report as text (``str(report)``); words from ``labels/en.toml`` ``[jax_report]``."""
    check = cast("ProgramCheck", report.analysis)
    target = check.target
    e1200 = [f for f in report.findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]
    lines = [] if e1200 else [_clean_line(check, target)]
    lines.extend(p.message for p in check.policy_findings)
    for f in e1200:
        lines.extend(render_finding(f))
    lines.extend(label("jax_report.note", note=n) for n in check.notes)
    lines.extend(line for f in report.findings if f.kind is FindingKind.OFFLOAD_PASS_FAILURE
                 for line in render_finding(f))
    lines.extend(_confirmation_lines(check))
    return "\n".join(lines)


def _confirmation_lines(report: ProgramCheck) -> list[str]:
    """``confirm=True``: the real compiler's verdict and whether it agrees, or why it did not run."""
    lines = []
    c = report.confirmation
    if c is not None:
        lines.append(label("jax_report.real_compiler", topology=c.verdict.topology, summary=c.verdict.summary()))
        if c.verdict.kind == "crash" and c.verdict.check_line:
            lines.append(f"  {c.verdict.check_line}")
        verdict = {True: "jax_report.agrees", False: "jax_report.disagrees", None: "jax_report.not_comparable"}[c.agree]
        lines.append(f"  {label(verdict)}: {c.reason}")
    if report.run is not None:
        from ..oracle.run_text import judge_says, run_line

        if report.run.get("judge"):
            lines.append("  " + label("confirm.judge", says=judge_says(report.run["judge"], c.verdict.topology if c else "")))
        lines.append("  " + run_line(report.run["run"]))
        if report.run["run"].get("check_line"):
            lines.append(f"    {report.run['run']['check_line']}")
    if report.confirm_note:
        lines.append(label("jax_report.note", note=report.confirm_note))
    return lines


def _clean_line(report: ProgramCheck, target: str) -> str:
    """No E1200: what was checked (moves to host, host arguments), or that nothing is offloaded at all."""
    seen = report.offloads()
    parts = [plural(seen["moves_to_host"], "jax_report.moves_to_host_one", "jax_report.moves_to_host_many")
             if seen["moves_to_host"] else "",
             plural(seen["host_arguments"], "jax_report.host_arguments_one", "jax_report.host_arguments_many")
             if seen["host_arguments"] else ""]
    parts = [p for p in parts if p]
    if parts:
        return label("jax_report.clean_checked", target=target, checked=label("jax_report.and").join(parts))
    return label("jax_report.clean_nothing_offloaded", target=target)
