"""``str(check_offload(...))``: the report's findings drawn by the findings renderers.

The findings are the report's ``diagnostics()`` (the one adapter every route uses), each
E1200 given the facts only a JAX program has: the output's pytree path and
``out_shardings`` leaf, the Python lines where the tensor went to host and its callers,
the lines of its path, where the output's value is returned (``fields["jax"]``), and the
two fixes as JAX code (``Fix.code``).  :func:`xladoctor.report.finding_text.render_finding`
draws them, as it draws ``check``'s; this module adds only what is not a finding: the
clean verdict, the notes and the real compiler's verdict.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..findings.model import Finding, FindingKind, Fix, FixKind
from ..labels import label, plural
from ..report.finding_text import render_finding
from .source_line import SourceLine

if TYPE_CHECKING:
    from .offload_check import OffloadFinding, OffloadReport

_DRAWN = (FindingKind.OFFLOAD_OUTPUT_MISMATCH, FindingKind.OFFLOAD_PASS_FAILURE)
"""The compiler's verdict (``COMPILER_REJECTS``) is told by the confirmation lines instead."""


def line_json(s: SourceLine | None) -> dict[str, Any] | None:
    """A Python line as ``to_json()`` and ``fields["jax"]`` write it."""
    return None if s is None else {"file": s.file, "line": s.line, "function": s.function, "text": s.text}


def jax_facts(f: OffloadFinding, target: str) -> dict[str, Any]:
    """What ``fields["jax"]`` holds for one E1200 (the renderer's JAX part; only text draws it, so
    each Python line is already its text, as :class:`SourceLine` writes it)."""
    return {"target": target, "output": f.output, "leaf": f.leaf, "host_argument": f.host_argument,
            "offloaded_at": _line_text(f.offloaded_at), "offloaded_from": [str(c) for c in f.offloaded_from],
            "offloaded_via": [str(c) for c in f.offloaded_via],
            "path": [str(s) for s in f.source_lines()], "returned_at": _line_text(f.returned_at)}


def _line_text(s: SourceLine | None) -> str | None:
    return None if s is None else str(s)


def _with_code(fixes: tuple[Fix, ...], kind: FixKind, code: str) -> Fix:
    """The finding's fix of ``kind`` carrying the JAX code (made, without prose, if the
    analysis had none: the code needs no HLO fix behind it)."""
    fix = next((x for x in fixes if x.kind is kind), Fix(kind, ""))
    return replace(fix, code=code)


def text_findings(report: OffloadReport) -> tuple[Finding, ...]:
    """The report's findings as the text draws them: each E1200 (in the order of
    ``report.findings``, the analysis' order) with its JAX facts and code."""
    target = report.platform or label("jax_report.local_backend")
    found = [f for f in report.diagnostics().findings if f.kind in _DRAWN]
    ours = iter(report.findings)
    out = []
    for f in found:
        mine = next(ours) if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH else None
        if mine is not None:
            fixes = (_with_code(f.fixes, FixKind.HOST_OUTPUT, mine.host_fix),
                     _with_code(f.fixes, FixKind.MOVE_TO_DEVICE, mine.device_fix))
            f = replace(f, fixes=fixes, fields={**f.fields, "jax": jax_facts(mine, target)})
        out.append(f)
    return tuple(out)


def render_text(report: OffloadReport) -> str:
    """The report as text (``str(report)``); words from ``labels/en.toml`` ``[jax_report]``."""
    target = report.platform or label("jax_report.local_backend")
    findings = text_findings(report)
    lines = [] if report.findings else [_clean_line(report, target)]
    lines.extend(p.message for p in report.policy_findings)
    for f in findings:
        if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH:
            lines.extend(render_finding(f))
    lines.extend(label("jax_report.note", note=n) for n in report.notes)
    lines.extend(line for f in findings if f.kind is FindingKind.OFFLOAD_PASS_FAILURE for line in render_finding(f))
    lines.extend(_confirmation_lines(report))
    return "\n".join(lines)


def _confirmation_lines(report: OffloadReport) -> list[str]:
    """``confirm=True``: the real compiler's verdict and whether it agrees, or why it did not run."""
    lines = []
    c = report.confirmation
    if c is not None:
        lines.append(label("jax_report.real_compiler", topology=c.verdict.topology, summary=c.verdict.summary()))
        if c.verdict.kind == "crash" and c.verdict.check_line:
            lines.append(f"  {c.verdict.check_line}")
        verdict = {True: "jax_report.agrees", False: "jax_report.disagrees", None: "jax_report.not_comparable"}[c.agree]
        lines.append(f"  {label(verdict)}: {c.reason}")
    if report.confirm_note:
        lines.append(label("jax_report.note", note=report.confirm_note))
    return lines


def _clean_line(report: OffloadReport, target: str) -> str:
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
