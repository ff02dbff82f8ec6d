"""The closed vocabularies of the host-offload analysis, as enums.

Why enums: the pass' decisions (what a dynamic-update-slice became, why an
instruction runs on host, what kind of instruction was inserted) are read by the
reports, the JSON and the tests; a misspelt string would silently never match.
Each enum is ``str``-valued and prints as its value, so the JSON and the text of
:mod:`.result` are the strings they always were.
"""

from __future__ import annotations

from enum import Enum


class TextEnum(str, Enum):
    """A ``str`` enum that prints (``str``, f-strings, JSON) as its value, on every Python ≥3.10."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return str(self.value).__format__(spec)


class Status(TextEnum):
    """How the pass fails: an ``absl::Status`` code it returns, or ``CHECK`` (the process aborts)."""

    CHECK = "CHECK"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    INTERNAL = "INTERNAL"
    UNIMPLEMENTED = "UNIMPLEMENTED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    CALL_REFUSED = "ValueError"
    """Not the compiler: the program compiles, and JAX refuses every call of it before it runs
    (a ``ValueError`` at the call, e.g. an argument whose layout the executable cannot take)."""


class FirstKind(TextEnum):
    """What stopped XLA first: an E1200 or another failure (``HostOffloadResult.outcome``)."""

    E1200 = "E1200"
    FAILURE = "failure"


class HostComputeReason(TextEnum):
    """Why ``SetHostComputeFrontendAttribute`` marked an instruction ``_xla_compute_type="host"``."""

    WALK = "walk"
    """A device op met host data during ``WalkDownHostMemoryOffloadPaths``."""
    DUS_HOST_TO_DEVICE = "dus-host-to-device"
    DUS_HOST_TO_HOST = "dus-host-to-host"


class InsertedKind(TextEnum):
    """What an instruction the pass adds is for."""

    COPY_TO_HOST = "copy-to-host"
    COPY_TO_DEVICE = "copy-to-device"
    OUTPUT_COPY_TO_HOST = "output-copy-to-host"
    ALLOCATE_BUFFER = "allocate-buffer"
    SCHEDULING_COPY = "scheduling-copy"
    DYNAMIC_SLICE = "dynamic-slice"


class DusAction(TextEnum):
    """How ``HandleDynamicUpdateSlices`` resolved one dynamic-update-slice."""

    NONE = "none"
    HOST_COMPUTE = "host-compute"
    HOST_COMPUTE_HOST_OUTPUT = "host-compute+host-output"
    HOST_OUTPUT = "host-output"
    ALLOCATE_BUFFER = "allocate-buffer"
    FAILED = "failed"


class WalkOrigin(TextEnum):
    """What started a walk; the walk's ``origin`` text is ``"<kind> <instruction>"``."""

    MOVE_TO_HOST = "move-to-host"
    INPUT_STREAMING = "input-streaming"

    def of(self, name: str) -> str:
        return f"{self.value} {name}"


class MismatchContext(TextEnum):
    """How XLA's E1200 message names the walk: ``starting from X`` or ``custom call "X"``."""

    STARTING_FROM = "starting from"
    CUSTOM_CALL = "custom call"


class LegalizePhase(TextEnum):
    """Where HostOffloadLegalize gave up on a chain (see ``LegalizeNote.phase``)."""

    WALK_UP = "walk-up"
    WALK_DOWN = "walk-down"
    CONSUMER = "consumer"
    MOVE_DOWN = "move-down"


class CopyMove(TextEnum):
    """What HostOffloadLegalize did with one layout-changing copy."""

    MOVED_DOWN = "moved-down"
    MOVED_UP = "moved-up"
    KEPT = "kept"
