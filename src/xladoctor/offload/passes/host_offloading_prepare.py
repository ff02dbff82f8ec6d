"""What the TPU pipeline does to placement annotations before HostOffloader runs.

The real compiler (libtpu 0.0.42.1) disagreed with a model that runs HostOffloader on
the module as lowered; these rewrites, each of which XLA performs earlier in its
pipeline, make the two agree on the programs the campaign generates:

* **Rebuilt from StableHLO**: the compiler gets the module as StableHLO (JAX's lowering, or
  HLO text converted), where ``get-tuple-element(tuple(...))`` pairs fold and dead code
  goes, and builds HLO from it as the results need it: a DFS from the root, operands first
  (whatever order the ops are written in: ``negate`` written before ``add`` in
  ``return add(h, h), negate(h)`` is built after it), so every value's users come in that
  post order, whatever rewrites produced them (:func:`rebuild_as_compiled`).
* **Sharding markers removed**: JAX's ``Sharding`` and Shardy's ``xla.sdy.*`` custom calls
  (``FuncResultSharding`` before every result) are replaced by their operand.  That
  rewires users: each becomes the newest user of the operand, and removing the marker
  moves the operand's last user into the marker's slot (XLA's ``Users``).  The order of a
  value's users decides the order of the walks, hence which E1200 is reported: the real
  compiler reports ``tuple.1`` for ``return h, f(h)`` because of this.  (Replacing
  ``annotate_device_placement`` by a new MoveToHost keeps its slot, by the same rule.)
* **CSE of annotations** (``HloCSE``): two MoveToHost (or two MoveToDevice) of the same
  value (looking through JAX's ``Sharding`` markers, gone by then) are one.  JAX marks ``annotate_device_placement`` side-effecting, which would
  keep both, but XLA turns them into plain MoveToHost/MoveToDevice custom calls first.
* **Host computations** (``compute_on("device_host")``: a ``call`` whose
  ``_xla_compute_type`` is ``host``): XLA wraps the call into an async host
  computation and ``HostOffloadingPrepare`` (``RemoveSurroundingMoveCustomCalls``)
  removes every MoveToHost that feeds it directly, replacing all its uses by its
  operand.  The host computation is then compiled on its own: host memory does not
  flow through it (see :func:`is_host_computation_call`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import HloOpcode
from ..annotations import ANNOTATION_TARGETS, COMPUTE_TYPE_ATTR, COMPUTE_TYPE_HOST, is_move_to_device, is_move_to_host
from .hlo_cse import merge_duplicates
from .host_offload_utils import is_sharding_annotation


def rebuild_as_compiled(module: HloModule,
                        left_out: Mapping[str, list[HloInstruction]] | None = None) -> list[HloInstruction]:
    """Fold ``gte(tuple)``, drop dead code, and order users by position (see the module doc);
    returns the dead instructions removed.  ``left_out``: the dead code the copy already left
    out, by computation (:func:`.hlo_dce.remove_dead_code`)."""
    from .call_inliner import forward_tuple_elements
    from .hlo_dce import remove_dead_code

    forward_tuple_elements(module)
    dead = remove_dead_code(module, left_out)
    for comp in module.computations:
        comp.instructions = comp.post_order()  # without dead code: the root's DFS, as built
        comp.sort_users_by_position()
    return dead


def remove_sharding_markers(module: HloModule) -> list[str]:
    """Replace each sharding marker by its operand (``ReplaceAllUsesWith`` then removal); names.

    As XLA's ``ShardingRemover``: markers in reverse post order, and a ``Sharding`` or
    ``FuncResultSharding`` marker is replaced by a ``copy`` of its operand, which the next
    ``HloDCE`` removes (in creation order, each removal moving the operand's last user into
    its slot).  That reorders the users of an operand two markers shared: seed 1 program 335,
    ``return h, h, h * 2`` with the two annotations CSE'd, starts from the multiply in libtpu."""
    removed: list[str] = []
    for comp in module.computations:
        markers = [i for i in comp.instructions if i.opcode is HloOpcode.CUSTOM_CALL and is_sharding_annotation(i)]
        if not markers:
            continue
        gone: set[HloInstruction] = set()
        copies: list[HloInstruction] = []
        for instr in reversed(_in_removal_order(comp, markers)):
            if instr not in gone:
                instr.replace_all_uses_with(instr.operands[0])
                if instr.custom_call_target in _COPIED_MARKERS:
                    copies.append(_dead_copy(instr))
                comp.unhook(instr)  # now: the operand's users are reordered as XLA's removal does
                gone.add(instr)
                removed.append(instr.name)
        comp.drop_removed(gone, release_names=False)  # one sweep: two markers per host move
        for copy in copies:  # HloDCE
            copy.operands = ()
    return removed


_COPIED_MARKERS = frozenset({"Sharding", "xla.sdy.FuncResultSharding"})


def _dead_copy(marker: HloInstruction) -> HloInstruction:
    """The ``copy`` ShardingRemover leaves for dead-code elimination: only its place among the
    operand's users matters (it is outside the module, and gone before any other pass runs)."""
    copy = HloInstruction("copy", HloOpcode.COPY, marker.shape)
    copy.operands = [marker.operands[0]]
    return copy


def _in_removal_order(comp: HloComputation, markers: list[HloInstruction]) -> list[HloInstruction]:
    """The markers in post order (XLA removes them in its reverse).  Removing one rewires only its own
    operand's users and its users' operand slots, so markers on distinct operands that are
    not markers themselves give the same graph in any order: then text order serves, and
    the post order (a walk of the whole computation) is not needed."""
    operands = {id(m.operands[0]) for m in markers}
    if len(operands) == len(markers) and not any(id(m) in operands for m in markers):
        return markers
    listed = set(markers)
    return [i for i in comp.post_order() if i in listed]


def is_host_computation_call(instr: HloInstruction) -> bool:
    """A ``call`` that JAX's ``compute_on("device_host")`` marked to run on the host."""
    return instr.opcode is HloOpcode.CALL and instr.frontend_attributes.get(COMPUTE_TYPE_ATTR) == COMPUTE_TYPE_HOST


def _annotation_key(instr: HloInstruction) -> tuple | None:
    key = _kind_and_operands(instr)
    return None if key is None else (*key, str(instr.shape))


def _kind_and_operands(instr: HloInstruction) -> tuple | None:
    if instr.opcode is not HloOpcode.CUSTOM_CALL:
        return None  # most instructions: one identity test before the annotation predicates
    if is_move_to_host(instr):
        kind = "host"
    elif is_move_to_device(instr):
        kind = "device"
    else:
        return None
    return (kind, tuple(id(_through_sharding(o)) for o in instr.operands))


def _through_sharding(instr: HloInstruction) -> HloInstruction:
    """The value under JAX's sharding markers (the partitioner removes them before CSE)."""
    while instr.opcode is HloOpcode.CUSTOM_CALL and is_sharding_annotation(instr):
        instr = instr.operands[0]
    return instr


def _may_have_duplicates(instructions: list[HloInstruction]) -> bool:
    """Whether two annotations have the same kind and operands (the key without the shape,
    whose printing cost a third of this pass on a 50k-instruction module): without such a
    pair no two full keys are equal."""
    custom_call = HloOpcode.CUSTOM_CALL  # tested here: a call per instruction was most of the pass
    candidates = [i for i in instructions if i.opcode is custom_call and i.custom_call_target in ANNOTATION_TARGETS]
    keys = [key for key in map(_kind_and_operands, candidates) if key is not None]
    return len(keys) != len(set(keys))


def merge_duplicate_annotations(module: HloModule) -> list[tuple[str, str]]:
    """``(removed, kept)`` names: later duplicates are replaced by the first one in post order
    (``HloCSE`` keeps the first it meets)."""
    merged: list[tuple[str, str]] = []
    for comp in module.computations:
        if not _may_have_duplicates(comp.instructions):
            continue  # no duplicates: nothing to merge
        merged.extend(merge_duplicates(comp, _annotation_key))
    return merged


def elide_moves_into_host_calls(module: HloModule) -> list[str]:
    """MoveToHosts feeding a host computation call directly, removed (their names)."""
    elided: list[str] = []
    for comp in module.computations:
        gone: set[HloInstruction] = set()
        for call in [i for i in comp.instructions if is_host_computation_call(i)]:
            for operand in list(call.operands):
                if is_move_to_host(operand) and operand.parent is comp and operand not in gone:
                    comp.replace_and_unhook(operand, operand.operands[0], gone)
                    elided.append(operand.name)
        comp.drop_removed(gone, release_names=False)
    return elided
