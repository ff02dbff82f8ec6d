"""What the passes of one pipeline run hand on: the one typed context the runner owns.

XLA's passes talk to each other through the module (and a few shared analyses given to their
constructors).  The model here must also report in the *input's* names and tell the analysis
what a pass decided, so the passes that produce such results write them onto one
:class:`AnalysisContext`, made once per run by the pipeline (:mod:`..pipeline`) and given to
each such pass when it is made; the passes later in the run and the analysis read it there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from ..result import HostOffloadResult
    from .host_offload_legalize.state import LegalizeResult


class AnalysisContext:
    """One pipeline run's shared results, written by the passes that produce them.

    The run's records here and in the passes are written out, not dataclasses (start-up, issue 36:
    each cost ~0.5 ms of every ``offload`` run to make); nothing compares or prints them."""

    original: HloModule | None
    """The input module (HostOffloader reports names and source lines from it); ``None`` for a
    pass run alone, which then reports from a copy taken before it rewrites."""
    left_out: Mapping[str, list[HloInstruction]]
    """Dead code of the input the private copy was made without, by computation
    (:func:`..analysis.private_copy`): the first pass' removal, reported by it."""
    dead: list[HloInstruction]
    """Instructions dead-code elimination removed (every pass that runs it), in removal order."""
    origin: dict[str, str]
    """A clone's or renamed instruction's name -> the input instruction it stands for."""
    inlined_calls: list[str] | None
    """The ``call`` instructions CallInliner replaced by their callee; ``None`` where it did not run."""
    legalized: LegalizeResult | None
    """What HostOffloadLegalize did; ``None`` where it did not run."""
    result: HostOffloadResult | None
    """HostOffloader's result (its verdict, walks, vlog); ``None`` where it did not run."""
    dead_steps: DeadSteps | None
    """The dead steps the copy holds as stand-ins (:mod:`.dead_steps`), until the DCE after inlining
    has reported them; ``None`` where there are none (or no longer)."""

    def __init__(self, original: HloModule | None = None, left_out: Mapping[str, list[HloInstruction]] | None = None,
                 dead: list[HloInstruction] | None = None, origin: dict[str, str] | None = None,
                 inlined_calls: list[str] | None = None, legalized: LegalizeResult | None = None,
                 result: HostOffloadResult | None = None, dead_steps: DeadSteps | None = None) -> None:
        self.original = original
        self.left_out = {} if left_out is None else left_out
        self.dead = [] if dead is None else dead
        self.origin = {} if origin is None else origin
        self.inlined_calls = inlined_calls
        self.legalized = legalized
        self.result = result
        self.dead_steps = dead_steps

    def rename(self, name: str) -> str:
        """The name reported for ``name``: the input instruction's it copies, else its own."""
        return self.origin.get(name, name)

    def record_origin(self, renamed: Mapping[str, str]) -> None:
        """A pass made ``new`` in place of ``old`` for each ``new -> old``: ``new`` reports as
        whatever ``old`` reported as (clones of clones lead back to the input)."""
        origin = self.origin
        origin.update({new: origin.get(old, old) for new, old in renamed.items()})


class DeadStepsInexact(Exception):
    """The run did something with the stand-ins the model does not cover: run on the whole copy."""


class DeadSteps:
    """What the copy leaves out of the dead steps and what it keeps of them (:mod:`.dead_steps`)."""

    computation: str
    """The computation holding the dead calls (the entry)."""
    kept: list[HloInstruction]
    """The entry's instructions the copy keeps, in order (a dead call among them: its stand-in
    takes its place); the others are left out, their names taken: the dead operands and the
    rebuild's dead code.  The kept ones, not the rest: on ``jax_entry`` the copy keeps ~5% of the
    entry (a set of the rest was 32 MiB at 1M instructions).  Emptied once the copy is made
    (only the copy reads it)."""
    computations: set[HloComputation]
    """Input computations not copied (their names and their instructions' stay taken): the
    callees, and computations only dead code calls.  Emptied once the copy is made (the analysis
    does it: only the copy reads it)."""
    stand_ins: dict[HloInstruction, tuple[HloInstruction, tuple[HloInstruction, ...]]]
    """A dead call -> what the copy holds instead: an instruction named and made as its callee's
    root (what stands in its place once inlined), to read the live values the step reads, in the
    rebuild's visiting order.  Made for one copy: it joins that copy (the analysis empties this
    then: only the copy reads it)."""
    calls: dict[str, str]
    """A stand-in's name (the callee root's) -> the call it stands for (CallInliner names it)."""
    removals: dict[str, Sequence[HloInstruction]]
    """A stand-in's name -> the input instructions the DCE after inlining removes in its place,
    in that DCE's post order (its removal order is the reverse).  That DCE takes each out as it
    reports it."""
    released: list[str]
    """Names the inliner gives back when it drops the left-out computations (those still in them)."""
    extra_size: tuple[int, int]
    """(inlined instructions, module instructions) the inliner's bound would count on top of the copy's."""

    def __init__(self, computation: str) -> None:
        self.computation = computation
        self.kept = []
        self.computations = set()
        self.stand_ins = {}
        self.calls = {}
        self.removals = {}
        self.released = []
        self.extra_size = (0, 0)
