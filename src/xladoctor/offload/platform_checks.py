"""What one platform's compiler checks after HostOffloader, beyond the pass itself.

XLA:GPU (``gpu_compiler.cc`` at jaxlib 0.10.2) runs the host-offload passes after layout
assignment: HostOffloadLegalize, LayoutNormalization, then the ``post-layout_assignment``
pipeline (HostOffloader, TupleSimplifier, AlgebraicSimplifier, HloCSE,
HostMemoryTransferAsyncifier) whose invariant checker is a *layout-sensitive* HloVerifier
(the ``end-of-post-layout_assignment`` context).  Its ShapeVerifier compares the shape of a
``tuple``, ``get-tuple-element`` and ``while`` with the shape inferred from their operands
(the body's root, for a while) with ``Shape::Equal``, memory space included (ignored only
inside fusion computations).  HostOffloader moves the positions it finds to ``S(5)`` one by
one; where it leaves a tuple, GTE or while whose memory spaces disagree with what they are
built from, the GPU compile fails there with ``INTERNAL: ... Expected instruction to have
shape equal to X, actual shape is Y`` -- seen for a ``device_put`` to ``pinned_host`` inside
a scan inside a scan.  libtpu's compile does not check memory spaces there and compiles.

So this check runs on the host positions the HostOffloader model predicts, only for GPU
platforms and only when the pass itself succeeds (an E1200 or pass failure comes first).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.shape import HOST_MEMORY_SPACE, Shape, ShapeIndex
from .kinds import FirstKind, InsertedKind, Status
from .result import HostOffloadResult, PassFailure

GPU_PLATFORMS = frozenset({"cuda", "gpu", "rocm"})
VERIFIER_CONTEXT = "end-of-post-layout_assignment"


def predict_for_platform(module: HloModule, result: HostOffloadResult, platform: str | None) -> HostOffloadResult:
    """``result`` with the platform's later failure added as the first failure, when it has one."""
    if platform not in GPU_PLATFORMS or result.outcome != "ok":
        return result
    failure = gpu_memory_space_mismatch(module, result)
    if failure is None:
        return result
    return result.replace(failures=[failure, *result.failures], _first_kind=FirstKind.FAILURE)


def gpu_memory_space_mismatch(module: HloModule, result: HostOffloadResult) -> PassFailure | None:
    """The first instruction whose memory spaces the layout-sensitive verifier rejects, or None."""
    host = set(result.host_positions)
    # Broadcasts HostOffloader replaces by a host AllocateBuffer: their users read host memory.
    allocated = {i.replaces for i in result.inserted if i.kind is InsertedKind.ALLOCATE_BUFFER and i.replaces}
    inlined = set(result.inlined_calls)

    def on_host(instr: HloInstruction, index: ShapeIndex) -> bool:
        instr = _resolve(module, instr, inlined)
        if (instr.name, index) in host or (instr.name in allocated and not index):
            return True
        shape = instr.shape
        ecl = module.entry_computation_layout
        if (instr.opcode.value == "parameter" and instr.parent is module.entry and ecl is not None
                and instr.parameter_number is not None and instr.parameter_number < len(ecl.parameters)):
            shape = ecl.parameters[instr.parameter_number]  # a pinned_host argument: S(5) there
        leaf = shape.subshape(index) if shape.has_index(index) else None
        return leaf is not None and leaf.is_array and leaf.layout is not None and \
            leaf.layout.memory_space == HOST_MEMORY_SPACE

    for comp in module.computations:
        if any(c.opcode.value == "fusion" for c in module.callers_of(comp)) or not _in_loop_body(module, comp, inlined):
            continue
        for instr in comp.instructions:
            if instr.name in inlined:  # the CallInliner pre-pass replaced it by its callee's body
                continue
            if not _is_loop_state(module, instr, inlined):
                continue
            for source, pairs in _inferred_from(instr):
                if not _stacks_an_inner_loop(module, _resolve(module, source, inlined), inlined):
                    # Only a loop's stacked output was seen to fail: the outer body's root
                    # tuple given S(5) for the buffer an inner loop's host result is written
                    # into, while that dynamic-update-slice stays on device.  A carry moved to
                    # host in a loop body compiles (2,000 campaign programs), so only
                    # the stacking is judged.
                    continue
                if _resolve(module, source, inlined).opcode.value == "parameter":
                    # Loop parameters take the memory spaces of what the pass gave the loop
                    # (measured: nested scans with a pinned_host carry compile); the model
                    # does not record a parameter's positions everywhere, so none is judged.
                    continue
                if any(on_host(instr, mine) != on_host(source, theirs) for mine, theirs in pairs):
                    return _failure(instr, source, pairs, on_host)
    return None


def _in_loop_body(module: HloModule, comp, inlined: set[str]) -> bool:
    """Is ``comp`` (after call inlining) part of a while body?  Only there did XLA:GPU's
    verifier reject what HostOffloader left (loop state of a loop nested in a loop body): at
    the entry level the pass makes a while's memory spaces agree with its init and body
    (measured: scans whose carry starts in or moves to pinned_host compile)."""
    seen = set()
    while comp is not None and comp not in seen:
        seen.add(comp)
        callers = module.callers_of(comp)
        if any(c.opcode.value == "while" and c.called.get("body", [None])[0] is comp for c in callers):
            return True
        inlined_callers = [c for c in callers if c.name in inlined]
        if len(inlined_callers) != 1 or len(callers) != 1:
            return False
        comp = inlined_callers[0].parent
    return False


def _is_loop_state(module: HloModule, instr: HloInstruction, inlined: set[str]) -> bool:
    """Does ``instr`` carry a while loop's state (so it survives to the verifier)?

    Before layout assignment XLA:GPU's simplification pipelines (TupleSimplifier, algsimp,
    DCE) fold ``get-tuple-element(tuple(...))`` and drop dead values, so only the tuples,
    GTEs and whiles of loop state are still there when the verifier looks: the while itself,
    its init tuple, its body's root tuple, and the GTEs reading a while or a loop parameter."""
    op = instr.opcode.value
    if op == "while":
        return True
    if op == "tuple":
        comp = instr.parent
        if comp is not None and comp.root is instr and any(
                c.opcode.value == "while" and c.called.get("body", [None])[0] is comp for c in module.callers_of(comp)):
            return True
        return bool(instr.users) and all(u.opcode.value == "while" for u in instr.users)
    if op == "get-tuple-element" and instr.operands and instr.users:
        source = _resolve(module, instr.operands[0], inlined)
        if source.opcode.value == "while":
            return True
        if source.opcode.value == "parameter" and source.parent is not None:
            return any(c.opcode.value == "while" for c in module.callers_of(source.parent))
    return False


_PASS_THROUGH = frozenset({"reshape", "bitcast", "broadcast", "copy", "convert"})


def _stacks_an_inner_loop(module: HloModule, dus: HloInstruction, inlined: set[str]) -> bool:
    """Is ``dus`` a dynamic-update-slice whose update is (a reshape of) an inner loop's result?
    That is how JAX stacks the ``ys`` of a scan inside a scan body."""
    if dus.opcode.value != "dynamic-update-slice" or len(dus.operands) < 2:
        return False
    update = _resolve(module, dus.operands[1], inlined)
    for _ in range(32):
        op = update.opcode.value
        if op in _PASS_THROUGH and update.operands:
            update = _resolve(module, update.operands[0], inlined)
            continue
        if op == "get-tuple-element" and update.operands and update.tuple_index is not None:
            tup = _resolve(module, update.operands[0], inlined)
            if tup.opcode.value == "while":
                return True
            if tup.opcode.value == "tuple" and update.tuple_index < len(tup.operands):
                update = _resolve(module, tup.operands[update.tuple_index], inlined)
                continue
        break
    return update.opcode.value == "while"


def _resolve(module: HloModule, instr: HloInstruction, inlined: set[str]) -> HloInstruction:
    """What stands for ``instr`` after the CallInliner pre-pass (positions name that module):
    an inlined call is its callee's root, a parameter of an inlined callee the call's operand."""
    for _ in range(64):  # call nesting is shallow; the bound only guards against a cycle
        if instr.name in inlined and instr.opcode.value == "call" and instr.called.get("to_apply"):
            root = instr.called["to_apply"][0].root
            if root is None:
                return instr
            instr = root
            continue
        if instr.opcode.value == "parameter" and instr.parameter_number is not None:
            callers = module.callers_of(instr.parent)
            if len(callers) == 1 and callers[0].name in inlined:
                instr = callers[0].operands[instr.parameter_number]
                continue
        return instr
    return instr


def _inferred_from(instr: HloInstruction) -> Iterator[tuple[HloInstruction, list[tuple[ShapeIndex, ShapeIndex]]]]:
    """``(source, [(index in instr, index in source)])`` for each operand the verifier infers from."""
    op = instr.opcode.value
    if op == "tuple":
        for i, operand in enumerate(instr.operands):
            yield operand, [((i, *idx), idx) for idx, _ in operand.shape.leaves()]
    elif op == "get-tuple-element" and instr.tuple_index is not None and instr.operands:
        yield instr.operands[0], [(idx, (instr.tuple_index, *idx)) for idx, _ in instr.shape.leaves()]
    elif op == "while":
        body = instr.called.get("body")
        if body and body[0].root is not None:
            yield body[0].root, [(idx, idx) for idx, _ in instr.shape.leaves()]


def _failure(instr: HloInstruction, source: HloInstruction, pairs: list[tuple[ShapeIndex, ShapeIndex]],
             on_host) -> PassFailure:
    actual: Shape = instr.shape
    inferred: Shape = instr.shape
    for mine, theirs in pairs:
        if on_host(instr, mine):
            actual = actual.with_memory_space(HOST_MEMORY_SPACE, mine)
        if on_host(source, theirs):
            inferred = inferred.with_memory_space(HOST_MEMORY_SPACE, mine)
    message = (f"during context [{VERIFIER_CONTEXT}]: Expected instruction to have shape equal to {inferred}, "
               f"actual shape is {actual}: {instr.name} (XLA:GPU's layout-sensitive HloVerifier after "
               f"HostOffloader: {source.name} is where its shape is inferred from)")
    return PassFailure(Status.INTERNAL, message, instr.name, first=True)
