"""The ``confirm`` document as text: prediction and verdict side by side, then AGREE / DISAGREE.

One rendering for ``offload --confirm``, ``check --confirm`` and the HTML report.
"""

from __future__ import annotations

from typing import Any

from ..base.labels import in_lang, label


def confirm_lines(doc: dict[str, Any] | None, indent: str = "", lang: str = "en") -> list[str]:
    """Prediction and verdict side by side, then AGREE / DISAGREE, in ``lang`` (the compiler's words as it wrote them)."""
    from ..oracle.run_text import judge_says, run_line

    if doc is None:
        return []
    if not doc.get("available"):
        return [indent + label("confirm.not_run", lang, reason=in_lang(doc["reason"], lang))]
    from ..oracle.comparison import Prediction, why
    from ..oracle.verdict import Verdict

    v = Verdict.from_json(doc["verdict"])
    compiler = "GPU" if doc.get("platform") == "cuda" else "TPU"
    prediction = Prediction.from_json(doc["predicted"])
    summary = prediction.summary(lang)
    predicted = (label("confirm.predicts_for", lang, summary=summary,
                       compiler="GPU" if doc["predicted_for"] == "cuda" else "TPU")
                 if "predicted_for" in doc else label("confirm.predicts", lang, summary=summary))
    lines = [indent + label("confirm.heading", lang, compiler=compiler, topology=doc["topology"], input=doc["input"]),
             indent + "  " + predicted,
             indent + "  " + label("confirm.compiler_says", lang, compiler=compiler, summary=v.summary(lang))]
    if doc.get("normalised"):  # what was changed before the compiler read the text (torch_xla's api_version)
        lines.insert(1, indent + "  " + label("confirm.normalised", lang, what=in_lang(doc["normalised"], lang)))
    if "judge" in doc:
        lines.insert(1, indent + "  " + label("confirm.judge", lang, says=judge_says(doc["judge"], doc["topology"], lang)))
    if v.kind == "crash" and v.check_line:
        lines.append(f"{indent}    {v.check_line}")
    if "run" in doc:
        lines.append(indent + "  " + run_line(doc["run"], lang))
        if doc["run"].get("check_line"):
            lines.append(f"{indent}    {doc['run']['check_line']}")
    key = {True: "confirm.agree", False: "confirm.disagree"}.get(doc["agree"], "confirm.cannot_compare")
    # English: the document's own reason, byte for byte; another language: the same reason said again
    reason = doc["reason"] if lang == "en" else why(prediction, v, doc["agree"], lang)
    lines.append(indent + "  " + label(key, lang, reason=reason))
    return lines

