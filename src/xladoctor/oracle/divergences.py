"""Where xladoctor's prediction and the real TPU compiler (libtpu 0.0.42.1) knowingly differ.

Each entry names one pattern, says why the model cannot (or does not yet) follow the
compiler there, and recognises it from the module, our result and the compiler's verdict,
so the differential campaign (``bench/offload_campaign.py``) counts it by name instead of
as an unexplained disagreement.  Every entry has a test that reproduces it; an entry no
longer reproduced should be deleted, not kept "just in case".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base.labels import label

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from ..offload.result import HostOffloadResult
    from .verdict import Verdict


@dataclass(frozen=True)
class KnownDivergence:
    name: str
    reason: str
    matches: Callable[[HloModule, HostOffloadResult, Verdict], bool]


def _unknown_custom_call(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    return (result.outcome == "ok" and verdict.kind == "xla_error"
            and "Custom emitter for" in (verdict.message or "") and "not found" in (verdict.message or ""))


def _one_tuple_root(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    root = module.entry.root if module.entry is not None else None
    return (root is not None and root.opcode.value == "tuple" and len(root.operands) == 1
            and result.outcome == "E1200" and verdict.kind in ("compiles", "e1200"))


def _post_optimization_verifier(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error" and verdict.status == "INTERNAL"
            and "during context [post-optimization]" in text)


def _lowering_host_to_host_crash(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    return (result.outcome == "ok" and verdict.kind == "crash"
            and "source->memory_space() != MemorySpace::kHost" in (verdict.check_line or verdict.message or ""))


def _schedule_ret_check(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error" and "hlo_schedule.cc" in text
            and "is not scheduled after" in text)


def _identical_host_buffers(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    """Two MoveToHosts of broadcasts of the same constant value and shape: XLA's CSE makes one."""
    from ..offload.annotations import is_move_to_host

    seen: set[tuple[str, str]] = set()
    for instr in module.instructions():
        if not is_move_to_host(instr) or instr.operands[0].opcode.value != "broadcast":
            continue
        scalar = instr.operands[0].operands[0]
        if scalar.opcode.value != "constant":
            continue
        key = (str(instr.shape), str(scalar.literal))
        if key in seen:
            return True  # only ever asked about a disagreement
        seen.add(key)
    return False


KNOWN_DIVERGENCES: tuple[KnownDivergence, ...] = (
    KnownDivergence(
        "one-element-tuple-root",
        label("oracle.divergence.one_element_tuple_root"),
        _one_tuple_root),
    KnownDivergence(
        "post-optimization-verifier",
        label("oracle.divergence.post_optimization_verifier"),
        _post_optimization_verifier),
    KnownDivergence(
        "tpu-lowering-host-to-host-crash",
        label("oracle.divergence.tpu_lowering_host_to_host_crash"),
        _lowering_host_to_host_crash),
    KnownDivergence(
        "schedule-ret-check",
        label("oracle.divergence.schedule_ret_check"),
        _schedule_ret_check),
    KnownDivergence(
        "unknown-custom-call-target",
        label("oracle.divergence.unknown_custom_call_target"),
        _unknown_custom_call),
)


def match_divergence(module: HloModule, result: HostOffloadResult, verdict: Verdict,
                     table: tuple[KnownDivergence, ...] = KNOWN_DIVERGENCES) -> KnownDivergence | None:
    """The named divergence of ``table`` (the TPU one unless another is given) this disagreement
    is, or ``None``."""
    for d in table:
        if d.matches(module, result, verdict):
            return d
    return None
