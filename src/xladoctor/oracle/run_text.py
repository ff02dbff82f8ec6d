"""The ``judge`` and ``run`` parts of the ``confirm`` document as lines, in a language.

Here rather than in ``report/`` because the findings model (below the renderers) words the
finding of a failed run with them too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..base.labels import label
from ..ir.shape import format_shape_index

if TYPE_CHECKING:
    from .confirmation import Judge


def judge_says(judge: Judge, topology: str, lang: str = "en") -> str:
    """Which judge answered, in ``lang``: the document's ``judge.says`` said again from its fields."""
    if judge.kind == "chip":
        return label("confirm.judge_chip_ran" if judge.ran else "confirm.judge_chip", lang, device=judge.device)
    from .topologies import is_gpu_platform, platform_of

    gpu = is_gpu_platform(platform_of(topology))
    return label("confirm.judge_gpu" if gpu else "confirm.judge_libtpu", lang, topology=topology)


def _first_line(text: str | None) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[0][:300] if lines else ""


def run_line(run: Mapping[str, Any], lang: str = "en") -> str:
    """The one line saying what the run on the chip did (``run.outcome``, docs/json.md)."""
    outcome = run["outcome"]
    if outcome == "right":
        return label("confirm.run_right", lang, seed=run.get("seed", 0))
    if outcome == "wrong":
        if not run.get("wrong"):
            return label("confirm.run_wrong_tree", lang, why=run.get("why", ""))
        w = max(run["wrong"], key=lambda x: x["max_rel_to_scale"])
        # the output by its ShapeIndex where the document has it (``output {1}``), as every report names it
        output = format_shape_index(tuple(w["shape_index"])) if w.get("shape_index") is not None else w["output"]
        return label("confirm.run_wrong", lang, output=output, dtype=w["dtype"], shape=list(w["shape"]),
                     error=f"{w['max_abs_diff']:.3g}", scale=f"{w['max_rel_to_scale']:.1%}",
                     fraction=f"{w['fraction_wrong']:.1%}")
    if outcome == "halt":
        return label("confirm.run_halt", lang)
    if outcome == "crash":
        return label("confirm.run_crash", lang)
    if outcome == "timeout":
        return label("confirm.run_timeout", lang, seconds=f"{run.get('seconds', 0):g}")
    if outcome == "refused":
        return label("confirm.run_refused", lang, error=_first_line(run.get("error")))
    if outcome == "runtime_error":
        return label("confirm.run_runtime_error", lang, error=_first_line(run.get("error")))
    if outcome == "ran":
        return label("confirm.run_ran", lang, error=_first_line(run.get("reference_error")))
    return label("confirm.run_not_run", lang, why=run.get("why", ""))
