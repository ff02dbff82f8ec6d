"""The ``confirm`` document as text: prediction and verdict side by side, then AGREE / DISAGREE.

One rendering for ``offload --confirm``, ``check --confirm`` and the HTML report.
"""

from __future__ import annotations

from typing import Any


def confirm_lines(doc: dict[str, Any] | None, indent: str = "") -> list[str]:
    """Prediction and verdict side by side, then AGREE / DISAGREE."""
    if doc is None:
        return []
    if not doc.get("available"):
        return [f"{indent}real compiler: not run ({doc['reason']})"]
    from ..oracle.comparison import Prediction
    from ..oracle.verdict import Verdict

    v = Verdict.from_json(doc["verdict"])
    lines = [f"{indent}confirm with the real TPU compiler ({doc['topology']}, from {doc['input']} text):",
             f"{indent}  xladoctor predicts   {Prediction.from_json(doc['predicted']).summary()}",
             f"{indent}  TPU compiler says    {v.summary()}"]
    if v.kind == "crash" and v.check_line:
        lines.append(f"{indent}    {v.check_line}")
    if doc["agree"] is True:
        lines.append(f"{indent}  agree: {doc['reason']}")
    elif doc["agree"] is False:
        lines.append(f"{indent}  DISAGREE: {doc['reason']}")
    else:
        lines.append(f"{indent}  cannot compare: {doc['reason']}")
    return lines
