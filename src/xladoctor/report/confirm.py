"""The ``--confirm`` result as text: prediction and verdict side by side, then AGREE / DISAGREE.

One rendering for ``offload --confirm``, ``check --confirm`` and the HTML report, drawn from the
typed :class:`~xladoctor.oracle.confirmation.Confirmation` (a document's ``confirm`` object
carries it: :func:`~xladoctor.oracle.confirmation.confirmation_of`); no JSON is read here.
"""

from __future__ import annotations

from ..base.labels import in_lang, label

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from ..oracle.confirmation import Confirmation


def confirm_lines(confirmation: Confirmation | None, indent: str = "", lang: str = "en") -> list[str]:
    """Prediction and verdict side by side, then AGREE / DISAGREE, in ``lang`` (the compiler's words as it wrote them)."""
    from ..oracle.run_text import run_line

    c = confirmation
    if c is None:
        return []
    if not c.available or c.predicted is None or c.verdict is None:
        return [indent + label("confirm.not_run", lang, reason=in_lang(c.reason, lang))]
    from ..oracle.comparison import why

    v, prediction = c.verdict, c.predicted
    compiler = "GPU" if c.platform == "cuda" else "TPU"
    summary = prediction.summary(lang)
    predicted = (label("confirm.predicts_for", lang, summary=summary,
                       compiler="GPU" if c.predicted_for == "cuda" else "TPU")
                 if c.predicted_for is not None else label("confirm.predicts", lang, summary=summary))
    lines = [indent + label("confirm.heading", lang, compiler=compiler, topology=c.topology, input=c.input),
             indent + "  " + predicted,
             indent + "  " + label("confirm.compiler_says", lang, compiler=compiler, summary=v.summary(lang))]
    if c.normalised:  # what was changed before the compiler read the text (torch_xla's api_version)
        lines.insert(1, indent + "  " + label("confirm.normalised", lang, what=in_lang(c.normalised, lang)))
    if c.warning:  # what the compiler took as given but the reader should know (a StableHLO's api_version 0)
        lines.insert(1, indent + "  " + label("confirm.warning", lang, what=in_lang(c.warning, lang)))
    if c.judge is not None:
        lines.insert(1, indent + "  " + label("confirm.judge", lang, says=c.judge.says_in(c.topology or "", lang)))
    if v.kind == "crash" and v.check_line:
        lines.append(f"{indent}    {v.check_line}")
    if c.run is not None:
        lines.append(indent + "  " + run_line(c.run, lang))
        if c.run.get("check_line"):
            lines.append(f"{indent}    {c.run['check_line']}")
    key = "confirm.cannot_compare" if c.agree is None else "confirm.agree" if c.agree else "confirm.disagree"
    # English: the result's own reason, byte for byte; another language: the same reason said again
    reason = c.reason if lang == "en" else why(prediction, v, c.agree, lang)
    lines.append(indent + "  " + label(key, lang, reason=reason))
    return lines

