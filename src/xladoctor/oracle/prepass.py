"""Our module after the pre-passes against the one the real compiler hands HostOffloadLegalize.

libtpu writes the module before each pass of a pipeline when compiled with
:data:`DUMP_FLAGS` in ``XLA_FLAGS`` (``../shared/docs/real-compiler.md`` §1), also when the
compile then fails; ``...host_offloading.after_pipeline-start.before_host-offload-legalize.txt``
is exactly what HostOffloadLegalize and HostOffloader receive.  :func:`prepared_module` is ours
(the pre-passes of :func:`xladoctor.offload.pipeline.offload_pipeline` on a copy); :func:`compare_prepared` compares the
two graphs modulo names.

**Renaming rule.**  Names differ (the compiler's round trip through StableHLO renames
``h`` to ``h.1``, SPMD renames parameters), so instructions are numbered instead: each
computation reachable from the entry, in the order first called (entry first; a computation's
callees in its own canonical order), lists its
parameters by number, then the post order of its root (operands in operand order), then what
is not reachable from the root (side effects) in the same post order.  An instruction is
compared by its line: opcode, shape **without layouts** (tiles, memory spaces: layout
assignment ran in the compiler and not in ours, and HostOffloader clears S(5) from every
instruction first), custom-call target (JAX's ``annotate_device_placement`` read as the
MoveToHost/MoveToDevice XLA makes of it), tuple index, parameter number, the attributes that
change dataflow (``slice``, ``dimensions``, ``dynamic_slice_sizes``, ``padding``,
``index``), the called computations by their number and the operands by their number.

Read as equal, because HostOffloader cannot tell them apart:

* **constants** are values, not numbered lines: an operand that is a constant reads as its
  shape and (scalars) literal (a floating one by its value: ``%.9g``), so HloCSE merging equal constants and while-loop constant
  sinking copying them change nothing; a folded constant (a different literal) still differs;
* a ``reshape`` the model already reads as a bitcast (:func:`~xladoctor.offload.passes.host_offload_utils.reshape_is_bitcast`)
  reads as the ``bitcast`` AlgebraicSimplifier makes of it after layout assignment;
* ``dot`` and ``convolution`` (the TPU's dot canonicalisation): both are compute;
* a host computation: our ``call`` of a ``compute_on("device_host")`` body and the compiler's
  ``async-done(async-start)`` pair (``hlo_device_type_async_wrapper``: the async computation
  is one ``HostExecute`` custom call of the body) both read as ``call`` of the body.

**The oracle's route.**  HLO text reaches libtpu only through StableHLO, which returns the single
element of a one-element entry root tuple directly (the named divergence
``one-element-tuple-root``; JAX never lowers such a root).  When our entry root is such a tuple
and the compiler's is not, our root is read as the tuple's element (and the result's ``S(5)``
leaves without the leading ``0``): the difference is the route's, not a pass's.

Ignored: names, metadata, frontend attributes, sharding, backend configs, layouts and
non-scalar literals.  The entry layout's memory spaces (``S(5)`` leaves of parameters and
results) are compared as one line of their own.

The first line that differs gives the first differing instruction on each side (by name).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from ..ir.computation import HloComputation
from ..ir.instruction import HloInstruction
from ..ir.module import HloModule
from ..ir.opcodes import HloOpcode
from ..ir.shape import HOST_MEMORY_SPACE, Shape

DUMP_FLAGS = "--xla_dump_hlo_pass_re=host-offload-legalize"
"""With ``--xla_dump_to=DIR``: the modules before and after HostOffloadLegalize, and the
default dumps (``before_optimizations``...); ``.*`` would dump before every pass."""
DUMP_SUFFIX = "before_host-offload-legalize.txt"
_ATTRIBUTES = ("slice", "dimensions", "dynamic_slice_sizes", "padding", "index")


@dataclass(frozen=True)
class CanonicalLine:
    """One instruction under the renaming rule: ``text`` is what is compared, ``name`` where it is."""

    text: str
    name: str
    computation: str


@dataclass
class PrepassComparison:
    """Where our prepared module and the compiler's first differ (``identical`` when nowhere)."""

    identical: bool
    ours: CanonicalLine | None = None
    """Our first differing instruction (None: ours ended first)."""
    theirs: CanonicalLine | None = None
    """The compiler's first differing instruction (None: theirs ended first)."""
    ours_count: int = 0
    theirs_count: int = 0

    def describe(self) -> str:
        """``ours <line> | theirs <line>`` (a campaign log's record, not user prose)."""
        if self.identical:
            return "identical"
        return f"ours {_show(self.ours)} | theirs {_show(self.theirs)}"

    def difference_class(self) -> str:
        """A short key that groups differences: the two first differing opcodes."""
        if self.identical:
            return "identical"
        return f"{_opcode_of(self.ours)}->{_opcode_of(self.theirs)}"


def _show(line: CanonicalLine | None) -> str:
    return "<end>" if line is None else f"{line.computation}/{line.name}: {line.text}"


def _opcode_of(line: CanonicalLine | None) -> str:
    if line is None:
        return "<end>"
    head = line.text.removeprefix("ROOT ").split(" ", 2)
    return head[1] if len(head) > 1 else line.text


def prepared_module(module: HloModule, inline_calls: bool | None = None) -> HloModule:
    """A copy of ``module`` after the pre-passes (:func:`~xladoctor.offload.pipeline.offload_pipeline`'s
    ``pre_passes_only``), as the analysis runs them (``inline_calls=None``: when the module looks
    pre-optimisation)."""
    from ..offload.clone import clone_module
    from ..offload.passes.call_inliner import looks_pre_optimization
    from ..offload.pipeline import PipelineConfig, offload_pipeline

    if inline_calls is None:
        inline_calls = looks_pre_optimization(module)
    copy = clone_module(module)
    offload_pipeline(PipelineConfig(inline_calls), module, pre_passes_only=True).run(copy)
    return copy


def read_dump(directory: str) -> str | None:
    """The ``before_host-offload-legalize`` module in a dump folder (the newest), or None when
    the compile stopped before host offloading."""
    found = glob.glob(os.path.join(glob.escape(directory), f"*{DUMP_SUFFIX}"))
    if not found:
        return None
    with open(max(found, key=os.path.getmtime), encoding="utf-8") as f:
        return f.read()


def canonical_lines(module: HloModule, flatten_root: bool = False) -> list[CanonicalLine]:
    """Every instruction of the computations reachable from the entry, under the renaming rule
    (``flatten_root``: a one-element entry root tuple read as its element, the oracle's route)."""
    entry = module.entry_computation()
    flatten_root = flatten_root and _one_element_root(module)
    lines = [CanonicalLine(_entry_memory_spaces(module, flatten_root), "entry_computation_layout", "")]
    numbers: dict[HloComputation, int] = {}
    queue = [entry]
    numbers[queue[0]] = 0
    while queue:
        comp = queue.pop(0)
        root = comp.root_instruction().operands[0] if flatten_root and comp is entry else comp.root_instruction()
        order = _canonical_order(comp, root)
        for instr in order:  # callees numbered in the caller's canonical order, not its text order
            for called in _callees(instr):
                if called not in numbers:
                    numbers[called] = len(numbers)
                    queue.append(called)
        lines.extend(_computation_lines(comp, order, numbers, root))
    return lines


def _one_element_root(module: HloModule) -> bool:
    root = module.entry_computation().root_instruction()
    return root.opcode is HloOpcode.TUPLE and len(root.operands) == 1


def _computation_lines(comp: HloComputation, order: list[HloInstruction],
                       numbers: dict[HloComputation, int], root: HloInstruction) -> list[CanonicalLine]:
    index = {instr: k for k, instr in enumerate(order)}
    tag = f"c{numbers[comp]}"
    out = []
    for k, instr in enumerate(order):
        operands = ",".join(_operand_text(o, index) for o in _operands(instr))
        calls = ",".join(f"c{numbers[c]}" for c in _callees(instr))
        text = f"%{k} {_opcode_text(instr)} {_shape_text(instr.shape)}{_details(instr)}({operands})"
        if calls:
            text += f" calls={calls}"
        if instr is root:
            text = "ROOT " + text
        out.append(CanonicalLine(text, instr.name, f"{tag}:{comp.name}"))
    return out


def _operand_text(operand: HloInstruction, index: dict[HloInstruction, int]) -> str:
    if operand.opcode is HloOpcode.CONSTANT:
        return f"${_shape_text(operand.shape)}{_details(operand)}"
    return f"%{index[operand]}" if operand in index else "%?"


def _host_execute_body(instr: HloInstruction) -> HloComputation | None:
    """For the compiler's ``async-done`` of a host computation: the body its ``HostExecute`` runs."""
    if instr.opcode is not HloOpcode.ASYNC_DONE or instr.operands[0].opcode is not HloOpcode.ASYNC_START:
        return None
    start = instr.operands[0]
    wrapped = start.called_computations
    root = wrapped[0].root if len(wrapped) == 1 else None
    if root is None or root.opcode is not HloOpcode.CUSTOM_CALL or root.custom_call_target != "HostExecute":
        return None
    names = root.attributes.get("called_computations", "").strip("{} ").split(",")
    module = instr.parent.module if instr.parent is not None else None
    if len(names) != 1 or module is None:
        return None
    try:
        return module.computation(names[0].strip().lstrip("%"))
    except KeyError:
        return None


def _is_host_async_start(instr: HloInstruction) -> bool:
    return instr.opcode is HloOpcode.ASYNC_START and len(instr.users) == 1 and \
        _host_execute_body(next(iter(instr.users))) is not None


def _operands(instr: HloInstruction) -> tuple[HloInstruction, ...]:
    return instr.operands[0].operands if _host_execute_body(instr) is not None else instr.operands


def _callees(instr: HloInstruction) -> list[HloComputation]:
    body = _host_execute_body(instr)
    return [body] if body is not None else instr.called_computations


def _opcode_text(instr: HloInstruction) -> str:
    from ..offload.passes.host_offload_utils import reshape_is_bitcast

    if _host_execute_body(instr) is not None:
        return HloOpcode.CALL.value
    if instr.opcode is HloOpcode.RESHAPE and reshape_is_bitcast(instr):
        return HloOpcode.BITCAST.value
    if instr.opcode is HloOpcode.CONVOLUTION:
        return HloOpcode.DOT.value
    return instr.opcode.value


def _canonical_order(comp: HloComputation, root: HloInstruction) -> list[HloInstruction]:
    """Parameters by number, the root's post order, then the rest (unreachable) in post order;
    constants (read as values by :func:`_operand_text`) only where one is the root."""
    order = sorted(comp.parameters, key=lambda p: p.parameter_number or 0)
    seen = set(order)
    starts = [root] + [i for i in comp.instructions if not i.users and i is not comp.root and i is not root]
    for start in starts:
        stack: list[tuple[HloInstruction, int]] = [(start, 0)]
        while stack:
            instr, k = stack.pop()
            if instr in seen:
                continue
            if k < len(instr.operands):
                stack.append((instr, k + 1))
                operand = instr.operands[k]
                if operand not in seen:
                    stack.append((operand, 0))
                continue
            seen.add(instr)
            if (instr.opcode is not HloOpcode.CONSTANT or instr is root) and not _is_host_async_start(instr):
                order.append(instr)
    return order


def _details(instr: HloInstruction) -> str:
    parts = []
    if instr.opcode is HloOpcode.CUSTOM_CALL:
        parts.append(f"target={_target(instr)}")
    if instr.opcode is HloOpcode.GET_TUPLE_ELEMENT:
        parts.append(f"index={instr.tuple_index}")
    if instr.opcode is HloOpcode.PARAMETER:
        parts.append(f"number={instr.parameter_number}")
    if instr.opcode is HloOpcode.CONSTANT and instr.shape.is_array and not instr.shape.dimensions:
        parts.append(f"literal={_literal(instr)}")
    attrs = instr.attributes
    parts.extend(f"{a}={attrs[a]}" for a in _ATTRIBUTES if a in attrs)
    return " [" + " ".join(parts) + "]" if parts else ""


def _literal(instr: HloInstruction) -> str | None:
    """A scalar literal by its value: a floating one as ``%.9g`` of it (JAX prints the shortest
    text, ``0.03567741``, libtpu nine digits, ``0.0356774069``: the same f32)."""
    text = instr.literal
    if text is None or instr.shape.element_type.kind != "float":
        return text
    try:
        value = float(text.strip())
    except ValueError:
        return text
    if instr.shape.element_type.bits == 32:
        import struct

        value = struct.unpack("f", struct.pack("f", value))[0]
    return f"{value:.9g}"


def _target(instr: HloInstruction) -> str | None:
    """JAX's ``annotate_device_placement`` is the MoveToHost/MoveToDevice XLA turns it into."""
    from ..offload.annotations import is_move_to_device, is_move_to_host

    if is_move_to_host(instr):
        return "MoveToHost"
    if is_move_to_device(instr):
        return "MoveToDevice"
    return instr.custom_call_target


def _shape_text(shape: Shape) -> str:
    return shape.human_string()


def _entry_memory_spaces(module: HloModule, flatten_root: bool = False) -> str:
    layout = module.entry_layout()
    params = [_host_leaves(p) for p in layout.parameters]
    result = _host_leaves(layout.result)
    if flatten_root:
        result = [leaf[1:] for leaf in result]
    return f"entry S(5) leaves: {params}->{result}"


def _host_leaves(shape: Shape) -> list[tuple[int, ...]]:
    return [tuple(index) for index, leaf in shape.leaves() if leaf.is_array and leaf.memory_space == HOST_MEMORY_SPACE]


def compare_prepared(ours: HloModule, theirs: HloModule) -> PrepassComparison:
    """The two modules' :func:`canonical_lines`, side by side: where they first differ."""
    flatten = _one_element_root(ours) and theirs.entry_computation().root_instruction().opcode is not HloOpcode.TUPLE
    a, b = canonical_lines(ours, flatten), canonical_lines(theirs)
    for x, y in zip(a, b):
        if x.text != y.text:
            return PrepassComparison(False, x, y, len(a), len(b))
    if len(a) == len(b):
        return PrepassComparison(True, ours_count=len(a), theirs_count=len(b))
    n = min(len(a), len(b))
    return PrepassComparison(False, a[n] if n < len(a) else None, b[n] if n < len(b) else None, len(a), len(b))
