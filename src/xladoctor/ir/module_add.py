"""``HloModule.add_computation``'s work (``AddComputationInternal``), for the compiled core.

Why a module of its own: :mod:`.module` stays interpreted in the compiled core (setup.py says why),
and the parser and the copy add every computation of a module through it (``jax_entry`` at 100k:
10.5k computations, each added twice an ``offload``: the input's and the copy's).  Interpreted,
each call was a Python frame entered from compiled code, its keywords parsed and the compiled
name tables called back through Python's protocol: ~50M instructions a compiled ``offload`` at
100k (issue 36 item 4).  Compiled (setup.py's ``COMPILED``) the compiled callers call this
function natively; :meth:`.module.HloModule.add_computation` stays the API and calls it too.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from .computation import HloComputation
    from .module import HloModule


def add_computation(module: HloModule, comp: HloComputation, uniquify: bool = False,
                    names_live: bool = False) -> HloComputation:
    """Attach ``comp`` (and the instructions it already has) to ``module``: see
    :meth:`.module.HloModule.add_computation`, whose arguments these are."""
    if names_live:
        comp.name = module.computation_names.unique(comp.name)
    elif uniquify:  # the names given out and entered in the name table in one pass
        comp.name = module.computation_names.unique(comp.name)
        module.instruction_names.unique_each_live(comp.instructions)
    else:
        module.computation_names.claim(comp.name)
        module.instruction_names.claim_each_live(comp.instructions)
    comp.module = module
    module.computations.append(comp)
    module._computations_by_name[comp.name] = comp
    module.computation_names.joined(comp.name)  # the map stands for its entry now
    module._callers = None
    if comp.is_entry:
        module.entry = comp
    return comp
