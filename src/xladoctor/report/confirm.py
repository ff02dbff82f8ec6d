"""The ``confirm`` document as text: prediction and verdict side by side, then AGREE / DISAGREE.

One rendering for ``offload --confirm``, ``check --confirm`` and the HTML report.
"""

from __future__ import annotations

from typing import Any

from ..labels import label


def confirm_lines(doc: dict[str, Any] | None, indent: str = "") -> list[str]:
    """Prediction and verdict side by side, then AGREE / DISAGREE."""
    if doc is None:
        return []
    if not doc.get("available"):
        return [indent + label("confirm.not_run", reason=doc["reason"])]
    from ..oracle.comparison import Prediction
    from ..oracle.verdict import Verdict

    v = Verdict.from_json(doc["verdict"])
    compiler = "GPU" if doc.get("platform") == "cuda" else "TPU"
    summary = Prediction.from_json(doc["predicted"]).summary()
    predicted = (label("confirm.predicts_for", summary=summary, compiler="GPU" if doc["predicted_for"] == "cuda" else "TPU")
                 if "predicted_for" in doc else label("confirm.predicts", summary=summary))
    lines = [indent + label("confirm.heading", compiler=compiler, topology=doc["topology"], input=doc["input"]),
             indent + "  " + predicted,
             indent + "  " + label("confirm.compiler_says", compiler=compiler, summary=v.summary())]
    if v.kind == "crash" and v.check_line:
        lines.append(f"{indent}    {v.check_line}")
    key = {True: "confirm.agree", False: "confirm.disagree"}.get(doc["agree"], "confirm.cannot_compare")
    lines.append(indent + "  " + label(key, reason=doc["reason"]))
    return lines
