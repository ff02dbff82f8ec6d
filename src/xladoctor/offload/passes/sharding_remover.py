"""XLA's ``ShardingRemover`` (``xla/hlo/transforms/simplifiers/sharding_remover.cc``): sharding markers go.

JAX's ``Sharding`` and Shardy's ``xla.sdy.*`` custom calls
(``FuncResultSharding`` before every result) are replaced by their operand.  That
rewires users: each becomes the newest user of the operand, and removing the marker
moves the operand's last user into the marker's slot (XLA's ``Users``).  The order of a
value's users decides the order of the walks, hence which E1200 is reported: the real
compiler reports ``tuple.1`` for ``return h, f(h)`` because of this.  (Replacing
``annotate_device_placement`` by a new MoveToHost keeps its slot, by the same rule.)

Shardy's ``xla.sdy.GlobalToLocalShape``/``LocalToGlobalShape`` (a ``shard_map``'s boundaries)
change shapes: XLA's SPMD partitioner, before ShardingRemover, makes the values around them
per-device (:mod:`.sdy_manual_shapes`), and only then are they removed like the markers.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import COPY, CUSTOM_CALL
from .hlo_pass_interface import HloPassInterface
from .host_offload_utils import is_sharding_annotation
from .sdy_manual_shapes import is_shape_changing, localize_manual_computations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Final


def remove_sharding_markers(module: HloModule, localized: list[str] | None = None) -> list[str]:
    """Replace each sharding marker by its operand (``ReplaceAllUsesWith`` then removal); names.

    As XLA's ``ShardingRemover``: markers in reverse post order, and a ``Sharding`` or
    ``FuncResultSharding`` marker is replaced by a ``copy`` of its operand, which the next
    ``HloDCE`` removes (in creation order, each removal moving the operand's last user into
    its slot).  That reorders the users of an operand two markers shared: seed 1 program 335,
    ``return h, h, h * 2`` with the two annotations CSE'd, starts from the multiply in libtpu.
    ``localized``: where given, the names of the instructions given per-device shapes, appended."""
    names = localize_manual_computations(module)
    if localized is not None:
        localized.extend(names)
    removed: list[str] = []
    for comp in module.computations:
        markers = [i for i in comp.instructions
                   if i.opcode is CUSTOM_CALL and is_sharding_annotation(i) and not is_shape_changing(i)]
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


_COPIED_MARKERS: Final = frozenset({"Sharding", "xla.sdy.FuncResultSharding"})


def _dead_copy(marker: HloInstruction) -> HloInstruction:
    """The ``copy`` ShardingRemover leaves for dead-code elimination: only its place among the
    operand's users matters (it is outside the module, and gone before any other pass runs)."""
    copy = HloInstruction("copy", COPY, marker.shape)
    copy.operands = (marker.operands[0],)
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


class ShardingRemover(HloPassInterface):
    """XLA's ``ShardingRemover``: :func:`remove_sharding_markers`."""

    name = "sharding_remover"

    def run(self, module: HloModule) -> bool:
        localized: list[str] = []
        removed = remove_sharding_markers(module, localized)
        # Neither a marker removed nor a shape localized: it only read the module (its markers' scan).
        self.left_untouched = not removed and not localized
        return bool(removed)
