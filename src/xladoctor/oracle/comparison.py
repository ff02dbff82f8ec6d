"""Our prediction against the real compiler's verdict: agree, disagree, or cannot tell.

Agreement is decided on the verdict kind and, for E1200, on the start instruction under
the renaming rule of :mod:`.naming`.  The prediction is reduced to the same kinds the
compiler can give: ``compiles`` (no error predicted), ``e1200``, ``crash`` (a predicted
CHECK failure of the pass) or ``xla_error`` (another status of the pass).  Verdicts that
are not the compiler's answer (``unavailable``, ``unsupported``, ``timeout``) give
``agree=None``.  The campaign in ``bench/`` calls :func:`compare` as the CLI does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..base.labels import in_lang, label
from .naming import same_instruction
from .verdict import Verdict

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from ..offload.result import HostOffloadResult


@dataclass(frozen=True)
class Prediction:
    """xladoctor's answer in the oracle's terms."""

    kind: str
    start: str | None = None
    start_opcode: str | None = None
    parameter_number: int | None = None
    message: str = ""

    def summary(self, lang: str = "en") -> str:
        if self.kind == "e1200":
            return label("oracle.e1200", lang, start=self.start)
        if self.kind == "compiles":
            return label("oracle.compiles_predicted", lang)
        return label("oracle.predicted_crash" if self.kind == "crash" else "oracle.predicted_error", lang,
                     message=in_lang(self.message, lang))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "start": self.start, "start_opcode": self.start_opcode,
                "message": self.message}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Prediction:
        return Prediction(data["kind"], data.get("start"), data.get("start_opcode"), message=data.get("message", ""))


@dataclass(frozen=True)
class Comparison:
    predicted: Prediction
    verdict: Verdict
    agree: bool | None
    """``None`` when the compiler gave no answer to compare with."""
    reason: str

    def to_json(self) -> dict[str, Any]:
        """With ``platform`` (``tpu``/``cuda``: which compiler judged) when the verdict names its target."""
        doc: dict[str, Any] = {}
        if self.verdict.topology:
            from .topologies import platform_of

            doc["platform"] = platform_of(self.verdict.topology)
        return {**doc, "agree": self.agree, "reason": self.reason, "predicted": self.predicted.to_json(),
                "verdict": self.verdict.to_json()}


def prediction_of(result: HostOffloadResult, module: HloModule | None = None) -> Prediction:
    """Reduce a host-offload analysis to the kinds a compile can end in."""
    if result.outcome == "ok":
        return Prediction("compiles")
    if result.outcome == "E1200" and result.error is not None:
        start = result.error.start
        opcode = number = None
        instr = module.get_instruction(start) if module is not None else None
        if instr is not None:
            opcode = instr.opcode.value
            number = instr.parameter_number
        return Prediction("e1200", start, opcode, number, result.error.message)
    failure = next((f for f in result.failures if f.first), result.failures[0] if result.failures else None)
    if failure is None:
        return Prediction("xla_error", message=label("oracle.analysis_failed"))
    if failure.status == "ValueError":  # refused at the call: the compile itself succeeds
        return Prediction("compiles")
    return Prediction("crash" if failure.status == "CHECK" else "xla_error", message=failure.message)


def compare(predicted: Prediction, verdict: Verdict) -> Comparison:
    if not verdict.decided:
        agree = None
    elif predicted.kind != verdict.kind:
        agree = False
    else:
        agree = verdict.kind != "e1200" or same_instruction(predicted.start, verdict.start, predicted.start_opcode,
                                                            predicted.parameter_number)
    return Comparison(predicted, verdict, agree, why(predicted, verdict, agree))


def why(predicted: Prediction, verdict: Verdict, agree: bool | None, lang: str = "en") -> str:
    """Why prediction and verdict (dis)agree, in ``lang``: ``agree`` is :func:`compare`'s answer,
    so the ``confirm`` document's reason can be said again from its JSON in the reader's language."""
    if agree is None:
        return label("oracle.no_verdict", lang, kind=verdict.kind, reason=in_lang(verdict.reason or verdict.message, lang))
    if predicted.kind != verdict.kind:
        return label("oracle.different_verdict", lang, predicted=predicted.summary(lang), verdict=verdict.summary(lang))
    if not agree:
        return label("oracle.different_start", lang, predicted=predicted.start, xla=verdict.start)
    return (label("oracle.same_start", lang, predicted=predicted.start, xla=verdict.start)
            if verdict.kind == "e1200" else label("oracle.same_verdict", lang))
