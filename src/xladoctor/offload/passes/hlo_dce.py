"""``HloDCE`` as XLA runs it before HostOffloader: unused instructions are gone by then.

Why it matters: the walks look at every user of a host value, so a dead user changes
decisions (a dead ``negate`` of a dynamic-slice's result makes the slice host compute
instead of the end of an offload; a MoveToHost nobody reads starts no walk).  The real
TPU compiler (libtpu 0.0.42.1) agrees only once those are removed.

What counts as dead is XLA's rule: no users, not a computation root, no side effect.
Placement annotations are removable although JAX marks ``annotate_device_placement``
``custom_call_has_side_effect=true``: XLA rewrites them into MoveToHost/MoveToDevice
custom calls without that flag first.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter

from ...ir.computation import HloComputation
from ...ir.instruction import COMPILED, HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CUSTOM_CALL, GET_TUPLE_ELEMENT, HloOpcode
from ...ir.operands import WideOperands, operands_of
from ...ir.packed_fields import USERS
from ...ir.rare_fields import CALLS
from ..annotations import is_annotation
from .analysis_context import DeadSteps, DeadStepsInexact
from .hlo_pass_interface import HloPassInterface, HloPassWithContext

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_SIDE_EFFECTING: Final = frozenset(op for op in HloOpcode if op.has_side_effect or (
    op.may_have_side_effect and op is not HloOpcode.CUSTOM_CALL)) | {
    HloOpcode.PARAMETER, HloOpcode.AFTER_ALL, HloOpcode.ASYNC_START, HloOpcode.ASYNC_DONE,
    HloOpcode.WHILE, HloOpcode.CONDITIONAL, HloOpcode.CALL}
"""Kept even when unused: side effects (``HloOpcode.has_side_effect``; collectives whatever their
channel or layout) and control flow, whose callees may have side effects (XLA looks inside;
keeping them is the safe side); custom calls by their flag (:func:`_removable_kind`)."""


_EXTRA: Final = attrgetter("_extra")
_CONTROL_SLOT: Final = attrgetter("control_predecessors")  # of a RareFields: a slot


_SIDE_EFFECT_FLAG: Final = "custom_call_has_side_effect"


def _removable_kind(instr: HloInstruction) -> bool:
    if instr.opcode is CUSTOM_CALL:
        # Most custom calls carry no flag at all (jax's ``Sharding`` markers): not decoded for it.
        return not instr.may_have_attribute(_SIDE_EFFECT_FLAG) or is_annotation(instr) \
            or instr.attributes.get(_SIDE_EFFECT_FLAG) != "true"
    return True


def remove_dead_code(module: HloModule, left_out: Mapping[str, list[HloInstruction]] | None = None,
                     dead_steps: DeadSteps | None = None,
                     into: list[HloInstruction] | None = None) -> list[HloInstruction]:
    """Remove dead instructions from every computation of ``module`` (a private copy);
    returns them, in removal order (users before their operands), appended to ``into`` where
    given (the pass's context list: a list of its own, then copied there, was the analysis'
    peak on ``jax_entry`` at 1M instructions, ~8 MiB for a moment).

    ``left_out``: computation name -> :func:`dead_code` of the input's computation, which the
    copy left out (:func:`xladoctor.ir.clone.clone_module`); reported in its place, and such a
    computation has nothing else dead (what stays of it is closed under operands).

    ``dead_steps``: the stand-ins of the dead steps the copy left out (:mod:`.dead_steps`), reported
    as the steps they stand for; where anything else is dead beside them, the removal order is
    not theirs: :class:`~.analysis_context.DeadStepsInexact`."""
    removed: list[HloInstruction] = [] if into is None else into
    for comp in module.computations:
        if left_out and comp.name in left_out:
            removed.extend(left_out[comp.name])
            continue
        if len(comp.instructions) <= _SMALL and _all_used(comp.instructions, comp.root) and \
                (dead_steps is None or comp.name != dead_steps.computation):
            continue  # a reducer: nothing unused, nothing dead (the steps' computation must report them)
        dead, order = _dead_instructions(comp)
        if dead_steps is not None and comp.name == dead_steps.computation:
            before = len(removed)
            _steps_removed(order, dead_steps, removed)
            changed = len(removed) != before
        else:
            removed.extend(order)
            changed = bool(order)
        if changed:
            # Without reordering the survivors' users: the real compiler (HLO or StableHLO
            # in, rebuilt as HLO) never sees the dead code, so user order is as if it never
            # existed; a swap-removal (HloDCE on a live module) picks other walks first.
            comp.remove_unused(dead)
    return removed


_SMALL: Final = 3
"""Computations up to this size are first asked :func:`_all_used` (a train step's reducers: ~150 of
its ~155 computations, visited by each of a run's five dead-code eliminations)."""


def _all_used(instructions: list[HloInstruction], root: HloInstruction | None) -> bool:
    """Whether every one of ``instructions`` but ``root`` has users.  Then nothing is dead: the dead
    code is found up from the unused removable instructions but the root (:func:`_dead_instructions`'
    starts), and there are none.  A loop, not :meth:`~...ir.computation.HloComputation.unused`'s
    comprehension and the starts' (two frames and two lists a visit)."""
    for instr in instructions:  # noqa: SIM110  (a loop, not all() of a generator: a frame switch per instruction)
        if not instr._users and instr is not root:
            return False
    return True


def small_and_settled(comp: HloComputation) -> bool:
    """Whether ``comp`` (up to :data:`_SMALL` instructions) has no get-tuple-element, no control edge
    and every instruction but the root used: then nothing folds there (:func:`~.tuple_simplifier.folds_tuples`
    is False), :func:`has_control_edges` is False and :func:`dead_code` is empty (:func:`_all_used`).
    The copy's search asks it first of each computation (a train step's ~150 reducers: three calls
    and three comprehensions each)."""
    instructions, root, gte = comp.instructions, comp.root, GET_TUPLE_ELEMENT
    if len(instructions) > _SMALL:
        return False
    for instr in instructions:
        if instr.opcode is gte or (not instr._users and instr is not root):
            return False
        extra = instr._extra
        if extra is not None and type(extra) is not CALLS and extra.control_predecessors:
            return False
    return True


def _steps_removed(order: list[HloInstruction], steps: DeadSteps, out: list[HloInstruction]) -> None:
    """``order`` (the stand-in roots, nothing else) with each replaced by the step it stands for,
    appended to ``out`` (a list of them first, then copied there, was 8 MiB for a moment at
    ``jax_entry`` 1M instructions, at the analysis' peak)."""
    removals = steps.removals
    if len(order) != len(removals) or any(i.name not in removals for i in order):
        raise DeadStepsInexact("the dead steps' computation has other dead code")
    for stand_in in order:  # each order let go once copied (this DCE is their one reader: ~6 MiB at 1M)
        out.extend(reversed(removals.pop(stand_in.name)))


def has_control_edges(comp: HloComputation) -> bool:
    """Whether an instruction of ``comp`` has control predecessors (most computations: none).

    Read from the rare fields' slot, which most instructions do not have (``_extra`` None), in
    C-level iteration: the ``control_predecessors`` property cost a Python call per instruction,
    and the entry is asked twice per run (the copy's dead code, the rebuild's search; ~10 ms of
    ``jax_entry`` at 100k instructions, issue 36).  Compiled, the same read is a native loop: there
    ``attrgetter`` reads each native field through Python's protocol (66M instructions of a
    ``jax_entry`` 100k ``offload``, three computations' worth of instructions asked)."""
    if COMPILED:
        for instr in comp.instructions:
            extra = instr._extra  # the calls alone (CALLS) hold none: not read through Python's protocol
            if extra is not None and type(extra) is not CALLS and extra.control_predecessors:
                return True
        return False
    return any(map(_CONTROL_SLOT, filter(None, map(_EXTRA, comp.instructions))))


def dead_code(comp: HloComputation) -> list[HloInstruction]:
    """What :func:`remove_dead_code` would remove from ``comp``, in its order, leaving ``comp``
    as it is (the input module: its dead code need not be copied)."""
    return _dead_instructions(comp)[1]


def dead_code_counted(comp: HloComputation) -> tuple[list[HloInstruction], dict[HloInstruction, int]]:
    """:func:`dead_code`, and how many dead users each live instruction has (what
    :func:`close_dead` goes on from, where more is taken as dead: :mod:`.dead_steps`)."""
    dead_users: dict[HloInstruction, int] = {}
    return _dead_instructions(comp, dead_users)[1], dead_users


def close_dead(found: list[HloInstruction], dead: set[HloInstruction], dead_users: dict[HloInstruction, int],
               root: HloInstruction | None, k: int = 0) -> None:
    """Add to ``found`` and ``dead`` every operand whose users are all dead, from ``found[k]`` on.

    An operand is dead once its last user is: its dead users are counted as they are reached
    (testing all its users at each was quadratic for a parameter every copy of a repeated body
    reads).  The set found is the same: each user is reached after it died.  An operand with one
    user is decided at once, uncounted: that user is never reached again, so nothing goes on from
    its count."""
    side_effecting, custom_call = _SIDE_EFFECTING, CUSTOM_CALL
    while k < len(found):
        operands = operands_of(found[k])
        for op in operands if len(operands) < 2 else dict.fromkeys(operands):
            if op in dead or op is root:
                continue
            n_users = op.user_count()
            # One user (most values): dead now, never reached again, so no count is kept.
            if n_users != 1:
                count = dead_users[op] = dead_users.get(op, 0) + 1
                if count != n_users:
                    continue
            opcode = op.opcode
            if opcode not in side_effecting and (opcode is not custom_call or _removable_kind(op)):
                dead.add(op)
                found.append(op)
        k += 1


def _dead_instructions(comp: HloComputation, dead_users: dict[HloInstruction, int] | None = None
                       ) -> tuple[set[HloInstruction], list[HloInstruction]]:
    """Dead: unused and removable, or used only by dead instructions; as a set and in removal order.

    Found from the unused ones up through their operands, so the cost is the dead code's,
    not the computation's.  The order is the reverse of XLA's post order of the
    computation restricted to them (which MoveToHost is reported first depends on it):
    every path up from a dead instruction ends at an unused dead one, and a live
    instruction's operands are all live, so the post order's DFS reaches dead code only
    from unused dead starts, in text order, through dead operands (:func:`_post_order_of`).
    Both in one walk where that walk can tell (:func:`_walk_dead`), else the closure first.
    """
    root = comp.root
    starts = [i for i in comp.unused() if i is not root and _removable(i)]
    dead = set(starts)
    if not dead:
        return dead, []  # nothing unused: nothing dead
    counts: dict[HloInstruction, int] = {} if dead_users is None else dead_users
    # Control predecessors anywhere (a live instruction's may be dead): the DFS from the users
    # would reach such a predecessor early, so XLA's whole order is needed.
    if not has_control_edges(comp):
        order = _walk_dead(starts, dead, counts, root)
        if order is not None:
            order.reverse()
            return dead, order
        dead = set(starts)  # a value the walk first took as live died later: the closure first
        counts.clear()
    close_dead(list(starts), dead, counts, root)
    if has_control_edges(comp):
        return dead, [i for i in reversed(comp.post_order()) if i in dead]
    order = _post_order_of(starts, dead)
    order.reverse()
    return dead, order


def _walk_dead(starts: list[HloInstruction], dead: set[HloInstruction], dead_users: dict[HloInstruction, int],
               root: HloInstruction | None) -> list[HloInstruction] | None:
    """:func:`close_dead` and :func:`_post_order_of` in one walk from ``starts`` (unused, never an
    operand): an operand is found dead when the walk reaches it from its last user (counted as
    there), and the walk goes on into it at once.  None as soon as a value the walk passed by while
    a user of it still lived dies (the walk through the dead code would have gone into it there: a
    dead value with two dead users): ``dead`` and ``dead_users`` are then the caller's to start again."""
    order: list[HloInstruction] = []
    waiting: set[HloInstruction] = set()  # reached from a dead user, others still alive then
    side_effecting, custom_call, users_cls, wide = _SIDE_EFFECTING, CUSTOM_CALL, USERS, WideOperands
    for start in starts:
        ops = operands_of(start)
        # Each user counts once per operand: a repeated operand is a no-op in the walk anyway.
        # (compiled: a comprehension is native where dict.fromkeys and bound-method aliases are Python calls)
        stack = [(start, iter(ops if len(ops) < 2 else {op: None for op in ops} if COMPILED else dict.fromkeys(ops)))]
        while stack:
            node, rest = stack[-1]
            for dep in rest:
                if dep in dead or dep is root:
                    continue  # walked already (each dead one is walked when found), or never dead
                users = dep._users  # user_count() without its call: a visit each (the store, as it reads it)
                n_users = len(users) if type(users) is users_cls else 1
                if n_users != 1:
                    count = dead_users[dep] = dead_users.get(dep, 0) + 1
                    if count != n_users:
                        waiting.add(dep)
                        continue
                opcode = dep.opcode
                if opcode in side_effecting or (opcode is custom_call and not _removable_kind(dep)):
                    continue
                if dep in waiting:
                    return None  # passed by while alive, dead now: given up at once
                dead.add(dep)
                stored = dep._operands  # the operands property without its call (a tuple, a wide list, one kept bare)
                cls = type(stored)
                ops = stored if cls is tuple else (stored,) if cls is not wide else stored.as_tuple()  # type: ignore[assignment,union-attr]
                stack.append((dep, iter(ops if len(ops) < 2 else {op: None for op in ops} if COMPILED else dict.fromkeys(ops))))
                break
            else:
                stack.pop()
                order.append(node)
    return order


def _removable(instr: HloInstruction) -> bool:
    """No side effect XLA keeps an unused instruction for."""
    return instr.opcode not in _SIDE_EFFECTING and _removable_kind(instr)


removable = _removable
"""Whether dead-code elimination may remove ``instr`` once unused (:mod:`.dead_steps` asks)."""
removable_custom_call = _removable_kind
""":func:`removable` of a custom call (no custom call is of :data:`SIDE_EFFECTING`'s opcodes: its flag decides)."""
SIDE_EFFECTING = _SIDE_EFFECTING
"""The opcodes :func:`removable` refuses whatever the instruction (:mod:`.dead_steps` tests them inline)."""


def _post_order_of(starts: list[HloInstruction], dead: set[HloInstruction]) -> list[HloInstruction]:
    """:meth:`HloComputation.post_order`'s DFS from ``starts``, through ``dead`` only.  Run only where
    no instruction has control predecessors, so it follows operands alone; on a graph without
    cycles, XLA's walk (operands pushed in reverse, each emitted when first finished) is the
    recursive walk over operands in order, written here with iterators (fewer stack entries)."""
    order: list[HloInstruction] = []
    done: set[HloInstruction] = set()
    for start in starts:
        if start in done:
            continue
        done.add(start)
        stack = [(start, iter(operands_of(start)))]
        push, pop = stack.append, stack.pop
        while stack:
            node, rest = stack[-1]
            for dep in rest:
                if dep in dead and dep not in done:
                    done.add(dep)
                    push((dep, iter(operands_of(dep))))
                    break
            else:
                pop()
                order.append(node)
    return order


class HloDCE(HloPassWithContext):
    """XLA's ``HloDCE``: :func:`remove_dead_code`; what it removed goes onto the context (``dead``)."""

    name = "hlo_dce"

    def same_as(self, other: HloPassInterface) -> bool:
        """Another HloDCE: the same removal.  (The context's dead steps are read by the first run
        only, which reports and clears them; every later run sees none.)"""
        return isinstance(other, HloDCE)

    def run(self, module: HloModule) -> bool:
        dead = self.context.dead
        before = len(dead)
        # Without stand-ins, what it removes is closed under "dead" (all of it, or nothing where
        # nothing is): nothing dead is left for another run.  (With them, a removal is refused
        # where the dead code is not exactly theirs: not claimed.)
        self.fixed_point = self.context.dead_steps is None
        remove_dead_code(module, dead_steps=self.context.dead_steps, into=dead)
        self.context.dead_steps = None  # reported: the stand-ins are gone
        changed = len(dead) != before
        self.left_untouched = not changed  # nothing removed: no list, link or name touched
        return changed
