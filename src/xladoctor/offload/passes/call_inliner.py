"""CallInliner, as XLA runs it before HostOffloader, on the simulation's private copy.

Why: pre-optimisation HLO (what ``jax.jit(f).lower(...).as_text("hlo")`` prints)
wraps library code in ``call`` instructions (``jit_dynamic_update_index_in_dim``,
``closed_call``, ...).  XLA inlines them early (``CallInliner`` runs right after
``ConvertMemoryPlacementToInternalAnnotations`` in the pre-SPMD pipeline), so by the
time HostOffloader runs, a MoveToHost's first consumer is the DUS *inside* the
callee, not the call or the tuple that packs its operands.  Walking the un-inlined
graph starts at the wrong instruction and can call a pure DMA "host compute".

What is inlined (``CallInliner::IsInlineableCallOp``): every ``call`` with no
backend config, not inside an async (e.g. host) computation, not marked
``inlineable="false"``; also kept are calls that run on the host
(``_xla_compute_type="host"``, or a callee on the host execution thread): they
become host offloaded calls, not inline code.  Callees are inlined before their
callers (post-order), as XLA does.

Names: a callee called from one place is moved into its caller with its names
unchanged, so results name the instructions of the input text.  A callee called
from several places is cloned; each clone gets a fresh module-unique name
(``name.1``, ``name.2``, ...) and ``InlineResult.origin`` maps it back to the
input instruction (XLA's own clones get NameUniquer names too, so "starting from
X" in XLA's message names a clone we cannot predict digit for digit).  Metadata is
carried over, so source lines survive.  Cost is linear in the size of the inlined
module.

Bound: the inlined module is sized first (in one pass over the call graph), and a module
that would inline to more than ``max(INLINE_BOUND, INLINE_GROWTH x its instructions)``
instructions -- 1,000,000, or 8 times the input -- is refused with one line naming the call
that crosses it (:class:`~xladoctor.base.errors.InputError`, exit code 2).  A call graph whose
paths double at each level (20 computations each calling the next twice: 3 kB of text, 2
million instructions inlined) took minutes and gigabytes here, and the real compiler does
not finish either; the refusal is the honest answer.
"""

from __future__ import annotations

from ...base.errors import InputError
from ...base.labels import label
from ...ir.computation import HloComputation
from ...ir.instruction import COMPILED, HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import ASYNC_START, PARAMETER, HloOpcode
from ...ir.rare_fields import CALLS, NO_STRINGS, calls_in
from ..annotations import COMPUTE_TYPE_ATTR, COMPUTE_TYPE_HOST, HOST_THREAD
from .analysis_context import DeadSteps, DeadStepsInexact
from .hlo_pass_interface import HloPassWithContext
from .tuple_simplifier import forward_tuple_elements

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

INLINE_BOUND: Final = 1_000_000
"""Instructions an inlined module may have whatever its input (see the module doc)."""
INLINE_GROWTH: Final = 8
"""... or this many times the input's instructions, when that is more."""


class InlineResult:
    """What the pre-pass did: calls inlined and where cloned instructions came from (written out,
    not a dataclass: start-up, issue 36)."""

    inlined_calls: list[str]
    """Names of the ``call`` instructions replaced by their callee's body."""
    origin: dict[str, str]
    """Clone name -> name of the input instruction it copies (only for multi-site callees)."""

    def __init__(self) -> None:
        self.inlined_calls = []
        self.origin = {}


def looks_pre_optimization(module: HloModule) -> bool:
    """A module that has not been through XLA's pipeline yet: not scheduled.

    Scheduled modules (``is_scheduled=true``, what ``compile().as_text()`` and the
    ``after_optimizations`` dumps print) have long had their calls inlined; any
    ``call`` left there was deliberately kept, so it must not be inlined again.
    """
    return module.attributes.get("is_scheduled", "").strip().lower() != "true"


def is_inlineable_call(call: HloInstruction, async_computations: set[HloComputation]) -> bool:
    """``CallInliner::IsInlineableCallOp`` plus the host-call exclusion: a call not run on the host
    (``_xla_compute_type="host"``, or a callee on the host execution thread)."""
    if call.opcode is not _CALL:
        return False
    called = calls_in(call._extra)  # ``called``'s store, read without the property (a call's: its Calls, most)
    callees = called.get("to_apply") or call.called_computations
    if len(callees) != 1:
        return False
    # The attribute text is decoded only where it holds the name (a jax step's calls: 5k a module).
    if (call.may_have_attribute("backend_config") and "backend_config" in call.attributes) \
            or call.parent in async_computations:
        return False
    # ``frontend_attributes`` read once from the store (after the decoding above), not by the
    # property twice: this is asked of each call up to four times (the inliner's sizing, its
    # pass, its visit; the dead steps' ~5k calls at jax_entry 100k)
    extra = call._extra
    frontend = NO_STRINGS if extra is None else extra.frontend_attributes
    if frontend.get("inlineable", "true") != "true":
        return False
    if call.parent is not None and call.parent.execution_thread == HOST_THREAD:
        return False
    return not (frontend.get(COMPUTE_TYPE_ATTR) == COMPUTE_TYPE_HOST or callees[0].execution_thread == HOST_THREAD)


_CALL: Final = HloOpcode.CALL  # tested before is_inlineable_call: most instructions are no call


def computation_post_order(module: HloModule, callees_of: dict[HloComputation, list[HloComputation]] | None = None
                           ) -> list[HloComputation]:
    """Computations reachable from the entry, callees before callers (iterative DFS).  ``callees_of``:
    each computation's callees as :func:`_callees` reads them now (none where it is not there), where
    the caller has them (:class:`_Inliner` reads them in its first walk)."""
    assert module.entry is not None
    order: list[HloComputation] = []
    seen = {module.entry}
    no_callees: list[HloComputation] = []

    def callees(comp: HloComputation) -> list[HloComputation]:
        return _callees(comp) if callees_of is None else callees_of.get(comp, no_callees)

    stack = [(module.entry, iter(callees(module.entry)))]
    while stack:
        comp, it = stack[-1]
        for callee in it:
            if callee not in seen:
                seen.add(callee)
                stack.append((callee, iter(callees(callee))))
                break
        else:
            stack.pop()
            order.append(comp)
    return order


def check_inlined_size(module: HloModule, async_computations: set[HloComputation],
                       order: list[HloComputation] | None = None, dead_steps: DeadSteps | None = None,
                       calls_of: dict[HloComputation, list[HloInstruction]] | None = None) -> int:
    """Raise :class:`InputError` at the first call whose inlining would take the module past
    the bound; the sizes come from the call graph alone (callees before callers), no copy.
    Returns the size counted (of ``module`` alone).
    ``order``: :func:`computation_post_order` of ``module``, where the caller has it; ``calls_of``:
    each computation's instructions that call anything, in list order (none where it is not
    there), where the caller has them: only those are looked at, each found in the list by the
    list's own search (C) from the one before, and the others between count one each (where they
    cross the bound, the one that does is found by its place), not a loop over every instruction
    (a train step's entry: 44 calls and 150 reduces of ~3,700).

    ``dead_steps``: what the copy left out (:mod:`.dead_steps`), counted on top of it: where the
    whole module could cross the bound (at a call the copy cannot name), or the copy does,
    :class:`~.analysis_context.DeadStepsInexact` (the analysis then runs on the whole copy)."""
    extra_total, extra_count = dead_steps.extra_size if dead_steps is not None else (0, 0)
    bound = max(INLINE_BOUND, INLINE_GROWTH * (module.instruction_count() + extra_count))
    size: dict[HloComputation, int] = {}
    total = 0
    no_calls: list[HloInstruction] = []
    for comp in computation_post_order(module) if order is None else order:
        n = 0
        instrs = comp.instructions
        at = 0  # the place after the last instruction looked at
        # without ``calls_of`` every instruction is looked at (each at ``at``: no gap between)
        for instr in instrs if calls_of is None else calls_of.get(comp, no_calls):
            k = instrs.index(instr, at)
            if total + n + k - at > bound:  # one of those before it crosses: the first that does
                _past_bound(module, comp, instrs[at + bound - total - n], bound, dead_steps)
            n += k - at
            if instr.opcode is _CALL and is_inlineable_call(instr, async_computations):
                callee = (instr.called.get("to_apply") or instr.called_computations)[0]
                n += size.get(callee, 0) - len(callee.parameters)
            else:
                n += 1
            if total + n > bound:
                _past_bound(module, comp, instr, bound, dead_steps)
            at = k + 1
        if total + n + len(instrs) - at > bound:
            _past_bound(module, comp, instrs[at + bound - total - n], bound, dead_steps)
        n += len(instrs) - at
        size[comp] = n
        total += n
    if total + extra_total > bound:  # partial sums never decrease: below it, no call crosses it
        raise DeadStepsInexact("the inlined module's bound")
    return total


def _past_bound(module: HloModule, comp: HloComputation, instr: HloInstruction, bound: int,
                dead_steps: DeadSteps | None) -> None:
    """Raise :func:`check_inlined_size`'s refusal at ``instr``, the first that takes it past ``bound``."""
    if dead_steps is not None:
        raise DeadStepsInexact("the inlined module's bound")
    raise InputError(label("offload.inline_bound", call=instr.name, bound=f"{bound:,}"),
                     module.source_name, instr.line or comp.line or 1, instr.col or 1)


def _callees(comp: HloComputation) -> list[HloComputation]:
    return [c for instr in comp.instructions if (extra := instr._extra) is not None and (type(extra) is CALLS or extra.called)
            for c in instr.called_computations]  # most call nothing (rare_fields.calls_anything, inline: per instruction)


class _Inliner:
    def __init__(self, module: HloModule, dead_steps: DeadSteps | None = None):
        self.m = module
        self.dead_steps = dead_steps
        self.result = InlineResult()
        self.async_computations: set[HloComputation] = set()
        self.call_sites: dict[HloComputation, int] = {}
        self.callees_of: dict[HloComputation, list[HloComputation]] = {}
        """Each computation that calls any: its callees in instruction order (:func:`_callees`), as
        read here, for :meth:`run`'s post order and visit (a computation not here has no call to
        inline: most of a train step's 160, its reducers)."""
        self.calls_of: dict[HloComputation, list[HloInstruction]] = {}
        """The same computations' instructions that call any, in list order: :meth:`run`'s sizing."""
        async_start = ASYNC_START
        for comp in module.computations:  # one walk for all (module.instructions(): an interpreted generator)
            for instr in comp.instructions:
                if (extra := instr._extra) is not None and (type(extra) is CALLS or extra.called):  # calls_anything, inline
                    called = instr.called_computations
                    for c in called:
                        self.call_sites[c] = self.call_sites.get(c, 0) + 1
                    self.callees_of.setdefault(comp, []).extend(called)
                    self.calls_of.setdefault(comp, []).append(instr)
                    if instr.opcode is async_start:
                        self.async_computations.update(called)
        self.emptied: set[HloComputation] = set()

    def run(self) -> InlineResult:
        # The sizing and the inlining walk the same graph: the one read by __init__ (a computation's
        # list changes only when it is inlined into, in its turn here, after its callees').
        callees_of = self.callees_of
        order = computation_post_order(self.m, callees_of)
        check_inlined_size(self.m, self.async_computations, order, self.dead_steps, self.calls_of)
        self.calls_of = {}
        steps = self.dead_steps
        for comp in order:
            if steps is not None and comp.name == steps.computation:
                self._inline_into(comp, steps.calls)
                steps.calls = {}  # (read here only: 52k names at jax_entry 1M, let go before the drop's peak)
            elif comp in callees_of and \
                    any(i.opcode is _CALL and is_inlineable_call(i, self.async_computations) for i in comp.instructions):
                self._inline_into(comp)
        self.callees_of = {}  # (stale from here: the drop below reads the graph as inlined)
        self._drop_dead_computations()
        return self.result

    def _inline_into(self, comp: HloComputation, stand_ins: dict[str, str] | None = None) -> None:
        """Inline ``comp``'s calls in list order; ``stand_ins``: the dead steps' stand-ins by name ->
        the call each stands for, named where it stands (it is already what the inlining leaves)."""
        new_list: list[HloInstruction] = []
        call_op, async_computations = _CALL, self.async_computations  # locals: read per instruction
        for instr in comp.instructions:
            if instr.parent is not comp:
                continue
            if instr.opcode is call_op and is_inlineable_call(instr, async_computations):
                new_list.extend(self._inline(instr, comp))
                continue
            # (the name first: a dict's test, where ``has_users`` is a call per instruction)
            if stand_ins and instr.name in stand_ins and not instr.has_users():
                call = stand_ins[instr.name]
                self.m.instruction_names.release(call)  # as :meth:`HloComputation.forget` of the call
                self.result.inlined_calls.append(call)
            new_list.append(instr)
        comp.splice(new_list)

    def _inline(self, call: HloInstruction, caller: HloComputation) -> list[HloInstruction]:
        callee = (call.called.get("to_apply") or call.called_computations)[0]
        mapping: dict[HloInstruction, HloInstruction] = {}
        for k, param in enumerate(callee.parameters):
            if param is not None:
                mapping[param] = call.operands[k]
        body = [i for i in callee.instructions if i.opcode is not PARAMETER]
        single = self.call_sites.get(callee, 0) == 1 and callee not in self.emptied
        if single:
            moved = self._move(body, mapping, caller)
            self.emptied.add(callee)
        else:
            moved = self._clone(body, mapping, caller)
        assert callee.root is not None
        new_root = mapping.get(callee.root, callee.root)
        call.replace_all_uses_with(new_root)
        call.operands = ()
        caller.forget(call)
        self.call_sites[callee] = self.call_sites.get(callee, 1) - 1
        self.result.inlined_calls.append(call.name)
        return moved

    @staticmethod
    def _move(body: list[HloInstruction], mapping: dict[HloInstruction, HloInstruction],
              caller: HloComputation) -> list[HloInstruction]:
        """Single call site: the callee's instructions move, names and all."""
        # The operands read once, tested against the parameters by the keys' own disjointness test
        # in pure Python (C, no generator per instruction; compiled, the generator is the native
        # loop, and the view's method two generic calls); the control edges read from the rare
        # fields, which most instructions do not have (the property is a call per instruction).
        for instr in body:
            caller.adopt(instr)
            operands = instr.operands
            if any(o in mapping for o in operands) if COMPILED else not mapping.keys().isdisjoint(operands):
                instr.operands = tuple([mapping.get(o, o) for o in operands])
            if instr._extra is not None and instr.control_predecessors:
                instr.control_predecessors = [p for p in instr.control_predecessors if p not in mapping]
        return body

    def _clone(self, body: list[HloInstruction], mapping: dict[HloInstruction, HloInstruction],
               caller: HloComputation) -> list[HloInstruction]:
        """Another call site of a shared callee: copies with fresh names, traced back by ``origin``."""
        out: list[HloInstruction] = []
        for instr in body:
            source = self.result.origin.get(instr.name, instr.name)
            clone = instr.clone_with_new_operands(instr.shape, [mapping.get(o, o) for o in instr.operands],
                                                  self.m.unique_name(source))
            clone.control_predecessors = [mapping[p] for p in instr.control_predecessors if p in mapping]
            for c in clone.called_computations:
                self.call_sites[c] = self.call_sites.get(c, 0) + 1
            caller.adopt(clone)
            self.result.origin[clone.name] = source
            mapping[instr] = clone
            out.append(clone)
        return out

    def _drop_dead_computations(self) -> None:
        """Callees no longer called (all their call sites inlined) leave the private module."""
        live = set(computation_post_order(self.m))
        self.m.remove_computations([c for c in self.m.computations if c not in live])
        if self.dead_steps is not None:  # the left-out callees' parameters, as their removal gives back
            self.m.instruction_names.release_each(self.dead_steps.released)
            self.dead_steps.released = []  # (read here only: 210k names at jax_entry 1M)


def inline_calls(module: HloModule, dead_steps: DeadSteps | None = None) -> InlineResult:
    """Inline every inlineable ``call`` of ``module`` in place, then fold ``gte(tuple)`` pairs.

    The folding runs even when nothing was inlined: XLA's simplifiers do it to every
    module before HostOffloader (the real compiler starts a walk at the consumer of a
    folded get-tuple-element, not at the tuple).  ``module`` must be a private copy.
    ``dead_steps``: the stand-ins it holds (:mod:`.dead_steps`).
    """
    result = _Inliner(module, dead_steps).run()
    forward_tuple_elements(module)
    return result


class CallInliner(HloPassWithContext):
    """XLA's ``CallInliner``: :func:`inline_calls`; the calls inlined and the clones' origins go
    onto the context (``inlined_calls``, ``origin``)."""

    name = "call_inliner"

    def run(self, module: HloModule) -> bool:
        result = inline_calls(module, self.context.dead_steps)
        self.context.inlined_calls = result.inlined_calls
        self.context.record_origin(result.origin)
        return bool(result.inlined_calls)
