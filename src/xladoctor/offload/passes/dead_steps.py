"""Dead steps: ``call``\\ s of the entry nothing live reads, left out of the private copy with their effects kept.

Why: jax's repeated programs (``bench/real_modules.py``'s ``jax_entry``: one training step per copy,
all but the last copy's results unused) keep most of their dead code alive until CallInliner has
run: :mod:`.hlo_dce` keeps a ``call`` (its callee might have side effects), and with it everything
the call reads.  On ``jax_entry`` at 100k instructions that was 79k instructions copied, rebuilt,
swept by four passes, inlined and removed again, for 18 that reach HostOffloadLegalize.

What the pipeline does with such a step, and what its outputs read of it, is small and is kept
here instead of the step itself (:func:`find_dead_steps`, on the input, nothing copied):

* the rebuild's post order (:func:`.stablehlo_rebuild.rebuild_as_compiled`) visits the live values
  the step reads when it reaches the dead call: in the call's place the copy holds one stand-in
  instruction reading those values in the order that walk first reaches them, so the live part's
  order (and every live value's users, by that order) is the same;
* the stand-in is named and made as the callee's root, which is what stands in the call's place
  once CallInliner has moved the callee's body there (the walks after inlining, from that root
  through the body, must first reach the live values in the same order); CallInliner names the
  call in ``inlined_calls`` when it reaches the stand-in;
* the DCE after inlining removes the step (callee body and dead operands) in an order the report
  reads (dead MoveToHosts are ``dropped_offloads``): the stand-in is removed in their place and
  reported as :attr:`~.analysis_context.DeadSteps.removals` lists them, in that DCE's post order;
* names: the left-out instructions' names stay taken; those the inliner gives back when it drops
  the callees (their parameters') and the computations only dead code calls (all of theirs) are
  given back then (:attr:`~.analysis_context.DeadSteps.released`), as in a full run;
* the inliner's size bound counts what the copy leaves out (:attr:`~.analysis_context.DeadSteps.extra_size`).

Only steps whose effects are exactly these are left out: the callee is called once, has no calls,
custom calls, tuples or control edges and no dead code, and reads every parameter; the call reads
dead values only; the dead operands hold no tuple, no call and no custom call but placement
annotations and ``Sharding`` markers on dead values, none of which two annotations share (the
annotation CSE could merge them); the live values they read are no custom call, call, tuple,
get-tuple-element or control flow, nor are their live users but tuples and get-tuple-elements (the
passes before that DCE take those off their operands' users, moving the last user into the slot:
where that user is dead, the live users' order would depend on the dead code).
A computation only such dead code calls, with no calls, custom calls or dead code of its own,
is left out whole.  What the run itself decides -- that no live instruction
dies in the same DCE, and the inliner's bound -- is checked when it happens; where it does not
hold, :class:`~.analysis_context.DeadStepsInexact` is raised and the analysis runs again on the whole copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ...base.sized_sets import add_sized
from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CALL, CUSTOM_CALL, GET_TUPLE_ELEMENT, PARAMETER, TUPLE, HloOpcode
from ...ir.operands import WideOperands, operands_of
from ...ir.packed_fields import USERS
from ..annotations import is_annotation
from .analysis_context import DeadSteps
from .call_inliner import is_inlineable_call
from .hlo_dce import SIDE_EFFECTING, close_dead, dead_code_counted, removable, removable_custom_call

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_SIDE_EFFECTING: Final = SIDE_EFFECTING
_REWIRED: Final = frozenset({HloOpcode.TUPLE, HloOpcode.GET_TUPLE_ELEMENT, HloOpcode.CUSTOM_CALL, HloOpcode.CALL,
                      HloOpcode.CONDITIONAL, HloOpcode.WHILE, HloOpcode.ASYNC_START, HloOpcode.ASYNC_DONE})
"""What the passes before the DCE after inlining remove, replace or rewire (see the module doc)."""
_REWIRED_DEAD: Final = _REWIRED - {HloOpcode.CUSTOM_CALL}  # dead custom calls: checked one by one
_DETACHED: Final = _REWIRED - {HloOpcode.TUPLE, HloOpcode.GET_TUPLE_ELEMENT}
"""A live value's users those passes take off its users (a tuple or get-tuple-element is left to a DCE)."""
_MARKER: Final = "Sharding"
_NOT_IN_STEP: Final = (_REWIRED | _SIDE_EFFECTING) - {PARAMETER}
"""A callee instruction of these kinds keeps the step (custom calls among them: see the module doc)."""
_NO_ASYNC: Final[set[HloComputation]] = set()
"""The entry is no async computation (:func:`.call_inliner.is_inlineable_call`'s second argument)."""


def find_dead_steps(module: HloModule, left_out: Mapping[str, list[HloInstruction]],
                    dead_users: dict[HloInstruction, int],
                    dead_code_of: Callable[[HloComputation], list[HloInstruction]]) -> DeadSteps | None:
    """The dead steps of ``module``'s entry (see the module doc), or None where there are none.

    ``left_out``: the dead code the copy leaves out already, by computation
    (:func:`..analysis.private_copy`); the entry must be among them (the rebuild changes nothing
    there before its dead-code removal); the other computations need not be yet (those left out
    whole are never searched): ``dead_code_of(comp)`` is what the copy leaves out of ``comp``
    (``[]`` where it is copied whole or left as it is).
    ``dead_users``: the entry's count of dead users per instruction, as finding its dead code left
    it (:func:`.hlo_dce.dead_code_counted`); it is used up."""
    entry = module.entry
    if entry is None or entry.name not in left_out:
        return None
    gone = set(left_out[entry.name])
    root = entry.root
    calls = [i for i in entry.instructions if i.opcode is CALL and i is not root and i.users_within(gone)]
    if not calls:
        return None
    callers = module.callers_of  # the module's own index: later readers of the input reuse it
    steps, callees = _steps_of(calls, callers)
    if not steps:
        return None
    # Where every step is walked alone after inlining (one parameter: _one_operand_order), nothing
    # reads a marker as its value: the walks count them, not kept (5 MiB at jax_entry 1M).
    one_parameter = all(len(callee.parameters) == 1 for callee in callees)
    found = _steps_dead_code(steps, gone, left_out[entry.name], dead_users, entry, one_parameter)  # (gone emptied)
    if found is None:
        return None
    dead, walks, markers, orders, n_markers = found
    dead_users.clear()  # (used up: 52k counts at 1M, else held by the caller through the model and the copy)
    # Walked alone, the model reads of the dead code only how much there is: what the copy keeps of
    # the entry is taken now and the set let go before the stand-ins are made (16 MiB at jax_entry 1M).
    alone = orders is not None and one_parameter
    n_dead = len(dead)
    kept = _kept_of_entry(entry, dead, steps, left_out[entry.name]) if alone else None
    model = _model(entry, dead, (n_dead, n_markers), walks, (steps, callees), markers, orders, alone)
    markers.clear()  # (the model's reads, done with: 5 MiB at 1M, freed before ``dead`` grows)
    if orders is not None:  # (read by the model's removal walks only: 4.4 MiB at jax_entry 1M, held
        orders.clear()  # through the search for computations only dead code calls, the finder's peak)
    if model is not None:
        if kept is None:  # (the model is done with ``dead``: it is grown, not ``gone`` made again beside it)
            kept = _kept_of_entry(entry, dead, steps, left_out[entry.name])
        live: set[HloInstruction] = set()
        add_sized(live, kept)  # (2 MiB at 1M where a set grown one at a time takes 4)
        _leave_out_uncalled(module, model, live, callers, dead_code_of)
        live.clear()
        model.kept = kept  # (``calls`` is the caller's: :func:`stand_in_calls`, once the copy is made)
    return model


def _steps_of(calls: list[HloInstruction], callers: Callable[[HloComputation], list[HloInstruction]]
              ) -> tuple[list[HloInstruction], list[HloComputation]]:
    """The dead ``calls`` whose callees the model covers (:func:`_step_callee`), and each one's
    callee, in order: two lists, not a dict of them (2.5 MiB at jax_entry 1M)."""
    steps: list[HloInstruction] = []
    callees: list[HloComputation] = []
    for call in calls:
        callee = _step_callee(call, callers)
        if callee is not None:
            steps.append(call)
            callees.append(callee)
    return steps, callees


def stand_in_calls(steps: DeadSteps) -> None:
    """Which call each stand-in stands for (CallInliner's ``calls``), made from ``stand_ins`` once
    the copy is made: 52k entries at jax_entry 1M, 3 MiB beside the copy's peak where they were
    made with the stand-ins."""
    steps.calls = {stand_in.name: call.name for call, (stand_in, _) in steps.stand_ins.items()}


def _steps_dead_code(steps: list[HloInstruction], gone: set[HloInstruction], entry_left_out: list[HloInstruction],
                     dead_users: dict[HloInstruction, int], entry: HloComputation, count_markers: bool
                     ) -> tuple[set[HloInstruction], _Walks, dict[HloInstruction, HloInstruction],
                                list[tuple[HloInstruction, ...]] | None, int] | None:
    """What :func:`_closure_walks` finds, else (a value the walks first took as live died later)
    the closure first, then the walks, with the markers and no orders; None where the model does
    not cover the dead code.  ``count_markers``: the walks count the markers, not kept (see
    :func:`_closure_walks`).  ``gone``: the rebuild's dead code of the entry (``entry_left_out``),
    emptied: not read by the model nor after it (8 MiB at jax_entry 1M, at the analysis' peak).
    ``dead_users``: the entry's counts (:func:`.hlo_dce.dead_code_counted`), grown by the walks;
    where they give way, counted anew before the closure goes on from them."""
    # The walks ask of the rebuild's dead code only whether a user of the kinds the passes detach is
    # in it (_frontier_covered): those of it, not a set of all of it beside theirs (jax_entry has
    # none of them there).
    detached = {i for i in gone if i.opcode in _DETACHED}
    gone.clear()
    root = entry.root
    walked = _closure_walks(steps, dead_users, root, detached, count_markers)
    detached.clear()
    if walked is not None:
        return None if isinstance(walked, _Uncovered) else walked
    # The walks' counts are not taken back one by one: a list of every value they counted, kept for
    # this rare case, was 3.4 MiB at the finder's peak at jax_entry 1M (and as much again as it grew).
    dead_users.clear()
    dead_users.update(dead_code_counted(entry)[1])
    gone.update(entry_left_out)
    closed = _dead_closure(steps, gone, dead_users, root)
    gone.clear()
    if closed is None:
        return None
    markers = {i: operands_of(i)[0] for i in closed if i.opcode is CUSTOM_CALL and i.custom_call_target == _MARKER}
    return closed, _rebuild_walks(steps, closed), markers, None, len(markers)


def _step_callee(call: HloInstruction, callers: Callable[[HloComputation], list[HloInstruction]]
                 ) -> HloComputation | None:
    """The callee of a dead call whose inlining and removal the model covers, else None.

    Such a callee is one the copy would take whole (:func:`..analysis.rebuild_dead_code` would give
    it ``[]``: no control edges, no ``gte(tuple)`` -- it has no tuples -- and no dead code), which
    is tested here in the one look at its instructions: the search for dead code is left to the
    computations the copy keeps."""
    # (control edges read from the rare fields, as the property reads them: ~5k dead calls at jax_entry 100k)
    if not is_inlineable_call(call, _NO_ASYNC) or ((extra := call._extra) is not None and extra.control_predecessors):
        return None
    callee = call.called_computations[0]
    if len(callers(callee)) != 1 or callee.is_entry:
        return None
    body_root = callee.root
    if body_root is None or body_root.opcode is PARAMETER or len(callee.parameters) != len(operands_of(call)):
        return None
    not_in_step = _NOT_IN_STEP
    for instr in callee.instructions:
        opcode = instr.opcode
        # ``called`` and ``control_predecessors``' store, read once without the properties (a
        # ``Calls`` answers both: itself, and no edges; numbers' shared fields: neither)
        if opcode in not_in_step or ((extra := instr._extra) is not None
                                     and (extra.control_predecessors or extra.called)):
            return None
        if not instr._users:  # has_users(), from the store: no call (4 a step at jax_entry)
            if opcode is PARAMETER:
                return None  # its argument would lose a user without gaining one
            if instr is not body_root:
                return None  # dead code of its own
    return callee


def _dead_closure(calls: list[HloInstruction], gone: set[HloInstruction], dead_users: dict[HloInstruction, int],
                  root: HloInstruction | None) -> set[HloInstruction] | None:
    """The calls and what dies with them (:func:`.hlo_dce.close_dead`, the rebuild's dead code and
    the calls counted dead); None where the model does not cover them (see the module doc)."""
    dead = gone | set(calls)
    found = list(calls)
    close_dead(found, dead, dead_users, root)
    dead.difference_update(gone)
    return dead if _covered(found, dead, gone) else None


def _covered(found: Iterable[HloInstruction], dead: set[HloInstruction], gone: set[HloInstruction]) -> bool:
    """Whether the model covers the dead code ``found`` (all of ``dead``, the rebuild's ``gone``
    aside): see the module doc."""
    frontier: set[HloInstruction] = set()
    annotated: set[HloInstruction] = set()
    for instr in found:
        opcode = instr.opcode
        operands = operands_of(instr)
        if opcode is CALL:
            if any(op not in dead for op in operands):
                return False  # inlining it would move a live value's users
            continue
        if opcode in _REWIRED_DEAD or ((extra := instr._extra) is not None and extra.called):
            return False  # (``called``'s store read; the entry has no control edges: see find_dead_steps)
        if opcode is CUSTOM_CALL:
            if not ((instr.custom_call_target == _MARKER and len(operands) == 1) or is_annotation(instr)):
                return False
            for op in operands:
                if op not in dead or op in annotated:
                    return False  # a live operand, or two annotations of one value (the CSE could merge them)
                annotated.add(op)
            continue
        for op in operands:
            if op not in dead:
                frontier.add(op)
    return _frontier_covered(frontier, dead, gone)


def _frontier_covered(frontier: Iterable[HloInstruction], dead: set[HloInstruction], gone: set[HloInstruction]) -> bool:
    """Whether the live values the dead code reads (``frontier``) are of kinds the model covers,
    none with a live user the passes before the DCE after inlining take off its users, nor with
    a dead marker or annotation (:func:`_covered` finds that too, from the custom call)."""
    for value in frontier:
        if value.opcode in _REWIRED:
            return False
        for u in value.users:
            if u.opcode in _DETACHED and u not in gone and (u not in dead or u.opcode is CUSTOM_CALL):
                return False  # a live user those passes take off its users, or a dead marker or annotation of it
    return True


def _kept_of_entry(entry: HloComputation, dead: set[HloInstruction], calls: list[HloInstruction],
                   rebuild_dead: list[HloInstruction]) -> list[HloInstruction]:
    """What the copy keeps of the entry (a call too: its stand-in takes its place), not what it
    leaves out (the steps' ``dead`` code, the rebuild's); ``dead`` emptied.  On ``jax_entry`` it keeps
    ~5% of the entry, where a set of the rest (737k instructions at 1M, 32 MiB) was held until the
    copy was made."""
    dead.difference_update(calls)
    dead.update(rebuild_dead)  # one set, not a second one of the rebuild's dead code beside it
    kept = [i for i in entry.instructions if i not in dead]
    dead.clear()
    return kept


def _model(entry: HloComputation, dead: set[HloInstruction], counts: tuple[int, int], walks: _Walks,
           calls: tuple[list[HloInstruction], list[HloComputation]], markers: dict[HloInstruction, HloInstruction],
           orders: list[tuple[HloInstruction, ...]] | None, alone: bool) -> DeadSteps | None:
    """The stand-ins: each call's live operands in the rebuild's first-visit order, and what the
    DCE after inlining removes from each step, in its post order.  ``dead`` (the calls and what
    dies with them) is what the copy leaves out beside the rebuild's dead code: the walks after inlining go through
    it, the callees' bodies added (one set, not three: they are the bulk of the analysis' peak);
    the caller takes the calls off it (:func:`_kept_of_entry`: each has its stand-in).  ``markers``: the dead
    ``Sharding`` markers, each with its operand (it becomes what each is read as).
    ``orders``: each walk's post order, where :func:`_closure_walks` found ``dead`` (see
    :func:`_removal_walks`), else None.  ``counts``: how many ``dead`` held, how many markers
    (``markers`` may hold none: :func:`_closure_walks`' ``count_markers``).  ``alone``: every step
    is walked alone after inlining (one parameter, the closure walk's order: _one_operand_order);
    then no walk here reads ``dead`` (the caller has emptied it already) nor a marker or parameter
    as its value."""
    steps = DeadSteps(entry.name)
    n_dead, n_markers = counts
    if alone:  # the markers let go before the stand-ins are made (105k at jax_entry 1M, 5 MiB at the model's peak)
        markers.clear()
    placed = _stand_ins(walks, steps, calls)  # (walks emptied: each walk's live values are its
    # stand-in's operands now, the same tuples)
    # ShardingRemover has replaced the dead markers by their operands before that DCE: each is
    # read as the value under its markers (a callee's parameter as its call's operand, so read,
    # is added by _inlined).
    read = markers
    for marker, value in read.items():
        while value in read:
            value = read[value]
        read[marker] = value
    # What that DCE removes: the dead code but the calls (the only dead calls: not removable) and
    # the markers, and the callees' bodies but their parameters.
    n_removed = n_dead - len(steps.stand_ins) - n_markers
    n_removed += _inlined(placed, steps, None if alone else read)
    total, count = steps.extra_size
    steps.extra_size = (total - n_markers, count - n_markers)  # gone before the bound is checked
    if not _removal_walks(placed, steps, dead, read, orders):
        return None
    if sum(map(len, steps.removals.values())) != n_removed:
        return None  # a dead operand no callee reads: the DCE would start there too
    return steps


_Placed = tuple[list[HloInstruction], list[HloComputation], int]
"""The dead calls, each one's callee (in the same order), and how many dead instructions the
rebuild's walks from them emit but the calls.  Two lists, not a tuple per step (52k at jax_entry
1M instructions, 3 MiB at the model's peak)."""


_Walks = tuple[list[int], list[tuple[HloInstruction, ...]]]
"""For each dead call (the steps, in order): how many dead instructions the rebuild's walk from it
emits (it last), and the live values that walk first reaches, in order (a tuple as soon as the
walk ends: 5k dicts held through the walks were the analysis' peak on ``jax_entry`` at 100k).  Two
lists, not a tuple per call (52k at jax_entry 1M, 3 MiB at the finder's peak)."""


_Walked = tuple[set[HloInstruction], _Walks, dict[HloInstruction, HloInstruction], list[tuple[HloInstruction, ...]],
                int]
"""What :func:`_closure_walks` finds: the dead code (the calls and what dies with them), the walks,
the dead ``Sharding`` markers (each with its operand), each walk's post order but markers and call,
how many markers."""


class _Uncovered:
    """What :func:`_closure_walks` (and :func:`_walk_from`, for one step) gives where the model
    does not cover the dead code: an instance of its own, told apart by type.  Not a constant
    tuple compared by identity: the compiled core keeps a ``Final`` tuple unboxed and boxes it
    anew at each use, so ``walked is CONSTANT`` was never true there and the empty tuple was read
    as a walk (the device's fuzzing of the compiled core, 2026-12-07: an IndexError, and a model
    of dead code it does not cover; ``tests/test_compiled_identity.py`` guards the pattern)."""
    __slots__ = ()


_UNCOVERED: Final = _Uncovered()


def _rebuild_walks(calls: list[HloInstruction], dead: set[HloInstruction]) -> _Walks:
    """The rebuild's post order from each call in text order (each an unused start), through ``dead``."""
    visited: set[HloInstruction] = set()
    walks: _Walks = ([], [])
    for call in calls:
        n_emitted, reached = _post_order_through(call, dead, visited)
        walks[0].append(n_emitted)
        walks[1].append(tuple(reached))
    return walks


def _post_order_through(start: HloInstruction, through: set[HloInstruction], visited: set[HloInstruction]
                        ) -> tuple[int, dict[HloInstruction, None]]:
    """XLA's post order from ``start`` through the instructions of ``through`` not yet ``visited``
    (operands pushed in reverse, each emitted when first finished: on a graph without cycles, the
    recursive walk over operands in order, written with iterators): how many it emits, and the
    other values it reaches, in the order it first reaches them.  (:func:`_removal_walks` walks
    so too, reading parameters and markers as their values, and keeps the order.)"""
    reached: dict[HloInstruction, None] = {}
    emitted = 0
    visited.add(start)
    stack = [iter(operands_of(start))]  # what is left of each node's operands (the count is all it emits)
    push, pop = stack.append, stack.pop
    while stack:
        for dep in stack[-1]:
            if dep in through:
                if dep not in visited:
                    visited.add(dep)
                    push(iter(operands_of(dep)))
                    break
            elif dep not in reached:
                reached[dep] = None
        else:
            pop()
            emitted += 1
    return emitted, reached


def _closure_walks(calls: list[HloInstruction], dead_users: dict[HloInstruction, int], root: HloInstruction | None,
                   gone: set[HloInstruction], count_markers: bool = False) -> _Walked | _Uncovered | None:
    """:func:`_dead_closure`'s set and :func:`_rebuild_walks` in one walk: an operand is found dead
    (:func:`.hlo_dce.close_dead`'s count) when the walk reaches it from its last user, and the walk
    goes on into it at once.  A value taken as live where first reached may die later (its last
    user in a later step): then the walks were not the rebuild's; None as soon as it dies, the
    counts as counted so far (the caller counts them anew: :func:`_steps_dead_code`).

    The same walk checks what :func:`_covered` checks, so that no second look at the dead code is
    needed: each instruction as it is found dead (one the model does not cover is dead in the
    closure too, found first or not: :data:`_UNCOVERED` at once), and at the end what needs the
    whole closure -- the values live at its edge (those the walks kept as live) and the operands
    of the calls, markers and annotations (each dead or live at the edge).  ``gone``: the rebuild's
    dead code, or those of it of the kinds :data:`_DETACHED` at least (all the walks ask of it).
    Also given: the dead ``Sharding`` markers with their operands (``count_markers``: none, only how
    many: each walk's let go once counted), and each walk's post order but the markers and the call
    (:func:`_removal_walks` reads a one-parameter step's removal order from it)."""
    dead = set(calls)  # also what the walks visited: each is visited as it is found dead
    emitted: list[int] = []
    reached: list[tuple[HloInstruction, ...]] = []
    orders: list[tuple[HloInstruction, ...]] = []
    lives: set[HloInstruction] = set()
    markers: dict[HloInstruction, HloInstruction] = {}
    annotated: set[HloInstruction] = set()  # what the dead markers and annotations read, of more than one user
    counted_markers = 0
    for call in calls:
        n_markers = len(markers)
        walked = _walk_from(call, dead, lives, dead_users, root, markers, annotated)
        if walked is None:  # passed by while alive, dead now: given up at once (the counts as counted so far)
            return None
        if isinstance(walked, _Uncovered):
            return walked
        live, order = walked
        # What it emits: the order, the markers (left out of it) and the call.
        emitted.append(len(order) + len(markers) - n_markers + 1)
        reached.append(tuple(live))
        orders.append(tuple(order))  # (held to the DCE after inlining: a list each was 1.8 MiB more at jax_entry 1M)
        lives.update(live)
        if count_markers:
            counted_markers += len(markers)
            markers.clear()
    if not _edge_covered(calls, lives, dead, gone):
        return _UNCOVERED
    return dead, (emitted, reached), markers, orders, counted_markers + len(markers)


# A value of one user is reached once in all the walks: from that user, whose operands are walked
# once, as it is found dead (each once: dict.fromkeys).  So it is not in ``dead`` (there from the
# start are the steps, which no walk reaches: their users are all ``gone``, and what a walk finds
# dead is read, through dead values, by its call, which dead-code elimination keeps), and in
# ``live`` or ``lives`` only as what is kept whatever reads it (the root, a side effect, a kept
# custom call: tested first).  Those three lookups are left to values of more users.

def _walk_from(call: HloInstruction, dead: set[HloInstruction], lives: set[HloInstruction],
               dead_users: dict[HloInstruction, int], root: HloInstruction | None,
               markers: dict[HloInstruction, HloInstruction], annotated: set[HloInstruction]
               ) -> tuple[dict[HloInstruction, None], list[HloInstruction]] | _Uncovered | None:
    """:func:`_closure_walks`' walk from one call: the live values it reaches, in order, and its post
    order but markers and the call; ``dead``, ``dead_users`` (each count added),
    ``markers``, ``annotated`` grown.  None where a value it or an earlier walk (``lives``) passed
    by as live dies; :data:`_UNCOVERED` where it finds dead code the model does not cover."""
    live: dict[HloInstruction, None] = {}
    order: list[HloInstruction] = []
    side_effecting, custom_call, rewired, users_cls, wide = _SIDE_EFFECTING, CUSTOM_CALL, _REWIRED_DEAD, USERS, WideOperands
    ops = operands_of(call)
    stack = [iter(ops if len(ops) < 2 else dict.fromkeys(ops))]  # a user counts once per operand
    nodes: list[HloInstruction | None] = [None]  # the node of each iterator (None: the call or a marker)
    push, pop, push_node, pop_node, emit = stack.append, stack.pop, nodes.append, nodes.pop, order.append
    while stack:
        for dep in stack[-1]:
            if dep is root:  # (never in ``dead``: no call is the root)
                live[dep] = None
                continue
            # user_count() != 1, from the store (no call); of one user: see above _walk_from
            if shared := (type(users := dep._users) is users_cls and len(users) != 1):
                if dep in dead:  # visited (another call is no operand here: its users are all `gone`)
                    continue
                count = dead_users[dep] = dead_users.get(dep, 0) + 1
                if count != len(users):
                    if dep not in live:
                        live[dep] = None  # a live value (so far): where the walk first reaches it
                    continue
            opcode = dep.opcode
            kind = _PLAIN
            if opcode in side_effecting or (opcode is custom_call and (kind := _custom_call_kind(dep)) == _KEPT):
                if dep not in live:
                    live[dep] = None
                continue
            if shared and (dep in live or dep in lives):
                return None
            dead.add(dep)
            # the operands property without its call: a tuple, a wide list or one kept bare
            ops = stored if type(stored := dep._operands) is tuple else (stored,) if type(stored) is not wide else stored.as_tuple()  # type: ignore[assignment]
            if kind == _PLAIN:
                if opcode in rewired or ((extra := dep._extra) is not None and extra.called):
                    return _UNCOVERED  # (dead in the closure too: see _closure_walks)
                push_node(dep)
            elif kind == _NOT_COVERED or not _annotates(ops, annotated):
                return _UNCOVERED
            elif kind == _A_MARKER:
                markers[dep] = ops[0]
                push_node(None)
            else:
                push_node(dep)
            push(iter(ops if len(ops) < 2 else dict.fromkeys(ops)))
            break
        else:
            pop()
            node = pop_node()
            if node is not None:
                emit(node)
    return live, order


def _annotates(operands: tuple[HloInstruction, ...], annotated: set[HloInstruction]) -> bool:
    """False where a dead marker or annotation reads a value another reads (``annotated``) or
    reads it twice (the annotation CSE could merge them); its operands of more than one user are
    added (a value of one user is read by one: a set of all was 1 MiB at ``jax_entry`` 100k)."""
    if len(operands) > 1 and len(set(operands)) != len(operands):
        return False
    for op in operands:
        if type(users := op._users) is USERS and len(users) != 1:  # user_count() != 1, from the store: no call
            if op in annotated:
                return False
            annotated.add(op)
    return True


_PLAIN: Final = 0
_KEPT: Final = 1
_NOT_COVERED: Final = 2
_A_MARKER: Final = 3
_AN_ANNOTATION: Final = 4


def _custom_call_kind(instr: HloInstruction) -> int:
    """What a custom call the walk reaches from its last user is: one dead-code elimination keeps
    (:func:`.hlo_dce.removable`: :data:`_KEPT`), or, dead, a ``Sharding`` marker, a placement
    annotation (each read once: :func:`.annotations.is_annotation` is what both ask), or one the
    model does not cover (another custom call, or one calling a computation)."""
    # The target and the calls read from their store, without the properties or the type test:
    # with a target there it holds rare fields (a ``Calls`` holds none), whose ``called`` is a slot.
    # A custom call's removable() is its flag's test alone (no custom call is of _SIDE_EFFECTING's
    # opcodes): called directly, a Python call less each.
    extra = instr._extra
    if extra is not None and extra.number == _MARKER:  # (no annotation)
        if not removable_custom_call(instr):
            return _KEPT
        return _A_MARKER if not extra.called and len(operands_of(instr)) == 1 else _NOT_COVERED
    if is_annotation(instr):  # removable whatever its flag
        return _NOT_COVERED if extra is not None and extra.called else _AN_ANNOTATION
    return _NOT_COVERED if removable_custom_call(instr) else _KEPT


def _edge_covered(calls: list[HloInstruction], lives: set[HloInstruction], dead: set[HloInstruction],
                  gone: set[HloInstruction]) -> bool:
    """What :func:`_covered` checks that needs the whole closure, once the walks have found it:
    ``lives`` (what the walks kept as live) is every operand of the dead code not dead itself
    (a marker or annotation reading one is one of its users: :func:`_frontier_covered`)."""
    for call in calls:
        for op in operands_of(call):
            if op in lives:
                return False  # inlining it would move a live value's users
    return _frontier_covered(lives, dead, gone)


def _stand_ins(walks: _Walks, steps: DeadSteps, calls: tuple[list[HloInstruction], list[HloComputation]]) -> _Placed:
    """Each call's stand-in (:attr:`DeadSteps.stand_ins`): its walk's live values are its operands.
    ``walks`` is emptied; ``calls``: the steps' calls and callees, each walk's, in order."""
    emitted = 0
    for call, callee, n_emitted, live in zip(calls[0], calls[1], walks[0], walks[1]):
        body_root = callee.root
        assert body_root is not None
        # A bare instruction: only its name, its place and what it reads are ever looked at.
        steps.stand_ins[call] = (HloInstruction(body_root.name, body_root.opcode, body_root.shape), live)
        emitted += n_emitted - 1
    walks[0].clear()
    walks[1].clear()
    return calls[0], calls[1], emitted


def _inlined(placed: _Placed, steps: DeadSteps, read: dict[HloInstruction, HloInstruction] | None) -> int:
    """How many instructions the callees' bodies hold but their parameters; each parameter is
    ``read`` as what its call passes (as ``read`` reads that); the bodies are left out (their
    computations in :attr:`DeadSteps.computations`: a body's instructions are known by their
    ``parent``, not entered in a set of the dead code, whose growth past a resize was the
    analysis' peak at ``jax_entry`` 1M), their parameters' names given back, all counted for the
    bound (markers included: :func:`_model` takes them off).  ``read`` None: no walk reads it."""
    calls, callees, emitted = placed
    extra_total = extra_count = emitted  # the walks' operands
    n_body = 0
    computations, released = steps.computations, steps.released
    for call, callee in zip(calls, callees):
        params = callee.parameters
        if read is not None:
            for param, value in zip(params, operands_of(call)):
                read[param] = read.get(value, value)
        body = callee.instructions
        computations.add(callee)
        released.extend([p.name for p in params])
        size = len(body)
        n_body += size - len(params)
        extra_total += (size - len(params) - 1) + size  # the call's growth, the callee
        extra_count += size
    steps.extra_size = (extra_total, extra_count)
    return n_body


def _removal_walks(placed: _Placed, steps: DeadSteps, through: set[HloInstruction],
                   read: dict[HloInstruction, HloInstruction], orders: list[tuple[HloInstruction, ...]] | None) -> bool:
    """After inlining: each callee body in its call's place, its parameters read as the call's
    operands.  Nothing of a step but the callee root is unused (every parameter is read, the
    callee has no dead code, a dead operand's users are dead), so the DCE's post order starts
    at each root in turn, through the dead operands (:attr:`DeadSteps.removals`).  False where
    that walk first reaches the live values in another order than the stand-in reads them.

    ``through``: the dead code (the calls and markers in it are never reached: a call's users are
    the rebuild's dead code, a marker is read as its operand, a parameter as its call's), and the
    bodies (an instruction whose ``parent`` is a callee); ``read``: what a marker or parameter is
    read as.

    Where :func:`_closure_walks` found the dead code (``orders``: each walk's post order), a dead
    value's dead users are all in the walk of the call it died in (else that walk gave up), so a
    walk here reaches that call's callee and dead code only: each keeps its own visited set (a
    set of every step's instructions was 2 MiB of the analysis' peak on ``jax_entry`` at 100k);
    else one for all.  There a callee of one parameter is walked alone (:func:`_one_operand_order`):
    the walk from its call's one operand is the closure walk's, markers aside."""
    done: set[HloInstruction] = set()
    removals, bodies, stand_ins = steps.removals, steps.computations, steps.stand_ins  # (the callees only, so far)
    for k, (call, callee) in enumerate(zip(placed[0], placed[1])):
        body_root = callee.root
        assert body_root is not None
        if orders is not None:
            if len(callee.parameters) == 1:
                removals[body_root.name] = _one_operand_order(body_root, callee.parameters[0], orders[k])
                continue
            done = set()
        # _post_order_through's walk, a parameter or marker read as ``read`` gives it, the order kept.
        reached: dict[HloInstruction, None] = {}
        order: list[HloInstruction] = []
        done.add(body_root)
        stack = [(body_root, iter(operands_of(body_root)))]
        push, pop = stack.append, stack.pop
        while stack:
            node, rest = stack[-1]
            for dep in rest:
                dep = read.get(dep, dep)
                if dep in through or dep.parent in bodies:
                    if dep not in done:
                        done.add(dep)
                        push((dep, iter(operands_of(dep))))
                        break
                elif dep not in reached:
                    reached[dep] = None
            else:
                pop()
                order.append(node)
        if tuple(reached) != stand_ins[call][1]:  # (a dict of them by name was 52k entries at the analysis'
            return False  # peak on jax_entry at 1M instructions, read by steps of more parameters only)
        removals[body_root.name] = order
    return True


def _one_operand_order(body_root: HloInstruction, param: HloInstruction, walked: tuple[HloInstruction, ...]
                       ) -> tuple[HloInstruction, ...]:
    """:func:`_removal_walks`' order for a callee of one parameter, from the closure walk's post
    order of its call (``walked``: markers and the call left out).  Why it is the same walk: the
    parameter is read as the call's one operand, under its markers (a marker's operand is dead:
    :func:`_custom_call_kind`); from there the walk goes through the dead code the closure walk found
    from that operand, in the same operand order, a marker read as its operand visiting what the
    closure walk visits under it (the marker itself is not emitted); no dead value of another
    walk is reached (see :func:`_removal_walks`), and no body instruction.  The live values it
    reaches are the closure walk's, in its order: the stand-in's operands (the test the other
    walk makes holds).  The body (no entry value but through the parameter) is walked here; the
    parameter, first reached, gives ``walked``.  A tuple, as ``walked``: held until the DCE after
    inlining, a list each (with its spare room) was 1.8 MiB more at ``jax_entry`` 1M."""
    order: list[HloInstruction] = []
    done = {body_root}
    stack = [(body_root, iter(operands_of(body_root)))]
    push, pop, wide = stack.append, stack.pop, WideOperands
    while stack:
        node, rest = stack[-1]
        for dep in rest:
            if dep not in done:
                done.add(dep)
                if dep is param:
                    order.extend(walked)
                    continue
                # operands_of inline: a Python call less for each body instruction (~5 a step)
                ops: tuple[HloInstruction, ...] = stored if type(stored := dep._operands) is tuple else (stored,) if type(stored) is not wide else stored.as_tuple()  # type: ignore[assignment]
                push((dep, iter(ops)))
                break
        else:
            pop()
            order.append(node)
    return tuple(order)


def _leave_out_uncalled(module: HloModule, steps: DeadSteps, live: set[HloInstruction],
                        callers: Callable[[HloComputation], list[HloInstruction]],
                        dead_code_of: Callable[[HloComputation], list[HloInstruction]]) -> None:
    """Leave out whole the computations only dead code calls (a dead ``reduce``'s reducer), with
    nothing that a pass before the inliner's drop reports or changes: no calls, no custom calls,
    no dead code; counted for the inliner's bound, their names given back when it drops them.
    ``live``: what the copy keeps of the entry (the rest, the steps' and the rebuild's dead code, is
    left out: a set of the kept, ~5% of the entry at jax_entry, not of the rest, 16 MiB at 1M);
    another computation's dead code (``dead_code_of``) is looked for only where a caller there is
    not in it (a caller in a computation left out, the callees and those left out here, is known
    by its ``parent``)."""
    extra = 0
    elsewhere: dict[HloComputation, set[HloInstruction]] = {}

    def dead_elsewhere(i: HloInstruction) -> bool:
        """Whether ``i`` is dead code of a computation other than the entry, as the rebuild finds it."""
        comp = i.parent
        if comp is None or comp.name == steps.computation:
            return False
        dead = elsewhere.get(comp)
        if dead is None:
            dead = elsewhere[comp] = set(dead_code_of(comp))
        return i in dead

    taken, released = steps.computations, steps.released
    entry = module.entry
    for comp in module.computations:
        if comp.is_entry or comp in taken:
            continue
        by = callers(comp)
        if not by:
            continue
        for i in by:  # (a loop, not any(): 5k reducers on jax_entry at 100k)
            if ((parent := i.parent) is not entry or i in live) and parent not in taken and not dead_elsewhere(i):
                break
        else:
            if _taken_whole(comp):
                instrs = comp.instructions
                taken.add(comp)
                released.extend([i.name for i in instrs])
                extra += len(instrs)
    total, count = steps.extra_size
    steps.extra_size = (total, count + extra)


def _taken_whole(comp: HloComputation) -> bool:
    """No calls, no custom calls, and what the copy would take whole (the rebuild's dead code of
    it, :func:`..analysis.rebuild_dead_code`, is ``[]``: no control edges, no ``gte(tuple)``, no
    dead code), in one look at its instructions."""
    root = comp.root
    for i in comp.instructions:
        opcode = i.opcode
        extra = i._extra  # ``called`` and ``control_predecessors``' store (a ``Calls`` answers both): no property
        if opcode is CUSTOM_CALL or (extra is not None and (extra.control_predecessors or extra.called)):
            return False
        if not i._users and i is not root and removable(i):  # has_users(), from the store (3 a reducer)
            return False
        if opcode is GET_TUPLE_ELEMENT:
            operands = operands_of(i)
            if operands and operands[0].opcode is TUPLE:
                return False
    return True
