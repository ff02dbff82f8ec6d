"""The call graph's caller index (``CallGraph::GetComputationCallers``), built for
:meth:`.module.HloModule.callers_of`.

Why a module of its own: :mod:`.module` stays interpreted in the compiled core (setup.py says
why), and this loop visits every instruction of the module, each time the index is rebuilt (twice
an ``offload``: the input's and the copy's): interpreted, each ``instr.called`` was a descriptor
read through Python's protocol, ~14 ms a build at ``jax_entry`` 100k with the compiled core.
Compiled (setup.py's ``COMPILED``) it is a native loop over native fields.
"""

from __future__ import annotations

from .computation import HloComputation
from .instruction import HloInstruction
from .rare_fields import CALLS


def caller_index(computations: list[HloComputation]) -> dict[HloComputation, HloInstruction | list[HloInstruction]]:
    """Each called computation's callers in module order: the one caller itself where there is one
    (most: jax_entry's 10.5k computations have a caller each), a list from the second.  A list each
    was 1.2 MiB of what ``offload`` holds on jax_entry at 100k (issue 36 item 3)."""
    index: dict[HloComputation, HloInstruction | list[HloInstruction]] = {}
    for c in computations:
        for instr in c.instructions:
            extra = instr._extra  # ``called``'s store, read without the property: every instruction
            if extra is None:
                continue
            if type(extra) is CALLS:  # the calls alone (most callers): their flat list, one call
                comps = extra.computations()
            else:  # rare_fields.calls_in, inline (a Python call per instruction)
                calls = extra.called
                if not calls:
                    continue
                comps = [k for listed in calls.values() for k in listed]
            for called in comps:  # called_computations' order
                held = index.get(called)
                if held is None:
                    index[called] = instr
                elif isinstance(held, list):
                    held.append(instr)
                else:
                    index[called] = [held, instr]
    return index
