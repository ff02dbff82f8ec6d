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


def _host_result_tuple_start(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    from ..ir.shape import HOST_MEMORY_SPACE

    ecl = module.entry_computation_layout
    host_result = ecl is not None and any(
        leaf.is_array and leaf.layout is not None and leaf.layout.memory_space == HOST_MEMORY_SPACE
        for _, leaf in ecl.result.leaves())
    return host_result and result.outcome == "E1200" and verdict.kind == "e1200" and verdict.start == "tuple"


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
        "HLO text reaches libtpu only through StableHLO, which returns the single element of a "
        "one-element root tuple directly: a MoveToHost under it becomes the entry root, which XLA "
        "copies to host and compiles, or, when host compute precedes it, the start of the walk "
        "XLA reports. The module we analyse still has the tuple, and XLA on that module reports "
        "E1200 like for any tuple root; JAX never lowers a one-element tuple root",
        _one_tuple_root),
    KnownDivergence(
        "post-optimization-verifier",
        "libtpu 0.0.42.1 rejects some programs after optimisation with INTERNAL 'during context "
        "[post-optimization]: The async-start expects the shape of operand 0 to match the async shape "
        "... S(5)' or 'Shape mismatch between parameter number 0 and its operand in %...fusion': seen "
        "when a scan whose body moves its carry to host with jax.device_put feeds device compute. "
        "HostOffloader itself accepts the module (xladoctor agrees with it); a later pass builds "
        "shapes that disagree in memory space, which no host-offload rule explains",
        _post_optimization_verifier),
    KnownDivergence(
        "tpu-lowering-host-to-host-crash",
        "libtpu 0.0.42.1 aborts in its TPU lowering ('lowering_util.cc: Check failed: "
        "source->memory_space() != MemorySpace::kHost (host vs. host)') for scans whose carry "
        "starts in pinned_host and is moved to host again in the body: a host-to-host copy the "
        "backend cannot emit. HostOffloader accepted the module before that, and xladoctor "
        "models HostOffloader, so it predicts a clean compile",
        _lowering_host_to_host_crash),
    KnownDivergence(
        "schedule-ret-check",
        "libtpu 0.0.42.1 fails a scheduling RET_CHECK (hlo_schedule.cc: 'Instruction "
        "bitcast_dynamic-update-slice_fusion... is not scheduled after ...') for some programs "
        "with two scans whose bodies move values between host and device; the failure is in a "
        "pass after HostOffloader, which accepted the module (as xladoctor predicts)",
        _schedule_ret_check),
    KnownDivergence(
        "hlo-route-host-result-tuple",
        "HLO text with a host (S(5)) entry result reaches libtpu as StableHLO with a pinned_host "
        "memory kind on @main's result, and libtpu reports E1200 starting from 'tuple', an "
        "instruction of its own rewritten module, where xladoctor names the first walk's start "
        "in the given module. Seen once in 2,200 generated HLO programs; JAX programs with "
        "pinned_host outputs agree",
        _host_result_tuple_start),
    KnownDivergence(
        "cse-of-identical-host-buffers",
        "XLA's HloCSE merges identical constants and broadcasts before HostOffloader, so two "
        "dynamic-update-slice buffers made by broadcasting the same constant (each moved to host) "
        "become one buffer and one MoveToHost, and the walks (and the E1200 start) change; "
        "xladoctor merges only identical placement annotations, not the values under them. "
        "Seen once in 2,200 generated programs",
        _identical_host_buffers),
    KnownDivergence(
        "unknown-custom-call-target",
        "the TPU compiler rejects a custom call it has no emitter for ('Custom emitter for Foo not found'); "
        "that is not a host-offload decision, and xladoctor models only the host-offload passes "
        "(scenario D3)",
        _unknown_custom_call),
)


def match_divergence(module: HloModule, result: HostOffloadResult,
                     verdict: Verdict) -> KnownDivergence | None:
    """The named divergence this disagreement is, or ``None``."""
    for d in KNOWN_DIVERGENCES:
        if d.matches(module, result, verdict):
            return d
    return None
