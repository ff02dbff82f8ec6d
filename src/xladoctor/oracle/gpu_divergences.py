"""Where xladoctor's GPU prediction and XLA:GPU (jaxlib 0.10.2's CUDA plugin) knowingly differ.

The GPU campaign's table, beside the TPU one (:mod:`.divergences`): each entry names one
pattern, says why the model does not follow the compiler there, and recognises it from the
module, our result and the verdict.  Measured with ``bench/offload_campaign.py --platform gpu``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.labels import label
from .divergences import KNOWN_DIVERGENCES, KnownDivergence, _identical_host_buffers, match_divergence

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from ..offload.result import HostOffloadResult
    from .verdict import Verdict


def _fusion_memory_space(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error" and "Fused computation shape" in text
            and "is not equal to the fusion shape" in text and "S(5)" in text)


def _dus_memory_space(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error"
            and "DynamicUpdateSlice instruction shouldn't change layout memory space" in text)


def _copy_start_color(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error" and "Copy-start" in text
            and "doesn't have correct host memory space color" in text)


def _while_operand_parameter(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error" and "shape does not match parameter's" in text
            and "S(5)" in text)


def _loop_state_memory_space(module: HloModule, result: HostOffloadResult, verdict: Verdict) -> bool:
    text = verdict.message or ""
    return (result.outcome == "ok" and verdict.kind == "xla_error" and "end-of-post-layout_assignment" in text
            and "Expected instruction to have shape equal to" in text and "S(5)" in text)


def _tpu_entry(name: str) -> KnownDivergence:
    """A TPU divergence whose cause is the HLO -> StableHLO route both plugins share."""
    return next(d for d in KNOWN_DIVERGENCES if d.name == name)


GPU_DIVERGENCES: tuple[KnownDivergence, ...] = (
    _tpu_entry("one-element-tuple-root"),
    # No longer a TPU divergence: the pre-passes model HloCSE (offload/passes/hlo_cse.py) since issue 19.
    KnownDivergence("cse-of-identical-host-buffers", label("oracle.divergence.cse_of_identical_host_buffers"),
                    _identical_host_buffers),
    KnownDivergence(
        "gpu-fusion-memory-space-verifier",
        label("oracle.gpu_divergence.fusion_memory_space_verifier"),
        _fusion_memory_space),
    KnownDivergence(
        "gpu-dus-memory-space-verifier",
        label("oracle.gpu_divergence.dus_memory_space_verifier"),
        _dus_memory_space),
    KnownDivergence(
        "gpu-loop-state-memory-space",
        label("oracle.gpu_divergence.loop_state_memory_space"),
        _loop_state_memory_space),
    KnownDivergence(
        "gpu-copy-start-memory-space",
        label("oracle.gpu_divergence.copy_start_memory_space"),
        _copy_start_color),
    KnownDivergence(
        "gpu-while-operand-parameter-memory-space",
        label("oracle.gpu_divergence.while_operand_parameter_memory_space"),
        _while_operand_parameter),
)


def match_gpu_divergence(module: HloModule, result: HostOffloadResult,
                         verdict: Verdict) -> KnownDivergence | None:
    """The named GPU divergence this disagreement is, or ``None``."""
    return match_divergence(module, result, verdict, GPU_DIVERGENCES)
