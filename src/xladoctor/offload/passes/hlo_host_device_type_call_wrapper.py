"""XLA's ``HloHostDeviceTypeCallWrapper``: the host computations of a computation become one ``host-call``.

libtpu's compile starts with the ``hlo_device_type_async_wrapper`` pipeline, whose
``hlo_host_device_type_call_wrapper`` (``xla/core/host_offloading/hlo_host_device_type_call_wrapper.cc``)
wraps the instructions marked ``_xla_compute_type="host"`` with
``offloader_util::FindAndWrapOffloadedComputations``
(``xla/hlo/transforms/offloaded_instruction_wrapper.cc``).  With no schedule every host
instruction may be fused, so two ``compute_on("device_host")`` calls of one function that do not
depend on each other reach HostOffloader as one host call with a tuple of both results (the
comparison with the compiler's ``before_host-offload-legalize`` dump,
:mod:`xladoctor.oracle.prepass`, found it on every generated program with two such calls).

Modelled, for the case the campaign has -- every host instruction of the computation is a
``call`` whose callee's root is not a tuple, and no host call depends on another (an operand
chain from one to another makes the wrapper build separate computations; then nothing is
merged here):

* the instructions are walked in reverse post order; the first host call met is the root of the
  new computation, each later one is appended with ``add_output=true``: its operands become new
  parameters (after the earlier ones; one the call has already is that parameter), its result
  a new element of the root tuple;
* the merged call takes the callees' bodies (cloned) under one computation whose root is the
  tuple of their roots, in that order; each original call's users read its element through a
  ``get-tuple-element``.  The merged call keeps ``_xla_compute_type="host"``, as the model of
  the later passes reads host calls by it (:func:`.host_offloading_prepare.is_host_computation_call`).
"""

from __future__ import annotations

from operator import attrgetter

from ...ir.computation import HloComputation
from ...ir.instruction import COMPILED, HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CALL, GET_TUPLE_ELEMENT, PARAMETER, TUPLE
from ...ir.shape import Shape
from ..annotations import COMPUTE_TYPE_ATTR, COMPUTE_TYPE_HOST, is_host_compute
from .hlo_pass_interface import HloPassInterface

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final

_EXTRA: Final = attrgetter("_extra")


def wrap_host_calls(module: HloModule) -> list[str]:
    """Merge the independent host calls of each computation; the merged calls' names."""
    made: list[str] = []
    for comp in list(module.computations):
        calls = _mergeable(comp)
        if calls:
            made.append(_merge(module, comp, calls))
    return made


def _two_host_computes(instructions: list[HloInstruction]) -> bool:
    """Whether two of ``instructions`` are :func:`~..annotations.is_host_compute`: its test on the
    rare fields of those that have them (frontend attributes live there; a train step: 99 of
    4,316), which ``map`` finds without a Python call per instruction.  Compiled, a native loop
    reads them (``attrgetter`` would read each native field through Python's protocol)."""
    found = 0
    if COMPILED:
        for instr in instructions:
            extra = instr._extra
            if extra is not None and extra.frontend_attributes.get(COMPUTE_TYPE_ATTR) == COMPUTE_TYPE_HOST:
                found += 1
                if found == 2:
                    return True
        return False
    for extra in filter(None, map(_EXTRA, instructions)):
        if extra.frontend_attributes.get(COMPUTE_TYPE_ATTR) == COMPUTE_TYPE_HOST:
            found += 1
            if found == 2:
                return True
    return False


def _mergeable(comp: HloComputation) -> list[HloInstruction]:
    """The host calls in the order the wrapper meets them, or [] when they are not mergeable."""
    if not _two_host_computes(comp.instructions):
        return []  # most computations: no post order to build
    hosts = [i for i in reversed(comp.post_order()) if is_host_compute(i)]
    if any(i.opcode is not CALL or len(i.called_computations) != 1 for i in hosts):
        return []
    if any(c.called_computations[0].root_instruction().opcode is TUPLE for c in hosts):
        return []
    listed = set(hosts)
    for call in hosts:  # an operand chain from one host call to another: separate computations
        stack, seen = list(call.operands), set()
        while stack:
            instr = stack.pop()
            if instr in listed:
                return []
            if instr not in seen:
                seen.add(instr)
                stack.extend(instr.operands)
    return hosts


def _merge(module: HloModule, comp: HloComputation, calls: list[HloInstruction]) -> str:
    body = HloComputation(module.unique_computation_name("called_computation"))
    module.add_computation(body)
    operands: list[HloInstruction] = []
    roots: list[HloInstruction] = []
    for call in calls:
        callee = call.called_computations[0]
        mapping: dict[HloInstruction, HloInstruction] = {}
        for k, param in enumerate(callee.parameters):
            if call.operands[k] in operands:  # an operand the call has already: its parameter
                mapping[param] = body.parameters[operands.index(call.operands[k])]
                continue
            new = HloInstruction(module.unique_name("param"), PARAMETER, param.shape)
            new.parameter_number = len(operands)
            body.add_instruction(new)
            mapping[param] = new
            operands.append(call.operands[k])
        for instr in callee.instructions:
            if instr.opcode is PARAMETER:
                continue
            clone = instr.clone_with_new_operands(instr.shape, [mapping.get(o, o) for o in instr.operands],
                                                  module.unique_name(instr.name))
            body.add_instruction(clone)
            mapping[instr] = clone
        roots.append(mapping[callee.root_instruction()])
    root = HloInstruction(module.unique_name("tuple"), TUPLE, Shape.tuple([r.shape for r in roots]))
    body.add_instruction(root)
    root.operands = tuple(roots)
    body.set_root_instruction(root)
    first = calls[0]
    merged = first.clone_with_new_operands(root.shape, operands, module.unique_name("host-call"))
    merged.set_called_computations({"to_apply": [body]})
    merged.attributes = {**merged.attributes, "to_apply": body.name}
    comp.insert_before(first, merged)
    elements = []
    for k, call in enumerate(calls):
        element = HloInstruction(module.unique_name("get-tuple-element"), GET_TUPLE_ELEMENT, call.shape)
        element.tuple_index = k
        element.attributes = {"index": str(k)}
        comp.insert_before(first, element)
        element.operands = (merged,)
        elements.append(element)
    for call, element in zip(calls, elements):
        comp.replace_instruction(call, element)
    module.calls_changed()
    callees = [c.called_computations[0] for c in calls]
    module.remove_computations([c for c in callees if not module.callers_of(c)])
    return merged.name


class HloHostDeviceTypeCallWrapper(HloPassInterface):
    """The pass: :func:`wrap_host_calls`."""

    name = "hlo_host_device_type_call_wrapper"

    def run(self, module: HloModule) -> bool:
        return bool(wrap_host_calls(module))
