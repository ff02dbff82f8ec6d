"""The state every pass run has, and the one way a pass records a failure.

XLA's passes (``HostOffloadLegalize``, ``HostOffloader``) are objects whose members live
for one ``Run``: the module being rewritten, its call graph, what the pass has seen.
Here each run is an object too (:class:`~.host_offload_legalize.state.LegalizeState`,
:class:`~.host_offloader.state.OffloaderRun`), built on two shared pieces:

* :class:`PassState`: the module being rewritten (a private copy), its entry and call
  graph, and ``rn``: the name a clone is reported under (the input instruction it copies);
* :class:`PassRecorder`: records a returned status or a CHECK crash as a
  :class:`~..result.PassFailure`, named as in the input module.
"""

from __future__ import annotations

from collections.abc import Callable

from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ..kinds import Status
from ..result import PassFailure
from .host_offload_utils import CallGraph, XlaCheckFailure, XlaStatusError


class PassState:
    """What one run of a pass reads about the module it rewrites."""

    def __init__(self, module: HloModule, rename: Callable[[str], str] | None = None):
        self.module = module
        self.entry = module.entry_computation()
        self.graph = CallGraph(module)
        self._rename = rename

    def rn(self, name: str) -> str:
        """The name reported: the input module's (a clone made by a pre-pass reports what it copies)."""
        return self._rename(name) if self._rename is not None else name


class PassRecorder:
    """Where a pass' failures go: ``failures`` (the result's list), as :class:`~..result.PassFailure`."""

    def __init__(self, state: PassState, failures: list[PassFailure]):
        self.state = state
        self.failures = failures

    def is_first_failure(self) -> bool:
        """Whether a failure recorded now is what XLA reports (a pass that goes on decides)."""
        return False

    def fail(self, status: Status, message: str, instr: HloInstruction | None) -> None:
        first = self.is_first_failure()
        name = self.state.rn(instr.name) if instr is not None else None
        self.failures.append(PassFailure(status, message, name, first))

    def fail_exc(self, exc: Exception) -> None:
        if isinstance(exc, XlaCheckFailure):
            self.fail(Status.CHECK, exc.message, exc.instruction)
        elif isinstance(exc, XlaStatusError):
            self.fail(exc.status, exc.message, exc.instruction)
        else:  # pragma: no cover - programming error, surfaced as-is
            raise exc
