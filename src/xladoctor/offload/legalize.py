"""HostOffloadLegalize, as XLA runs it right before HostOffloader, on the simulation's private copy.

Why: a layout-changing ``copy`` (a transpose in memory) inside an offload chain would
run on host memory.  XLA's HostOffloadLegalize moves each such copy out of the host
segment before HostOffloader walks it: down past bitcasts, slices and dynamic-slices
to just after the matching MoveToDevice (the values in between take the layout from
before the copy), or, when the value never comes back to the device (it reaches the
entry root or a host computation), up above its MoveToHost.  HostOffloader then sees
chains without layout changes, so where host memory ends (and whether a copy is host
compute) depends on this pre-pass.

The model follows ``xla/hlo/transforms/host_offload_legalize.cc`` (openxla/xla @
1548533, the version with the host-``async-start`` rules; its test file
``host_offload_legalize_test.cc`` @ 73d9734):

* starting points: every MoveToHost, and entry parameters whose entry layout is S(5)
  (array parameters only: tuple parameters are a TODO in XLA), computations in call
  post-order (callees first), instructions in text order;
* from a MoveToHost feeding a dynamic-update-slice (through bitcast/reshape/copy), the
  chain starts at the buffer the DUS writes into (walked up through loops to the
  broadcast, AllocateBuffer, MoveToHost or entry parameter);
* one walk down the chain collects the ``copy`` instructions in it, and rewires a
  while body's root tuple that would carry a MoveToDevice'd value back into the same
  loop slot it was read from;
* copies are processed last first: moved down (``MoveCopyDown``) when every path from
  them comes back to the device, else swapped above their MoveToHost when they read it
  directly, else left alone.

Outcomes XLA does not print (VLOG only) are kept as notes: a chain XLA does not
recognise (``Unrecognized user name: tanh``, ``Expected a constant as operand``, ...)
is skipped or cut short, silently.  The few errors that *are* returned (and fail the
compilation) or CHECK-crash are reported as failures.  Deviations, on purpose:

* sharding markers (``Sharding``, ``xla.sdy.*``, gone by the time XLA runs this pass)
  are passed through, as the HostOffloader model does;
* ``annotate_device_placement`` spellings count as MoveToHost/MoveToDevice, since
  ``ConvertMemoryPlacementToInternalAnnotations`` runs first in XLA;
* the walks keep visited sets and the call graph is built once (XLA's have neither;
  the decisions are the same, the cost is linear);
* when the "should the copy move down" search meets a ``get-tuple-element`` with an
  empty shape index (a tuple-shaped non-tuple op such as ``sort``), it does not follow
  it: XLA's test ``MoveCopyDownWithSort`` expects the copy to move, which rules out
  both a crash and a stop there (**inference**: the helper's newest source was not
  readable).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.names import NameUniquer
from ..ir.opcodes import HloOpcode
from ..ir.shape import HOST_MEMORY_SPACE, Layout, Shape
from .annotations import HOST_THREAD, is_allocate_buffer, is_host_async_start, is_move_to_device, is_move_to_host
from .dataflow import CallGraph, XlaCheckFailure, XlaStatusError, is_sharding_annotation, successors
from .positions import Position

_SLICES = (HloOpcode.SLICE, HloOpcode.DYNAMIC_SLICE)
_PASS_THROUGH = (HloOpcode.BITCAST, HloOpcode.COPY, HloOpcode.DYNAMIC_SLICE, HloOpcode.RESHAPE, HloOpcode.SLICE)
_NAME_SUFFIX = re.compile(r"\.\d+$")
_MAX_NAMES_IN_NOTE = 8

Value = tuple[HloInstruction, int]
"""XLA's ``InstructionAndIndex``: an instruction and a top-level tuple index (-1: the whole value)."""


class _Unrecognized(Exception):
    """A status XLA's walk helpers return: the chain is not understood (the caller decides)."""

    def __init__(self, message: str, instruction: HloInstruction | None = None):
        super().__init__(message)
        self.message = message
        self.instruction = instruction


@dataclass(frozen=True)
class LegalizeNote:
    """A chain HostOffloadLegalize gave up on (XLA logs it at VLOG level only)."""

    start: str
    """The starting instruction of the chain (MoveToHost or streamed entry parameter)."""
    phase: str
    """``walk-up`` (from a DUS to its buffer: chain skipped), ``walk-down`` (collecting copies:
    the walk stops there), ``consumer`` (a slice/dynamic-slice with no MoveToDevice after it:
    chain skipped), ``move-down`` (moving a copy: it stops there, the copy is removed anyway)."""
    message: str
    """XLA's status text, e.g. ``Unrecognized user name: tanh.3``."""
    instruction: str | None = None


@dataclass(frozen=True)
class LegalizeMove:
    """What happened to one layout-changing copy found in an offload chain."""

    copy: str
    action: str
    """``moved-down`` (now after the MoveToDevices), ``moved-up`` (swapped above its
    MoveToHost), ``kept`` (it reaches the program end or a host computation and does not
    read a MoveToHost directly)."""
    start: str
    new_copies: tuple[str, ...] = ()
    """Copies created after the MoveToDevices (``moved-down``)."""
    after: tuple[str, ...] = ()
    """The MoveToDevice each new copy follows, as named in the input."""
    shapes: tuple[tuple[str, str], ...] = ()
    """Per new copy: the MoveToDevice's shape (the layout from before the copy), the copy's shape."""


@dataclass
class LegalizeResult:
    """Everything the pre-pass did; ``changed`` is XLA's return value."""

    changed: bool = False
    starts: list[str] = field(default_factory=list)
    moves: list[LegalizeMove] = field(default_factory=list)
    notes: list[LegalizeNote] = field(default_factory=list)
    rerouted: list[str] = field(default_factory=list)
    """``root{k}``: while-body root slots that now carry the loop value instead of its MoveToDevice."""
    removed: list[str] = field(default_factory=list)
    failures: list[tuple[str, str, str | None]] = field(default_factory=list)
    """``(status, message, instruction)``: errors that fail compilation, CHECK crashes."""


# ---------------------------------------------------------------------------- shapes
def _layout(shape: Shape) -> Layout:
    return shape.effective_layout


def _value_shape(v: Value) -> Shape:
    instr, index = v
    return instr.shape if index == -1 else instr.shape.tuple_shapes[index]


def _delete_dimension(shape: Shape, dim: int) -> Shape:
    """``ShapeUtil::DeleteDimension``: the layout loses ``dim`` and renumbers the ones above it."""
    lay = _layout(shape)
    m2m = tuple(d - (d > dim) for d in lay.minor_to_major if d != dim)
    dims = shape.dimensions[:dim] + shape.dimensions[dim + 1:]
    dyn = shape.dynamic[:dim] + shape.dynamic[dim + 1:]
    return replace(shape, dimensions=dims, dynamic=dyn, layout=replace(lay, minor_to_major=m2m))


def _remove_majormost(shape: Shape) -> Shape:
    return _delete_dimension(shape, _layout(shape).minor_to_major[-1])


def _add_majormost(shape: Shape) -> Shape:
    """A new size-1 most-major dimension 0; the tiles are kept (as XLA re-adds them)."""
    lay = _layout(shape)
    m2m = tuple(d + 1 for d in lay.minor_to_major) + (0,)
    return replace(shape, dimensions=(1,) + shape.dimensions, dynamic=(False,) + shape.dynamic,
                   layout=Layout(minor_to_major=m2m, tiles=lay.tiles))


def _effectively_most_major(shape: Shape, dim: int) -> bool:
    """``ShapeUtil::IsEffectivelyMostMajorDimension``: only size-1 dimensions are more major."""
    for d in reversed(_layout(shape).minor_to_major):
        if d == dim:
            return True
        if shape.dimensions[d] != 1:
            return False
    return False


def _same_shape(a: Shape, b: Shape) -> bool:
    return a.compatible(b) and _layout(a) == _layout(b)


# ---------------------------------------------------------------------------- the pass
class HostOffloadLegalizer:
    """One run of HostOffloadLegalize over ``module`` (a private copy: it is rewritten)."""

    def __init__(self, module: HloModule, rename: Callable[[str], str] | None = None):
        self.m = module
        self.entry = module.entry_computation()
        self.graph = CallGraph(module)
        self.res = LegalizeResult()
        self.rn = rename or (lambda n: n)
        self.names = NameUniquer(module)
        self.removed: set[HloInstruction] = set()
        self.processed: set[HloInstruction] = set()
        self.start_name = ""
        self.clone_of: dict[str, str] = {}
        """Annotation clone name -> the input instruction it stands for (for reporting)."""

    # -------------------------------------------------------------- IR edits
    def _new_name(self, base: str) -> str:
        return self.names.new(_NAME_SUFFIX.sub("", base) or base)

    def _clone(self, of: HloInstruction, shape: Shape, operands: list[HloInstruction],
               comp: HloComputation) -> HloInstruction:
        """``CloneWithNewOperands`` + ``AddInstruction``: same fields, a uniquified name."""
        new = of.detached_copy()
        new.name = self._new_name(of.name)
        self.clone_of[new.name] = self.clone_of.get(of.name, of.name)
        new.shape = shape
        comp.add_instruction(new)
        new.operands = operands
        return new

    def _new_copy(self, operand: HloInstruction, shape: Shape) -> HloInstruction:
        new = HloInstruction(self._new_name("copy"), HloOpcode.COPY, shape)
        operand.computation().add_instruction(new)
        new.operands = [operand]
        return new

    def _remove(self, instr: HloInstruction) -> None:
        if instr in self.removed:
            return
        instr.operands = ()
        self.removed.add(instr)
        self.res.removed.append(self.rn(instr.name))

    def _purge(self) -> None:
        """Drop removed instructions from their computations, once (keeps the pass linear)."""
        by_comp: dict[HloComputation, set[HloInstruction]] = {}
        for i in self.removed:
            if i.parent is not None:
                by_comp.setdefault(i.parent, set()).add(i)
        for comp, removed in by_comp.items():
            comp.drop_removed(removed)

    @staticmethod
    def _replace_use(instr: HloInstruction, user: HloInstruction, new: HloInstruction) -> None:
        """``ReplaceUseWithDifferentShape``: every slot of ``user`` holding ``instr``."""
        user.operands = [new if o is instr else o for o in user.operands]

    def _set_layout(self, v: Value, layout: Layout) -> None:
        """``UpdateInstructionLayout``: a while also updates its body root and condition parameter."""
        instr, index = v
        shape = instr.shape
        if index == -1:
            if not shape.is_array:
                raise XlaCheckFailure(f"Check failed: shape has no layout ({instr.name} is {shape})", instr)
            instr.shape = shape.with_layout(layout)
        else:
            if not shape.is_tuple or index >= len(shape.tuple_shapes) or \
                    not shape.tuple_shapes[index].is_array:
                raise XlaCheckFailure(f"Check failed: tuple index {index} of {instr.name} is not an array", instr)
            parts = list(shape.tuple_shapes)
            parts[index] = parts[index].with_layout(layout)
            instr.shape = replace(shape, tuple_shapes=tuple(parts))
        if instr.opcode is HloOpcode.WHILE:
            body, cond = instr.called["body"][0], instr.called["condition"][0]
            for target in (body.root, cond.parameters[0]):
                if target is not None and target is not instr:
                    self._set_layout((target, index), layout)

    # -------------------------------------------------------------- recording
    def note(self, phase: str, message: str, instr: HloInstruction | None = None) -> None:
        self.res.notes.append(LegalizeNote(self.start_name, phase, message,
                                           self.rn(instr.name) if instr is not None else None))

    def fail(self, exc: Exception) -> None:
        if isinstance(exc, XlaCheckFailure):
            status, message, instr = "CHECK", exc.message, exc.instruction
        elif isinstance(exc, XlaStatusError):
            status, message, instr = exc.status, exc.message, exc.instruction
        else:  # pragma: no cover - programming error, surfaced as-is
            raise exc
        self.res.failures.append((status, message, self.rn(instr.name) if instr is not None else None))

    def _callers_text(self, comp: HloComputation, callers: list[HloInstruction]) -> str:
        names = [c.name for c in callers[:_MAX_NAMES_IN_NOTE]]
        if len(callers) > _MAX_NAMES_IN_NOTE:
            names.append("...")
        return (f'Expected computation "{comp.name}" to be called only by one caller and that caller to be a '
                f"While. There are {len(callers)} caller(s): [{', '.join(names)}]")

    # -------------------------------------------------------------- driver
    def run(self) -> LegalizeResult:
        starts = self.starting_instructions()
        self.res.starts = [self.rn(s.name) for s in starts]
        for instr in starts:
            if instr in self.processed or instr in self.removed:
                continue
            self.start_name = self.rn(instr.name)
            try:
                if self.process(instr):
                    self.res.changed = True
            except (XlaCheckFailure, XlaStatusError) as e:
                # XLA stops the compilation here; the graph is left as it was at that point.
                self.fail(e)
                break
        self._purge()
        return self.res

    def _computation_post_order(self) -> list[HloComputation]:
        """``MakeComputationPostOrder``: callees before their callers."""
        order: list[HloComputation] = []
        seen: set[HloComputation] = set()
        for top in self.m.computations:
            if top in seen:
                continue
            seen.add(top)
            stack = [(top, iter([c for i in top.instructions for c in i.called_computations]))]
            while stack:
                comp, it = stack[-1]
                for c in it:
                    if c not in seen:
                        seen.add(c)
                        stack.append((c, iter([x for i in c.instructions for x in i.called_computations])))
                        break
                else:
                    stack.pop()
                    order.append(comp)
        return order

    def starting_instructions(self) -> list[HloInstruction]:
        """``FindStartingInstructionsOfHostMemoryOffload``."""
        ecl = self.m.entry_layout()
        out: list[HloInstruction] = []
        for comp in self._computation_post_order():
            if any(c.opcode is HloOpcode.FUSION for c in self.graph.callers_of(comp)):
                continue
            for instr in comp.instructions:
                if instr.opcode is HloOpcode.PARAMETER and comp is self.entry:
                    n = instr.parameter_number
                    pshape = ecl.parameters[n] if n is not None and n < len(ecl.parameters) else None
                    if pshape is not None and pshape.is_array and pshape.layout is not None and \
                            pshape.layout.memory_space == HOST_MEMORY_SPACE:
                        out.append(instr)
                        continue
                if is_move_to_host(instr):
                    out.append(instr)
        return out

    # -------------------------------------------------------------- helpers of the walks
    @staticmethod
    def _to_host_annotation(instr: HloInstruction) -> HloInstruction | None:
        """``FindToHostAnnotationToUpdate``: up through single-use bitcast/copy/reshape."""
        while not is_move_to_host(instr):
            if instr.opcode not in (HloOpcode.BITCAST, HloOpcode.COPY, HloOpcode.RESHAPE) or \
                    not instr.operands or len(instr.operands[0].users) != 1:
                return None
            instr = instr.operands[0]
        return instr

    @staticmethod
    def _to_device_annotation(instr: HloInstruction) -> HloInstruction | None:
        """``FindToDeviceAnnotationToUpdate``: down through single-use bitcast/reshape/copy/(dynamic-)slice."""
        while not is_move_to_device(instr):
            if len(instr.users) != 1 or instr.opcode not in _PASS_THROUGH:
                return None
            instr = next(iter(instr.users))
        return instr

    @staticmethod
    def _dus_from_annotation(instr: HloInstruction) -> HloInstruction:
        """``FindDUSFromAnnotation``: down through single-use bitcast/reshape/copy."""
        while instr.opcode is not HloOpcode.DYNAMIC_UPDATE_SLICE:
            if len(instr.users) != 1 or instr.opcode not in (HloOpcode.BITCAST, HloOpcode.RESHAPE, HloOpcode.COPY):
                break
            instr = next(iter(instr.users))
        return instr

    def walk_up(self, v: Value) -> Value:
        """``WalkUpMemoryOffload``: one step towards the buffer's definition (itself at the top)."""
        instr, index = v
        op = instr.opcode
        if op is HloOpcode.GET_TUPLE_ELEMENT:
            if index != -1:
                raise XlaCheckFailure(f"Check failed: index == -1 ({index} vs. -1) at {instr.name}", instr)
            return instr.operands[0], instr.gte_index()
        if op in (HloOpcode.BITCAST, HloOpcode.RESHAPE, HloOpcode.COPY, HloOpcode.OPT_BARRIER,
                  HloOpcode.DYNAMIC_UPDATE_SLICE):
            return instr.operands[0], index
        if op is HloOpcode.TUPLE:
            if not 0 <= index < len(instr.operands):
                raise XlaCheckFailure(f"Check failed: operand index {index} out of range for {instr.name}", instr)
            return instr.operands[index], -1
        if op is HloOpcode.WHILE:
            root = instr.called["body"][0].root
            if root is None or root.opcode is not HloOpcode.TUPLE:
                raise XlaCheckFailure("Check failed: root->opcode() == HloOpcode::kTuple", instr)
            return root, index
        if op is HloOpcode.PARAMETER:
            if instr.parent is self.entry:
                return v
            callers = self.graph.callers_of(instr.parent)
            if len(callers) != 1:
                raise _Unrecognized("Expected to be called only by one caller", instr)
            if callers[0].opcode is not HloOpcode.WHILE:
                raise _Unrecognized("Expected to be called by a while loop", instr)
            return callers[0].operands[0], index
        if op is HloOpcode.CUSTOM_CALL:
            if not (is_allocate_buffer(instr) or is_move_to_host(instr)):
                raise _Unrecognized("Expected AllocateBuffer or MoveToHost custom-call", instr)
            return v
        if op is HloOpcode.BROADCAST:
            operand = instr.operands[0]
            if operand.opcode is not HloOpcode.CONSTANT:
                raise _Unrecognized("Expected a constant as operand", instr)
            if sum(1 for d in operand.shape.dimensions if d != 1) != 0:
                raise _Unrecognized("Expected a scalar broadcast", instr)
            return v
        from ..syntax.hlo_printer import print_instruction
        raise _Unrecognized("Invalid opcode " + print_instruction(instr, "%"), instr)

    def _gtes(self, instr: HloInstruction, index: int, out: list[Value]) -> None:
        for user in instr.users:
            if user.opcode is not HloOpcode.GET_TUPLE_ELEMENT:
                raise _Unrecognized("Expected users to be only get-tuple-elements", user)
            if user.tuple_index == index:
                out.append((user, -1))

    def walk_down(self, v: Value, move_phase: bool) -> list[Value]:
        """``WalkDownMemoryOffload``: the next values of the chain, one per conforming user."""
        instr, index = v
        out: list[Value] = []
        if not instr.users and instr.is_root and instr.parent is not self.entry:
            callers = self.graph.callers_of(instr.computation())
            if len(callers) != 1 or callers[0].opcode is not HloOpcode.WHILE:
                raise _Unrecognized(self._callers_text(instr.computation(), callers), instr)
            self._gtes(callers[0], index, out)
            return out
        if instr.opcode is HloOpcode.PARAMETER and instr.shape.is_tuple:
            self._gtes(instr, index, out)
            return out
        for user in instr.users:
            op = user.opcode
            if op is HloOpcode.GET_TUPLE_ELEMENT:
                if user.tuple_index == index:
                    out.append((user, -1))
            elif op is HloOpcode.TUPLE:
                slots = user.operand_indices(instr)
                if len(slots) != 1:
                    raise _Unrecognized("Expected operand to be used only once in the tuple.", user)
                out.append((user, slots[0]))
            elif op is HloOpcode.OPT_BARRIER:
                out.append((user, index))
            elif op is HloOpcode.WHILE:
                out.append((user.called["body"][0].parameters[0], index))
            elif op is HloOpcode.DYNAMIC_UPDATE_SLICE:
                if user.operand_indices(instr)[0] != 0:
                    raise _Unrecognized("Expected to be used by first operand of dynamic-update-slice", user)
                out.append((user, index))
            elif op is HloOpcode.CUSTOM_CALL and is_sharding_annotation(user):
                out.append((user, index))
            elif op is HloOpcode.CUSTOM_CALL:
                if not is_move_to_device(user):
                    raise _Unrecognized("Invalid custom-call found.", user)
                out.append((user, index))
            elif op in _PASS_THROUGH:
                out.append((user, index))
            elif is_host_async_start(user):
                if move_phase:
                    raise XlaCheckFailure("Transpose copy going into host call is should not be moved. "
                                          + user.name, user)
            else:
                raise _Unrecognized(f"Unrecognized user name: {self.rn(user.name)}", user)
        return out

    # -------------------------------------------------------------- one chain
    def process(self, instr: HloInstruction) -> bool:
        """``ProcessAnnotationForCopyMovement``."""
        if instr.is_root or not instr.users:
            return False
        start = self._dus_from_annotation(next(iter(instr.users)))
        if start.opcode is not HloOpcode.DYNAMIC_UPDATE_SLICE:
            start = instr
        current: Value = (start, -1)
        self.processed.add(start)
        if start.opcode is HloOpcode.DYNAMIC_UPDATE_SLICE:
            seen = {current}
            while True:
                try:
                    up = self.walk_up(current)
                except _Unrecognized as e:
                    self.note("walk-up", e.message, e.instruction)
                    return False
                if up == current or up in seen:
                    break
                seen.add(up)
                current = up
                if current[0].opcode is HloOpcode.DYNAMIC_UPDATE_SLICE and \
                        self._to_host_annotation(current[0].operands[1]) is None:
                    raise XlaCheckFailure(
                        f"null dereference (process crash): dynamic-update-slice {self.rn(current[0].name)} "
                        "above the chain has no MoveToHost on its update (inference)", current[0])
        copies = self.collect_copies(current)
        if copies is None or not copies:
            return False
        changed = False
        for copy, index in reversed(copies):
            if copy in self.removed:
                continue
            if self.should_move_down(copy):
                self.move_down((copy, index))
                changed = True
            elif copy.operands and is_move_to_host(copy.operands[0]):
                self.move_up(copy)
                changed = True
            else:
                self.res.moves.append(LegalizeMove(self.rn(copy.name), "kept", self.start_name))
        return changed

    def collect_copies(self, top: Value) -> list[Value] | None:
        """The final walk down from the top of the chain: its copies, in discovery order.

        ``None`` when a slice/dynamic-slice in the chain has no MoveToDevice after it
        (XLA then skips the whole chain).
        """
        copies: list[Value] = []
        stack: list[Value] = [top]
        seen = {top}
        while stack:
            instr, _index = stack[-1]
            if instr.opcode in _SLICES or is_move_to_device(instr):
                mtd = self._to_device_annotation(instr)
                if mtd is None:
                    self.note("consumer", "Couldn't find annotation for consumer instruction in chain", instr)
                    return None
                self._reroute_loop_root(mtd)
                stack.pop()
                continue
            try:
                down = self.walk_down(stack[-1], move_phase=False)
            except _Unrecognized as e:
                self.note("walk-down", e.message, e.instruction)
                break
            stack.pop()
            for v in down:
                if v in seen:
                    continue
                seen.add(v)
                stack.append(v)
                if v[0].opcode is HloOpcode.COPY:
                    copies.append(v)
        return copies

    def _reroute_loop_root(self, mtd: HloInstruction) -> None:
        """A MoveToDevice'd loop value written back to the slot it came from keeps the host value."""
        comp = mtd.computation()
        root = comp.root
        if root is None or root not in mtd.users or root.opcode is not HloOpcode.TUPLE or comp is self.entry:
            return
        callers = self.graph.callers_of(comp)
        if len(callers) != 1 or callers[0].opcode is not HloOpcode.WHILE:
            raise XlaStatusError("INVALID_ARGUMENT", self._callers_text(comp, callers), mtd)
        src = mtd.operands[0]
        for i, operand in enumerate(root.operands):
            if operand is mtd and src.opcode is HloOpcode.GET_TUPLE_ELEMENT and \
                    src.operands[0].opcode is HloOpcode.PARAMETER and src.tuple_index == i:
                root.replace_operand(i, src)
                self.res.rerouted.append(f"{self.rn(root.name)}{{{i}}}")

    # -------------------------------------------------------------- moving one copy
    def should_move_down(self, copy: HloInstruction) -> bool:
        """``ShouldMoveCopyDown``: every path from the copy comes back to the device first."""
        queue = [Position(copy)]
        seen = set(queue)
        k = 0
        while k < len(queue):
            pos = queue[k]
            k += 1
            if pos.instruction.is_root and pos.instruction.parent is self.entry:
                return False
            try:
                succs = successors(pos, self.graph, follow_empty_index_gte=False)
            except (XlaCheckFailure, XlaStatusError):
                return False
            for s in succs:
                if is_move_to_device(s.instruction):
                    continue
                if s.instruction.opcode is HloOpcode.PARAMETER and s.instruction.parent is not None and \
                        (s.instruction.parent.execution_thread or "").strip('"') == HOST_THREAD:
                    return False
                if s not in seen:
                    seen.add(s)
                    queue.append(s)
        return True

    def move_up(self, copy: HloInstruction) -> None:
        """Swap the copy above the MoveToHost it reads: it then runs on the device."""
        mth = copy.operands[0]
        copy.replace_all_uses_with(mth)
        copy.operands = [mth.operands[0]]
        mth.replace_operand(0, copy)
        copy.shape = copy.shape.with_memory_space(0)
        mth.shape = mth.shape.with_layout(_layout(copy.shape))
        self.res.moves.append(LegalizeMove(self.rn(copy.name), "moved-up", self.start_name))

    def _shapes_after_bitcast(self, bitcast: HloInstruction, copy: HloInstruction, before: Shape,
                              after: Shape) -> tuple[Shape, Shape]:
        """``GetNewShapesAfterBitcast``: the copy's shapes as if the bitcast came first."""
        if not copy.operands[0].shape.compatible(copy.shape):
            from ..syntax.hlo_printer import print_instruction
            raise XlaStatusError("INTERNAL", "Expecting copy to only change instruction's layout. Copy: "
                                 + print_instruction(copy, "%"), copy)
        src, dst = bitcast.operands[0].shape, bitcast.shape
        if dst.rank == src.rank - 1:
            if not (_effectively_most_major(src, 0) and src.dimensions[0] == 1):
                raise XlaStatusError("INTERNAL", "Only handling bitcasts with majormost dimension of size 1. "
                                     f'This bitcast is "{bitcast.name}"', bitcast)
            return _remove_majormost(before), _remove_majormost(after)
        if dst.rank == src.rank + 1:
            if not (_effectively_most_major(dst, 0) and dst.dimensions[0] == 1):
                raise XlaStatusError("UNIMPLEMENTED", "Only handling bitcasts with majormost dimension of size 1. "
                                     f'This bitcast is "{bitcast.name}"', bitcast)
            return _add_majormost(before), _add_majormost(after)
        if dst.rank == src.rank:
            if not dst.compatible(src):
                raise XlaStatusError("UNIMPLEMENTED", f'Only handling bitcasts which change the layout. This bitcast '
                                     f'("{bitcast.name}") has input shape "{src}" and output shape "{dst}".', bitcast)
            if _same_shape(src, dst):
                return before, after
            ls, ld = _layout(src), _layout(dst)
            if ls.minor_to_major != ld.minor_to_major and \
                    replace(ls, minor_to_major=()) == replace(ld, minor_to_major=()):
                perm = [ld.minor_to_major.index(d) for d in ls.minor_to_major]

                def permuted(s: Shape) -> Shape:
                    m2m = _layout(s).minor_to_major
                    return s.with_layout(replace(_layout(s), minor_to_major=tuple(m2m[p] for p in perm)))
                return permuted(before), permuted(after)
            raise XlaStatusError("UNIMPLEMENTED", "Something about this layout changed other than the minor-to-major "
                                 f'ordering. This is unsuppored. Bitcast: "{bitcast.name}"', bitcast)
        raise XlaStatusError("UNIMPLEMENTED", f'Bitcast changes dimensionality in an unsupported way. Bitcast: '
                             f'"{bitcast.name}"', bitcast)

    def move_down(self, v: Value) -> None:
        """``MoveCopyDown``: undo the copy's layout change down the chain, redo it after each MoveToDevice."""
        copy = v[0]
        new_copies: list[str] = []
        after: list[str] = []
        shapes: list[tuple[str, str]] = []
        stack: list[tuple[Value, Shape, Shape]] = [(v, copy.operands[0].shape, copy.shape)]
        seen = {v}
        while stack:
            cur, before, after_copy = stack.pop()
            try:
                users = self.walk_down(cur, move_phase=True)
            except _Unrecognized as e:
                self.note("move-down", e.message, e.instruction)
                break
            for nxt in users:
                if nxt in seen:
                    continue
                seen.add(nxt)
                instr, index = nxt
                b, a = before, after_copy
                if instr.opcode is HloOpcode.BITCAST:
                    b, a = self._shapes_after_bitcast(instr, copy, b, a)
                elif instr.opcode in _SLICES:
                    a = instr.shape.with_layout(_layout(a))
                self._set_layout(nxt, _layout(b))
                if instr.opcode is HloOpcode.PARAMETER:
                    callers = self.graph.callers_of(instr.parent)
                    if len(callers) != 1:
                        raise XlaStatusError("INVALID_ARGUMENT", "Expected to be called only by one caller", instr)
                    self._set_layout((callers[0], index), _layout(b))
                if instr.opcode is HloOpcode.COPY:
                    raise XlaCheckFailure("Copies should be processed in reverse order so this never happens", instr)
                if instr.opcode in _SLICES or is_move_to_device(instr):
                    made = self._copy_after_annotation(instr, copy, b, a)
                    new_copies.append(made[0])
                    after.append(made[1])
                    shapes.append(made[2])
                    continue
                if instr.opcode is HloOpcode.DYNAMIC_UPDATE_SLICE:
                    self._move_update_annotation(instr)
                stack.append((nxt, b, a))
        copy.replace_all_uses_with(copy.operands[0])
        self._remove(copy)
        self.res.moves.append(LegalizeMove(self.rn(copy.name), "moved-down", self.start_name,
                                           tuple(new_copies), tuple(after), tuple(shapes)))

    def _copy_after_annotation(self, instr: HloInstruction, copy: HloInstruction, before: Shape,
                               after: Shape) -> tuple[str, str, tuple[str, str]]:
        annotation = self._to_device_annotation(instr)
        if annotation is None:
            raise XlaCheckFailure("We already verified we could find an annotation here. Something went wrong.",
                                  instr)
        if instr.opcode is HloOpcode.CUSTOM_CALL:
            new_annotation = annotation
        else:
            new_annotation = self._clone(annotation, instr.shape, [instr], instr.computation())
        self._set_layout((new_annotation, -1), _layout(before))
        new_copy = self._clone(copy, after, [new_annotation], instr.computation())
        for use in list(instr.users):
            if use is not new_copy and use is not new_annotation:
                self._replace_use(instr, use, new_copy)
        if new_annotation is not annotation:
            annotation.replace_all_uses_with(annotation.operands[0])
            self._remove(annotation)
        original = self.rn(self.clone_of.get(annotation.name, annotation.name))
        return new_copy.name, original, (str(new_annotation.shape), str(new_copy.shape))

    def _move_update_annotation(self, dus: HloInstruction) -> None:
        """Put the update's MoveToHost right before the DUS (and a device copy when layouts differ)."""
        annotation = self._to_host_annotation(dus.operands[1])
        if annotation is None:
            raise XlaStatusError("INTERNAL", "Annotation not found.", dus)
        update = dus.operands[1]
        new_annotation = self._clone(annotation, update.shape, [update], dus.computation())
        dus.replace_operand(1, new_annotation)
        annotation.replace_all_uses_with(annotation.operands[0])
        self.processed.add(annotation)
        self.processed.add(new_annotation)
        self._remove(annotation)
        if _layout(dus.shape).minor_to_major != _layout(new_annotation.shape).minor_to_major:
            new_annotation.shape = new_annotation.shape.with_layout(_layout(dus.shape))
            fix = self._new_copy(new_annotation.operands[0], new_annotation.shape)
            new_annotation.replace_operand(0, fix)


def run_legalize(module: HloModule, rename: Callable[[str], str] | None = None) -> LegalizeResult:
    """Run HostOffloadLegalize on ``module`` in place (a private copy); what it did."""
    return HostOffloadLegalizer(module, rename).run()
