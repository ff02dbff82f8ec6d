"""The ``--confirm`` result as a value: the real compiler's verdict beside our prediction.

:func:`.confirm.confirm` returns a :class:`Confirmation`; the findings model
(``findings/from_offload.py``) and the text, HTML and JSON views read its attributes, never
the JSON object.  Its JSON (docs/json.md, the confirm object) is written once, where a command
builds its document, as a :class:`ConfirmObject`: that JSON object carrying the value it was
written from, as ``diagnostics`` carries its Report (findings/wire.py).  A document that crossed
a process (``check``'s workers) or came from a file is read back here, once, by
:meth:`Confirmation.from_json` (``wire.load_document`` calls :func:`load_confirm`).

The ``run`` object (``--confirm --run``) stays the JSON mapping the chip's worker measured: a
record of a run, read only by :func:`.run_text.run_line` and :attr:`Confirmation.run_outcome`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .comparison import Comparison, Prediction, why
from .verdict import ERROR_KINDS, Verdict

RUN_FAILURES = frozenset({"wrong", "halt", "crash", "timeout", "refused", "runtime_error"})
"""Run outcomes that are a failure of the program on the chip (``right``, ``ran``, ``not_run`` are not)."""


@dataclass(frozen=True)
class Judge:
    """Which judge answered: a TPU attached here (``chip``) or a compile-only client."""

    kind: str
    """``chip`` or ``compile_only``."""
    device: str | None
    ran: bool
    says: str
    """In words, in English (the JSON's ``judge.says``); :meth:`says_in` says it in a language."""

    def says_in(self, topology: str, lang: str = "en") -> str:
        from .run_text import judge_says

        return judge_says(self, topology, lang)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "device": self.device, "ran": self.ran, "says": self.says}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Judge:
        return Judge(str(data["kind"]), data.get("device"), bool(data.get("ran")), str(data.get("says", "")))


@dataclass(frozen=True)
class Confirmation:
    """What ``--confirm`` found: the compiler could not run here (``available`` false: ``reason``,
    ``install``), or its verdict, our prediction and whether they agree (docs/json.md)."""

    available: bool
    platform: str | None
    """``tpu`` (libtpu or a chip) or ``cuda`` (XLA:GPU compile-only)."""
    topology: str | None
    reason: str
    """Why not available, or why prediction and verdict (dis)agree; in the language asked (:meth:`in_lang`)."""
    install: str | None = None
    input: str | None = None
    """``hlo`` or ``stablehlo``: what was compiled."""
    predicted: Prediction | None = None
    verdict: Verdict | None = None
    agree: bool | None = None
    predicted_for: str | None = None
    judge: Judge | None = None
    run: Mapping[str, Any] | None = None
    """``--run``'s record (docs/json.md, the run object), as measured."""
    normalised: str | None = None
    """What was changed in the text before the compiler read it (torch_xla's ``api_version``,
    :mod:`.api_version`), in English; None when nothing was."""
    warning: str | None = None
    """What in the compiled input the reader should know of though the compiler took it (a
    StableHLO custom call's ``api_version = 0``, :mod:`.api_version`), in English; None when nothing."""

    @staticmethod
    def unavailable(reason: str, install: str | None, platform: str | None, topology: str | None) -> Confirmation:
        return Confirmation(False, platform, topology, reason, install=install)

    @staticmethod
    def of(comparison: Comparison, platform: str | None, topology: str | None, input: str | None = None,
           predicted_for: str | None = None, judge: Judge | None = None) -> Confirmation:
        """A comparison as judged on ``platform`` (the verdict's own target wins where it names one)."""
        if comparison.verdict.topology:
            from .topologies import platform_of

            platform = platform_of(comparison.verdict.topology)
        return Confirmation(True, platform, topology, comparison.reason, input=input, predicted=comparison.predicted,
                            verdict=comparison.verdict, agree=comparison.agree, predicted_for=predicted_for,
                            judge=judge)

    @property
    def run_outcome(self) -> str | None:
        return None if self.run is None else self.run.get("outcome")

    @property
    def run_failed(self) -> bool:
        """Did the run on the chip fail (wrong data, a halt or crash, a refusal, a runtime error)?"""
        return self.run_outcome in RUN_FAILURES

    @property
    def is_error(self) -> bool:
        """Did the real compiler reject the module (E1200, another error, a crash), or its run fail?"""
        return self.available and ((self.verdict is not None and self.verdict.kind in ERROR_KINDS) or self.run_failed)

    def in_lang(self, lang: str) -> Confirmation:
        """The same with ``reason`` (xladoctor's own sentence) said in ``lang``; the compiler's
        words stay as it wrote them.  English: ``self``."""
        if lang == "en":
            return self
        if not self.available or self.predicted is None or self.verdict is None:
            from ..base.labels import in_lang

            return replace(self, reason=in_lang(self.reason, lang))
        return replace(self, reason=why(self.predicted, self.verdict, self.agree, lang))

    def to_json(self) -> dict[str, Any]:
        """The confirm object (docs/json.md), keys in the order every release has written them."""
        if not self.available:
            return {"available": False, "reason": self.reason, "install": self.install, "platform": self.platform,
                    "topology": self.topology}
        doc: dict[str, Any] = {"available": True, "platform": self.platform, "topology": self.topology}
        if self.input is not None:
            doc["input"] = self.input
        doc["agree"], doc["reason"] = self.agree, self.reason
        doc["predicted"] = self.predicted.to_json() if self.predicted is not None else None
        doc["verdict"] = self.verdict.to_json() if self.verdict is not None else None
        if self.predicted_for is not None:
            doc["predicted_for"] = self.predicted_for
        if self.judge is not None:
            doc["judge"] = self.judge.to_json()
        if self.run is not None:
            doc["run"] = dict(self.run)
        if self.normalised is not None:
            doc["normalised"] = self.normalised
        if self.warning is not None:
            doc["warning"] = self.warning
        return doc

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Confirmation:
        """The oracle's own reader of a confirm object that crossed a process or came from a file."""
        if not data.get("available"):
            return Confirmation.unavailable(data.get("reason") or "", data.get("install"), data.get("platform"),
                                            data.get("topology"))
        predicted, verdict, judge = data.get("predicted"), data.get("verdict"), data.get("judge")
        return Confirmation(True, data.get("platform"), data.get("topology"), data.get("reason") or "",
                            input=data.get("input"),
                            predicted=Prediction.from_json(dict(predicted)) if isinstance(predicted, Mapping) else None,
                            verdict=Verdict.from_json(dict(verdict)) if isinstance(verdict, Mapping) else None,
                            agree=data.get("agree"), predicted_for=data.get("predicted_for"),
                            judge=Judge.from_json(judge) if isinstance(judge, Mapping) else None,
                            run=data.get("run") if isinstance(data.get("run"), Mapping) else None,
                            normalised=data.get("normalised"), warning=data.get("warning"))


class ConfirmObject(dict[str, Any]):
    """A document's ``confirm`` JSON object with the :class:`Confirmation` it was written from."""

    __slots__ = ("confirmation",)

    def __init__(self, confirmation: Confirmation, doc: Mapping[str, Any] | None = None):
        super().__init__(confirmation.to_json() if doc is None else doc)
        self.confirmation = confirmation

    def __reduce__(self) -> Any:
        # What crosses a process boundary is the JSON only.
        return (dict, (dict(self),))


def load_confirm(value: Any) -> Any:
    """A document's ``confirm`` value typed (read once at the process boundary); others unchanged."""
    if isinstance(value, ConfirmObject) or not isinstance(value, Mapping) or "available" not in value:
        return value
    return ConfirmObject(Confirmation.from_json(value), value)


def confirmation_of(value: Any) -> Confirmation | None:
    """The typed confirmation of a document's ``confirm`` value (None where there is none).  A
    plain JSON object here is a document no ``load_document`` typed: a bug of the caller."""
    if value is None or isinstance(value, Confirmation):
        return value
    if isinstance(value, ConfirmObject):
        return value.confirmation
    raise TypeError("a confirm object read without load_document (findings/wire.py)")
