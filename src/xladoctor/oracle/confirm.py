"""The ``confirm`` document: the real compiler's verdict beside our prediction, JSON-ready.

Built the same way for ``offload --confirm`` and ``check --confirm`` (docs/json.md,
``confirm``); ``platform`` (``tpu``/``cuda``) and ``topology`` say which compiler judged.
Without the ``[tpu]`` (or, for a GPU target, ``[gpu]``) extra it says why not and how to get it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from ..offload.result import HostOffloadResult


def confirm(text: str, module: HloModule, result: HostOffloadResult, topology: str,
            stablehlo: str | None = None, predicted_for: str = "tpu") -> dict[str, Any]:
    """Compile ``text`` (or, when given, the same program's ``stablehlo``, which carries
    JAX's memory kinds) and compare.  JSON-ready: see docs/json.md, ``confirm``.

    ``predicted_for`` is the platform ``result`` was predicted for (``tpu``, ``cuda``); the
    commands predict for the confirming compiler's, and the document says which."""
    from .availability import install_hint
    from .comparison import compare, prediction_of
    from .shared import shared_worker
    from .topologies import is_gpu_platform, platform_of

    worker = shared_worker(topology)
    platform = platform_of(topology)
    why = worker.unavailable
    if why is not None:
        return {"available": False, "reason": why, "install": install_hint(topology), "platform": platform,
                "topology": topology}
    # The optimised module is kept out of reports (large; --json users can compile themselves).
    verdict = (worker.compile_stablehlo(stablehlo, want_text=False) if stablehlo is not None
               else worker.compile_hlo(text, want_text=False))
    # The GPU compiler checks more after HostOffloader than libtpu: its prediction includes that.
    from ..offload.platform_checks import predict_for_platform

    comparison = compare(prediction_of(predict_for_platform(module, result, platform), module), verdict)
    return {"available": True, "platform": platform, "topology": topology, "input": "stablehlo" if stablehlo is not None else "hlo",
            **comparison.to_json(), "predicted_for": "cuda" if is_gpu_platform(predicted_for) else "tpu"}


def is_error(doc: dict[str, Any] | None) -> bool:
    """Did the real compiler reject the module (E1200, another error, a crash)?"""
    from .verdict import ERROR_KINDS

    return bool(doc and doc.get("available") and doc["verdict"]["kind"] in ERROR_KINDS)


def confirm_in_lang(doc: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    """The document with its ``reason`` (xladoctor's own sentence) said in ``lang``; the compiler's
    words stay as it wrote them.  English: ``doc`` itself, unchanged."""
    if doc is None or lang == "en":
        return doc
    from ..labels import in_lang

    if not doc.get("available"):
        return {**doc, "reason": in_lang(doc["reason"], lang)}
    from .comparison import Prediction, why
    from .verdict import Verdict

    return {**doc, "reason": why(Prediction.from_json(doc["predicted"]), Verdict.from_json(doc["verdict"]),
                                 doc["agree"], lang)}
