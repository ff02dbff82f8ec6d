"""The real compiler's answer for one module, as plain data (no jax import).

A verdict travels from the worker process to the caller as JSON, so it holds only
strings, numbers and dicts.  ``kind`` is one of:

* ``compiles``    the TPU compiler produced an executable;
* ``e1200``       XLA's ``CompileTimeHostOffloadOutputLocationMismatch`` (``message`` is XLA's
                  exact text, ``start`` the instruction named in "starting from ...");
* ``xla_error``   any other error status from XLA's parser or compiler (``code`` when the
                  text carries one of XLA's catalogue codes, ``stage`` says which step);
* ``crash``       the compiler aborted the process (``check_line`` is the CHECK line);
* ``timeout``     the compile ran past the per-module limit and its process was killed;
* ``unsupported`` the input cannot be handed to the compiler faithfully (e.g. an HLO op
                  that has no StableHLO form: the TPU plugin only takes StableHLO);
* ``unavailable`` there is no real compiler here (``reason`` says why).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("compiles", "e1200", "xla_error", "crash", "timeout", "unsupported", "unavailable")
ERROR_KINDS = frozenset({"e1200", "xla_error", "crash"})
"""Kinds in which the compiler itself rejected the module (what ``--confirm`` counts as an error)."""

_CODE = re.compile(r"\b(E\d{4})\b")
_E1200_START = re.compile(r"starting from ([^\s)]+)\)")
_STATUS = re.compile(r"^([A-Z_]+): ")


@dataclass
class Verdict:
    """One compile's outcome; the fields after ``kind`` are filled where they apply."""

    kind: str
    message: str = ""
    """XLA's error text (status prefix removed), the crash's last stderr lines, or why not."""
    code: str | None = None
    """XLA catalogue code found in the text (``E1200``), or ``None``."""
    status: str | None = None
    """absl status name from the text (``INVALID_ARGUMENT``), or ``None``."""
    start: str | None = None
    """E1200 only: the instruction XLA names in "starting from NAME" (names of the compiled module)."""
    stage: str | None = None
    """Where it stopped: ``parse`` (XLA's HLO parser), ``convert`` (HLO -> StableHLO), ``compile``."""
    check_line: str | None = None
    """crash only: the ``Check failed:`` (or fatal log) line from the compiler's stderr."""
    reason: str | None = None
    """unavailable/unsupported/timeout: a one-line why."""
    topology: str | None = None
    optimized_hlo: str | None = None
    """The optimised module text (``Compiled.as_text()``), when it compiled and was asked for."""
    entry_computation_layout: str | None = None
    """The compiled module's ``entry_computation_layout`` (S(5) marks host memory)."""
    input_formats: list[str] = field(default_factory=list)
    """The executable's parameter layouts as PJRT prints them."""
    output_formats: list[str] = field(default_factory=list)
    output_memory_kinds: list[str] = field(default_factory=list)
    memory: dict[str, int] = field(default_factory=dict)
    """``CompiledMemoryStats`` fields (``argument_size_in_bytes``, ``temp_size_in_bytes``...)."""
    seconds: float | None = None
    """Wall time of the compile inside the worker (not asserted anywhere; for benches)."""

    @property
    def is_error(self) -> bool:
        return self.kind in ERROR_KINDS

    @property
    def decided(self) -> bool:
        """True when the compiler gave an answer (compiled, rejected or crashed)."""
        return self.kind == "compiles" or self.kind in ERROR_KINDS

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Verdict:
        known = {k: v for k, v in data.items() if k in Verdict.__dataclass_fields__}
        return Verdict(**known)

    def summary(self, lang: str = "en") -> str:
        """One line for terminals: ``E1200 (starting from tuple.1)``, ``compiles``... (in ``lang``)."""
        from ..base.labels import in_lang, label

        if self.kind == "compiles":
            return label("oracle.compiles", lang)
        if self.kind == "e1200":
            return label("oracle.e1200", lang, start=self.start)
        if self.kind == "xla_error":
            first = self.message.splitlines()[0] if self.message else ""
            return label("oracle.xla_error", lang, code=self.code or self.status or label("oracle.error", lang),
                         stage=self.stage, message=first)
        if self.kind == "crash":
            return label("oracle.crash", lang, check=self.check_line or label("oracle.aborted", lang))
        return f"{self.kind}: {in_lang(self.reason or self.message, lang)}"


def from_error_text(text: str, stage: str) -> Verdict:
    """Classify an XLA error status text (``INVALID_ARGUMENT: E1200: ...``)."""
    status = None
    m = _STATUS.match(text)
    body = text
    if m:
        status, body = m.group(1), text[m.end():]
    code_m = _CODE.match(body)
    code = code_m.group(1) if code_m else None
    if code == "E1200" or "is returned from the entry computation but the layout for this output is not set to host memory" in body:
        start_m = _E1200_START.search(body)
        return Verdict("e1200", message=body, code="E1200", status=status,
                       start=start_m.group(1) if start_m else None, stage=stage)
    return Verdict("xla_error", message=body, code=code, status=status, stage=stage)


_CHECK = re.compile(r"(Check failed:.*|F\d{4} [\d:.]+\s+\d+ \S+\] .*)")


def crash_line(stderr_text: str) -> str | None:
    """The CHECK (or other fatal log) line of a crashed compile's stderr, the last one wins."""
    found = None
    for line in stderr_text.splitlines():
        m = _CHECK.search(line)
        if m:
            found = line.strip()
    return found
