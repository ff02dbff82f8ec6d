"""``HloModule.clone()``: a structurally independent copy with the same names.

Why: the offload analysis reproduces HostOffloader by running its rewrites (copies
inserted, MoveToHosts removed, memory spaces set) on a private copy, so later walks see
the graph as XLA's later walks would while the caller's module stays untouched; names are
kept, so every copied instruction maps back to the original by name.

Copying goes field by field over the IR classes (instructions by
:meth:`~.instruction.HloInstruction.detached_copy`, computations slot by slot, the module's
own fields one level deep), so fields the IR gains later are copied too; only references to
other instructions and computations are remapped, and the links are made through the
operand write path, as any other writer's.
"""

from __future__ import annotations

import copy as _copy

from .computation import COMPUTATION_SLOTS, HloComputation
from .instruction import COMPILED
from .instruction_names import InstructionNames
from .module_add import add_computation
from .name_uniquer import ComputationNames
from .names import NameTable
from .operands import WideOperands
from .packed_fields import NO_USERS
from .rare_fields import CALLS

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Set as AbstractSet
    from typing import Final

    from .instruction import HloInstruction
    from .module import HloModule

_COMP_REMAPPED: Final = {"instructions", "root", "parameters", "module"}
_MODULE_REBUILT: Final = {"computations", "_computations_by_name", "names", "instruction_names", "computation_names",
                  "_callers", "entry"}


def clone_module(module: HloModule, keep: Mapping[HloComputation, list[HloInstruction]] | None = None,
                 substitute: Mapping[HloInstruction, tuple[HloInstruction, tuple[HloInstruction, ...]]] | None = None,
                 leave_out_computations: AbstractSet[HloComputation] = frozenset()) -> HloModule:
    """A structurally independent copy of ``module`` with the same names (``HloModule::Clone``
    without the suffix: the copy is private, never printed beside the original).

    ``keep``: computation -> the instructions of it copied, in its order (a computation not in it
    is copied whole); the others are not copied, and no copied one may use them (dead code the
    caller's first pass would remove); their names stay taken, as after that removal.  What is
    kept, not what is left out: the offload analysis' copy keeps ~5% of ``jax_entry``, where a
    set of the rest was 32 MiB at 1M instructions.  ``substitute``: instruction -> (a new one in
    no computation, operands): the new one, reading copies of those, in its place (its name
    stays taken); ``leave_out_computations``: not copied, their names and their instructions'
    taken: the offload analysis' dead steps (``offload/passes/dead_steps``)."""
    new = module.__class__.__new__(module.__class__)
    for key, value in vars(module).items():
        if key not in _MODULE_REBUILT:
            setattr(new, key, _copy.copy(value))
    new.computations = []
    new._computations_by_name = {}
    new.names = NameTable()
    new.instruction_names, new.computation_names = InstructionNames(new.names), ComputationNames(new._computations_by_name)
    new._callers = None
    new.entry = None
    comp_map: dict[HloComputation, HloComputation] = {}
    instr_map: dict[HloInstruction, HloInstruction] = {}
    copies: list[list[HloInstruction]] = []
    kept: list[list[HloInstruction]] = []
    copied = [c for c in module.computations if c not in leave_out_computations]
    replaced: Mapping[HloInstruction, tuple[HloInstruction, tuple[HloInstruction, ...]]] = substitute or {}
    for comp in copied:
        c2 = HloComputation(comp.name, comp.is_entry)
        for slot in COMPUTATION_SLOTS:
            if slot not in _COMP_REMAPPED and hasattr(comp, slot):
                setattr(c2, slot, getattr(comp, slot))
        comp_map[comp] = c2
        instrs = keep.get(comp, comp.instructions) if keep else comp.instructions
        mine = [instr.detached_copy() for instr in instrs] if not replaced else \
            [instr.detached_copy() if instr not in replaced else replaced[instr][0] for instr in instrs]
        instr_map.update(zip(instrs, mine))
        copies.append(mine)
        kept.append(instrs)
    _claim_left_out(module, new, keep or {}, replaced.keys(), leave_out_computations)
    for instrs, mine in zip(kept, copies):
        _link(instrs, mine, instr_map, comp_map, replaced)
    roots = [instr_map.get(comp.root) if comp.root is not None else None for comp in copied]
    instr_map.clear()  # (one entry per instruction copied: let go before the name tables below are made)
    # The graph is complete before the computations join the module, which indexes names
    # and calls as they come.
    for comp, mine, root in zip(copied, copies, roots):
        c2 = comp_map[comp]
        c2.add_instructions(mine)
        if root is not None:
            c2.set_root_instruction(root)
        add_computation(new, c2)  # (HloModule.add_computation's work, called natively compiled)
    return new


def _link(instrs: list[HloInstruction], mine: list[HloInstruction], instr_map: dict[HloInstruction, HloInstruction],
          comp_map: dict[HloComputation, HloComputation],
          replaced: Mapping[HloInstruction, tuple[HloInstruction, tuple[HloInstruction, ...]]]) -> None:
    """Give each copy in ``mine`` the copies of its original's operands, control predecessors and
    callees (a substitute: the operands it was given).  The stored fields are read, not the
    properties (a tuple made per read of one operand, a property call per instruction for
    control edges few have): this runs for every instruction of the module."""
    copy_of = instr_map.__getitem__
    no_users = NO_USERS
    compiled = COMPILED
    operands: tuple[HloInstruction, ...]
    for instr, i2 in zip(instrs, mine):
        if replaced and instr in replaced:
            operands = replaced[instr][1]
        else:
            stored = instr._operands
            cls = type(stored)
            if compiled or cls is WideOperands:  # compiled: link_operands' native code
                operands = stored if cls is tuple else (  # type: ignore[assignment]
                    stored.as_tuple() if cls is WideOperands else (stored,))  # type: ignore[union-attr]
            else:  # pure Python: linked here as link_operands links a fresh copy, without its call
                operands = ()
                if cls is tuple:
                    if stored:
                        new = tuple(map(copy_of, stored))  # type: ignore[arg-type]
                        i2._operands = new[0] if len(new) == 1 else new
                        for op in new:
                            if op._users is no_users:
                                op._users = i2
                            else:
                                op._gain_new_user(i2)
                else:  # the one operand, kept bare (a third of a train step's): no tuple, no loop
                    op = copy_of(stored)  # type: ignore[arg-type]
                    i2._operands = op
                    if op._users is no_users:
                        op._users = i2
                    else:
                        op._gain_new_user(i2)
        if operands:  # native dict reads compiled, no comprehension's frame in pure Python
            i2.link_operands(tuple([instr_map[o] for o in operands]) if compiled else tuple(map(copy_of, operands)))
        extra = instr._extra
        if extra is not None:  # (most have none: one test for both rare cases)
            if extra.control_predecessors:
                i2.control_predecessors = [instr_map[p] for p in extra.control_predecessors if p in instr_map]
            called = extra if type(extra) is CALLS else extra.called  # rare_fields.calls_in, inline
            if called and (not replaced or instr not in replaced):
                i2.set_called_computations({role: [comp_map[c] for c in comps] for role, comps in called.items()})


def _claim_left_out(module: HloModule, new: HloModule, keep: Mapping[HloComputation, list[HloInstruction]],
                    replaced: AbstractSet[HloInstruction], computations: AbstractSet[HloComputation]) -> None:
    """The names of what was not copied stay taken in the copy, as after the removal that would
    have dropped them: every name of ``module`` at once where its uniquer allows
    (:meth:`~.instruction_names.InstructionNames.claim_all_of`: those copied are taken anyway),
    else one by one (those ``keep`` leaves out, those replaced, the left-out computations'); the
    left-out computations' names as every computation name of ``module`` at once
    (:meth:`~.name_uniquer.ComputationNames.claim_all_of`: those copied are claimed as they join)."""
    if (keep or replaced or computations) and not new.instruction_names.claim_all_of(module.instruction_names):
        names = new.instruction_names
        for comp, kept in keep.items():
            copied = set(kept)
            names.claim_each([instr.name for instr in comp.instructions if instr not in copied])
        if replaced:
            names.claim_each([instr.name for instr in replaced])
        for comp in computations:
            names.claim_each([instr.name for instr in comp.instructions])
    if computations:  # every computation of module is copied (claimed as it joins) or left out
        new.computation_names.claim_all_of(module._computations_by_name)


def clone_names(module: HloModule) -> InstructionNames:
    """The instruction uniquer :func:`clone_module` gives a copy with nothing left out: every
    instruction's name claimed, as each copied computation joins the copy
    (:meth:`~.module.HloModule.add_computation` without ``uniquify``).

    Why: a caller that only needs the name a copy would give a new instruction (a fix's edit,
    printed line by line) takes it from here instead of copying the whole module; the claims
    are the only state that name depends on, so the two give the same name."""
    names = InstructionNames()
    for comp in module.computations:
        names.claim_each([instr.name for instr in comp.instructions])
    return names
