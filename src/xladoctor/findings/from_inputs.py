"""Input-buffer comparison (E0102 before it happens) -> findings, one per mismatching parameter.

Severity follows what the runtimes do: a buffer some runtime rejects (another array,
another TPU size, another memory space) is an ``ERROR``; a layout-only difference with
equal sizes passes every size check, so the data would be read in the wrong order by a
runtime that accepts it: a ``WARNING``.  A different number of buffers, or names on one
side only (name pairing), is one more ``ERROR`` finding.  The message is what the first
runtime that rejects the buffer prints (TPU's E0102 text first), so it matches the log
line a user would grep for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalogue.loader import load_catalogue
from ..inputs import runtime_messages as rm
from ..inputs.compare import InputCheck, ParameterMismatch
from ..inputs.explanation import fixes as mismatch_fixes
from ..inputs.explanation import summary
from .model import Finding, FindingKind, Fix, FixKind, Location, Origin, Severity

if TYPE_CHECKING:
    from ..ir.module import HloModule

E0102_CODE = "E0102"
FIX_KINDS = {"device_put": FixKind.DEVICE_PUT, "relayout_offline": FixKind.RELAYOUT,
              "recompile": FixKind.RECOMPILE, "config": FixKind.CONFIG}


def severity_of(m: ParameterMismatch) -> Severity:
    """A layout-only mismatch some runtime accepts is a warning; anything a runtime rejects, an error."""
    if m.kind == "layout" and any(v.accepts for v in m.verdicts):
        return Severity.WARNING
    return Severity.ERROR


def runtime_message(m: ParameterMismatch, executable: str) -> str:
    """The text of the first runtime that rejects the buffer (TPU, CPU/GPU, StreamExecutor)."""
    exp, sup = m.expected.shape, m.supplied.shape
    if not m.verdict("tpu").accepts:
        return rm.tpu_message(executable, m.index, m.expected_physical_bytes, exp, m.supplied_bytes, sup, None, None)
    if not m.verdict("cpu_gpu").accepts:
        return rm.cpu_gpu_message(m.index, m.expected_logical_bytes, int(m.verdict("cpu_gpu").supplied_value))
    if not m.verdict("stream_executor").accepts:
        return rm.stream_executor_message(m.index, exp, sup)
    return summary(m)


def _side(shape: Any, logical: int, physical: int, jax_layout: str | None) -> dict[str, Any]:
    return {"shape": str(shape), "logical_bytes": logical, "physical_bytes": physical, "jax_layout": jax_layout}


def mismatch_fields(m: ParameterMismatch) -> dict[str, Any]:
    return {
        "index": m.index, "supplied_index": m.supplied.index, "name": m.expected.name,
        "supplied_name": m.supplied.name, "mismatch": m.kind,
        "expected": _side(m.expected.shape, m.expected_logical_bytes, m.expected_physical_bytes,
                          m.expected_jax_layout),
        "supplied": {**_side(m.supplied.shape, m.supplied_logical_bytes, m.supplied_physical_bytes,
                             m.supplied_jax_layout), "actual_bytes": m.supplied.actual_bytes},
        "differences": [{"attribute": d.attribute, "expected": d.expected, "supplied": d.supplied}
                        for d in m.differences],
        "accepted_by": [v.runtime for v in m.verdicts if v.accepts],
        "expansion": m.expansion}


def _instruction_place(module: HloModule | None, name: str | None) -> tuple[int | None, int | None, str | None]:
    instr = module.get_instruction(name) if module is not None and name else None
    if instr is None:
        return None, None, None
    return instr.line or None, instr.col or None, instr.parent.name if instr.parent is not None else None


def mismatch_finding(m: ParameterMismatch, executable: str, path: str | None, module: HloModule | None = None,
                     lang: str = "en", severity: Severity | None = None) -> Finding:
    """One parameter's mismatch; ``module`` (the expected side, parsed) gives the parameter's line."""
    entry = load_catalogue().entries[E0102_CODE]
    line, col, comp = _instruction_place(module, m.expected.instruction)
    return Finding(E0102_CODE, entry.name, FindingKind.INPUT_MISMATCH, Origin.PREDICTED,
                   severity or severity_of(m), entry.describe(lang).title, runtime_message(m, executable),
                   Location(path, line, col, m.expected.instruction, comp),
                   fixes=tuple(Fix(FIX_KINDS.get(x.kind, FixKind.ADVICE), x.text, x.code) for x in mismatch_fixes(m, lang)),
                   fields=mismatch_fields(m))


def count_finding(check: InputCheck, path: str | None, lang: str = "en") -> Finding | None:
    """The buffers do not pair up: another count, or (name pairing) names on one side only."""
    if not (check.count_mismatch or check.missing or check.extra):
        return None
    entry = load_catalogue().entries[E0102_CODE]
    message = (rm.buffer_count_message(check.supplied_count, check.expected_count) if check.count_mismatch
               else f"unpaired arguments: missing {check.missing}, extra {check.extra}")
    fields: dict[str, Any] = {"expected_count": check.expected_count, "supplied_count": check.supplied_count,
              "missing": list(check.missing), "extra": list(check.extra), "pairing": check.pairing}
    return Finding(E0102_CODE, entry.name, FindingKind.INPUT_MISMATCH, Origin.PREDICTED, Severity.ERROR,
                   entry.describe(lang).title, message, Location(path), fields=fields)


def inputs_findings(check: InputCheck, path: str | None = None, module: HloModule | None = None,
                    lang: str = "en") -> tuple[Finding, ...]:
    """Every finding of one comparison, in parameter order, then the pairing finding."""
    out = [mismatch_finding(m, check.executable, path, module, lang) for m in check.mismatches]
    pairing = count_finding(check, path, lang)
    return (*out, pairing) if pairing is not None else tuple(out)
