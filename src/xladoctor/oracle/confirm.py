"""``--confirm``: the real compiler's verdict beside our prediction, as a :class:`.Confirmation`.

Built the same way for ``offload --confirm`` and ``check --confirm`` (its JSON: docs/json.md,
``confirm``); ``platform`` (``tpu``/``cuda``) and ``topology`` say which compiler judged.
Without the ``[tpu]`` (or, for a GPU target, ``[gpu]``) extra it says why not and how to get it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .confirmation import RUN_FAILURES, Confirmation, Judge

__all__ = ["RUN_FAILURES", "Confirmation", "confirm", "is_error", "judge_of", "run_document"]

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from ..offload.result import HostOffloadResult
    from .comparison import Comparison


def confirm(text: str, module: HloModule, result: HostOffloadResult, topology: str,
            stablehlo: str | None = None, predicted_for: str = "tpu", run: bool = False,
            seed: int = 0) -> Confirmation:
    """Compile ``text`` (or, when given, the same program's ``stablehlo``, which carries
    JAX's memory kinds) and compare.  Its JSON: docs/json.md, ``confirm``.

    ``predicted_for`` is the platform ``result`` was predicted for (``tpu``, ``cuda``); the
    commands predict for the confirming compiler's, and the document says which.  Where a TPU
    is attached (:func:`.run_chip.chip_present`) a TPU target is compiled on that chip and, with
    ``run``, run once on inputs drawn from ``seed`` and compared with the CPU (``run``); elsewhere
    libtpu compiles for ``topology`` as it always has.  ``judge`` says which of the two answered."""
    from .api_version import normalise_api_version

    text, normalised = normalise_api_version(text)  # torch_xla's text, which jaxlib's parser refuses
    doc = _judged(text, module, result, topology, stablehlo, predicted_for, run, seed)
    if normalised and stablehlo is None and doc.available:
        from ..base.labels import label

        doc = replace(doc, normalised=label("confirm.normalised_api_version", n=normalised))
    if stablehlo is not None and doc.available:
        from .api_version import unspecified_in_stablehlo

        unspecified = unspecified_in_stablehlo(stablehlo)
        if unspecified:  # compiled as given (jaxlib accepts it): said, not refused, not changed
            from ..base.labels import label

            doc = replace(doc, warning=label("confirm.stablehlo_api_version_unspecified", n=unspecified))
    return doc


def _judged(text: str, module: HloModule, result: HostOffloadResult, topology: str, stablehlo: str | None,
            predicted_for: str, run: bool, seed: int) -> Confirmation:
    """The chip's verdict where one is attached, else the compile-only client's (:func:`confirm`)."""
    from .run_chip import chip_present
    from .topologies import platform_of

    platform = platform_of(topology)
    if platform == "tpu" and (run or chip_present()):
        doc = _on_chip(text, module, result, stablehlo, predicted_for, run, seed)
        if doc is not None:
            return doc
    doc = _compile_only(text, module, result, topology, stablehlo, predicted_for)
    if run and doc.available:  # the device file was there, the worker found no TPU
        from ..base.labels import label
        from .run_chip import shared_runner

        busy = shared_runner().why_not  # what the worker's jax.devices() said, e.g. another process holds the chip
        doc = replace(doc, run={"outcome": "not_run", "why": label("confirm.no_chip") + (f" ({busy})" if busy else "")})
    return doc


def _on_chip(text: str, module: HloModule, result: HostOffloadResult, stablehlo: str | None,
             predicted_for: str, run: bool, seed: int) -> Confirmation | None:
    """The local chip as the judge (:mod:`.run_chip`); None when its worker finds no TPU."""
    judged = on_chip(text, module, result, stablehlo, run, seed)
    if judged is None:
        return None
    comparison, chip, ran, run_doc = judged
    doc = Confirmation.of(comparison, "tpu", chip["device_kind"], "stablehlo" if stablehlo is not None else "hlo",
                          "tpu", judge_of(chip, ran))
    if run_doc is not None:
        doc = replace(doc, run=run_doc)
    return doc


def on_chip(text: str, module: HloModule, result: HostOffloadResult, stablehlo: str | None, run: bool,
            seed: int) -> tuple[Comparison, dict[str, Any], bool, dict[str, Any] | None] | None:
    """Compile (and with ``run`` run) on the local chip: ``(comparison, chip, ran, run document)``,
    or None when no chip answers.  The chip is this process's own when its jax holds it already
    (:mod:`.run_here`: the Python API in a notebook), else a worker's (:mod:`.run_chip`)."""
    from .comparison import compare, prediction_of
    from .run_chip import shared_runner
    from .run_here import InProcessRunner, process_holds_chip
    from .verdict import Verdict

    runner: Any = InProcessRunner() if process_holds_chip() else shared_runner()
    reply = runner.judge("stablehlo" if stablehlo is not None else "hlo",
                         stablehlo if stablehlo is not None else text, run, seed)
    chip = reply.get("chip")
    if chip is None:
        return None
    verdict = Verdict.from_json(reply["verdict"])
    from ..offload.platform_checks import predict_for_platform

    comparison = compare(prediction_of(predict_for_platform(module, result, "tpu"), module), verdict)
    return comparison, chip, "run" in reply, run_document(reply.get("run"), verdict, module) if run else None


def judge_of(chip: dict[str, Any] | None, ran: bool, topology: str | None = None) -> Judge:
    """Which judge answered: the local chip (compiled, and ran or not) or a compile-only client."""
    from ..base.labels import label
    from .topologies import is_gpu_platform, platform_of

    if chip is not None:
        device = chip["device_kind"]
        says = label("confirm.judge_chip_ran" if ran else "confirm.judge_chip", device=device)
        return Judge("chip", device, ran, says)
    gpu = topology is not None and is_gpu_platform(platform_of(topology))
    says = label("confirm.judge_gpu" if gpu else "confirm.judge_libtpu", topology=topology)
    return Judge("compile_only", None, False, says)


def run_document(run: dict[str, Any] | None, verdict: Any, module: HloModule | None = None) -> dict[str, Any]:
    """The ``run`` object: the outcome of the one run, what differed and the error's text.  With
    the ``module``, each wrong output also carries its ShapeIndex (``shape_index``), the name every
    report gives an output (``output {1}``); the run itself numbers the flattened leaves."""
    from ..base.labels import label

    if run is None:
        return {"outcome": "not_run", "why": label("confirm.not_compiled", verdict=verdict.summary())}
    out: dict[str, Any] = {"outcome": run["outcome"], "cpu": label("confirm.cpu_reference")}
    for key in ("seed", "inputs", "seconds", "check_line", "why"):
        if run.get(key) is not None:
            out[key] = run[key]
    if run.get("error"):
        out["error"] = run["error"][-2000:]
    if run.get("reference_error"):
        out["reference_error"] = run["reference_error"]
    cmp = run.get("compare") or {}
    out["wrong"] = [{"output": w["leaf"], "dtype": w["dtype"], "shape": w["shape"],
                     "fraction_wrong": w["fraction_wrong"], "max_abs_diff": w["max_abs_diff"],
                     "max_rel_to_scale": w["max_rel_to_scale"]} for w in cmp.get("wrong_leaves", [])]
    if module is not None and out["wrong"]:
        indices = [list(index) for index, _ in module.entry_layout().result.leaves()]
        for w in out["wrong"]:
            if 0 <= w["output"] < len(indices):
                w["shape_index"] = indices[w["output"]]
    if cmp.get("why"):
        out["why"] = cmp["why"]
    return out


def _compile_only(text: str, module: HloModule, result: HostOffloadResult, topology: str,
                  stablehlo: str | None, predicted_for: str) -> Confirmation:
    """libtpu (or XLA:GPU) compile-only for ``topology``: what ``--confirm`` did before chips."""
    from .availability import install_hint
    from .comparison import compare, prediction_of
    from .shared import shared_worker
    from .topologies import is_gpu_platform, platform_of

    worker = shared_worker(topology)
    platform = platform_of(topology)
    why = worker.unavailable
    if why is not None:
        return Confirmation.unavailable(why, install_hint(topology), platform, topology)
    # The optimised module is kept out of reports (large; --json users can compile themselves).
    verdict = (worker.compile_stablehlo(stablehlo, want_text=False) if stablehlo is not None
               else worker.compile_hlo(text, want_text=False))
    # The GPU compiler checks more after HostOffloader than libtpu: its prediction includes that.
    from ..offload.platform_checks import predict_for_platform

    comparison = compare(prediction_of(predict_for_platform(module, result, platform), module), verdict)
    return Confirmation.of(comparison, platform, topology, "stablehlo" if stablehlo is not None else "hlo",
                           "cuda" if is_gpu_platform(predicted_for) else "tpu", judge_of(None, False, topology))


def is_error(confirmation: Confirmation | None) -> bool:
    """Did the real compiler reject the module (E1200, another error, a crash), or did its run
    on the chip fail (wrong data, a halt or crash, a refusal, a runtime error)?"""
    return confirmation is not None and confirmation.is_error
