"""A scatter of one window at constant indices that overwrites becomes a ``dynamic-update-slice``.

``x.at[0].set(row)`` lowers to a ``scatter`` whose combiner returns its second parameter, with
one constant index vector.  In libtpu 0.0.42.1's ``before_host-offload-legalize`` dump it is a
``dynamic-update-slice(x, row', 0, 0)`` (``row'`` the update reshaped to the operand's rank), so
a host ``x`` reaches HostOffloader through a DUS, not a scatter (``--user identities``, 31 of
187 programs).  Modelled is what the dumps show, reduced to the form JAX writes:

* the combiner's root is its ``parameter(1)`` (an overwrite);
* the indices are one constant vector (rank 1, ``index_vector_dim=0``; or a scalar) and the
  updates are one window (rank = number of ``update_window_dims``), no batching dimensions;

then the update is reshaped to the operand's rank (size 1 in ``inserted_window_dims``) and the
start index of operand dimension ``scatter_dims_to_operand_dims[k]`` is the ``k``-th index,
every other start 0.  AlgebraicSimplifier then folds ``reshape(reshape(x))`` as usual.
"""

from __future__ import annotations

from ...ir.computation import HloComputation
from ...ir.instruction import HloInstruction
from ...ir.module import HloModule
from ...ir.opcodes import CONSTANT, DYNAMIC_UPDATE_SLICE, PARAMETER, RESHAPE, SCATTER
from ...ir.shape import Shape
from .hlo_pass_interface import HloPassInterface


def scatters_to_updates(module: HloModule) -> list[str]:
    """Replace each such scatter; the names replaced."""
    done: list[str] = []
    for comp in module.computations:
        for scatter in [i for i in comp.instructions if i.opcode is SCATTER]:
            if _rewrite(module, comp, scatter):
                done.append(scatter.name)
    return done


def _int_list(text: str | None) -> list[int] | None:
    if text is None:
        return []
    try:
        return [int(t) for t in text.replace("{", " ").replace("}", " ").replace(",", " ").split()]
    except ValueError:
        return None


def _rewrite(module: HloModule, comp: HloComputation, scatter: HloInstruction) -> bool:
    if len(scatter.operands) != 3 or not scatter.shape.is_array:
        return False
    operand, indices, updates = scatter.operands
    a = scatter.attributes
    window, inserted, to_operand = (_int_list(a.get(k)) for k in
                                    ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims"))
    values = _int_list(indices.literal) if indices.opcode is CONSTANT else None
    if window is None or inserted is None or to_operand is None or values is None or \
            a.get("input_batching_dims") or a.get("scatter_indices_batching_dims") or \
            not _overwrites(scatter) or len(indices.shape.dimensions) > 1 or \
            len(values) != len(to_operand) or len(updates.shape.dimensions) != len(window):
        return False
    rank = len(operand.shape.dimensions)
    if len(window) + len(inserted) != rank:
        return False
    sizes = iter(updates.shape.dimensions)
    dims = [1 if d in inserted else next(sizes) for d in range(rank)]
    starts = [0] * rank
    for k, d in enumerate(to_operand):
        starts[d] = values[k]
    reshape = HloInstruction(module.unique_name("reshape"), RESHAPE,
                             Shape.array(updates.shape.element_type, dims))
    comp.insert_before(scatter, reshape)
    reshape.operands = (updates,)
    index_operands = []
    for start in starts:
        c = HloInstruction(module.unique_name("constant"), CONSTANT,
                           Shape.array(indices.shape.element_type, ()))
        c.literal = str(start)
        comp.insert_before(scatter, c)
        index_operands.append(c)
    dus = HloInstruction(module.unique_name("dynamic-update-slice"), DYNAMIC_UPDATE_SLICE, scatter.shape)
    comp.insert_before(scatter, dus)
    dus.operands = (operand, reshape, *index_operands)
    comp.replace_instruction(scatter, dus)
    return True


def _overwrites(scatter: HloInstruction) -> bool:
    called = scatter.called.get("to_apply") or scatter.called_computations
    if len(called) != 1:
        return False
    root = called[0].root
    return root is not None and root.opcode is PARAMETER and root.param_number() == 1


class ScatterToDus(HloPassInterface):
    """libtpu's ``scatter_to_dus``: :func:`scatters_to_updates`."""

    name = "scatter_to_dus"

    def run(self, module: HloModule) -> bool:
        done = scatters_to_updates(module)
        self.left_untouched = not done  # a scatter not rewritten is refused before anything is made
        return bool(done)
