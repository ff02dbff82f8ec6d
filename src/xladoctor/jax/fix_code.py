"""The two E1200 fixes as JAX code for one output of a lowered program (``check_offload``'s fixes).

Fix (a) is an ``out_shardings`` pytree with host memory at the offending leaf, spelled in
the program's own output structure; fix (b) moves the returned value back to device memory,
on the user's own variable when the ``return`` statement names it (read from the source by
:mod:`.returned_value`).  They travel as :attr:`xladoctor.findings.Fix.code` on the finding.
"""

from __future__ import annotations

from typing import Any

import jax

from ..base.cells import place
from ..base.labels import label
from .lowering import LoweredProgram, declared_out_shardings
from .returned_value import returned_expression
from .source_line import SourceLine


def host_fix_code(output: str, leaves: set[int], program: LoweredProgram) -> str:
    """``out_shardings`` with ``host`` at the offending ``leaves``, in the output's own pytree; the
    other leaves as the program declared them (``None`` where it gave none), so pasting the line
    changes only the outputs that must stay on host."""
    tree = program.lowered.out_tree
    declared = declared_out_shardings(program.lowered) or [None] * tree.num_leaves
    marks = [_Code("host") if i in leaves else _Code(_kept(declared[i])) for i in range(tree.num_leaves)]
    if tree.num_leaves == 1:
        shardings = str(marks[0])
    else:
        try:
            shardings = repr(jax.tree_util.tree_unflatten(tree, marks))
        except Exception:  # custom pytree nodes without a readable repr
            shardings = label("jax_report.tree_unreadable", output=output)
        if len(shardings) > 240:
            shardings = label("jax_report.tree_long" if not any(declared) else "jax_report.tree_long_kept",
                              output=output)
    code = label("jax_report.host_fix_code", shardings=shardings, output=output)
    if "device" in marks:
        code = label("jax_report.host_fix_device_line") + "\n" + code
    return code


def _kept(sharding: Any) -> str:
    """How a leaf the fix does not change is spelt: as the program declared it."""
    if sharding is None:
        return "None"
    kind = getattr(sharding, "memory_kind", None)
    if kind == "pinned_host":
        return "host"
    if kind == "unpinned_host":
        return 'sharding.with_memory_kind("unpinned_host")'
    return "device"


class _Code(str):
    def __repr__(self) -> str:
        return str(self)


_TO_DEVICE = "jax.memory.Space.Device"


def device_fix_code(output: str, returned_at: SourceLine | None, value: str, frontend: str | None = None) -> str:
    """The move back to device, on the user's own variable when the return statement names it.

    ``frontend`` names the primitive that moved the value to host when it was not JAX's own
    ``device_put`` (``place_to_host`` of another frontend): JAX then still types the value as
    device memory, so ``jax.device_put(value, Device)`` is a no-op (it was suggested, and the
    E1200 stayed); the move back must be that frontend's own device placement."""
    if frontend is not None:
        return _frontend_fix(output, returned_at, frontend)
    if returned_at is None:
        return label("jax_report.device_fix_anywhere", value=value, output=output, device=_TO_DEVICE)
    ret = returned_expression(returned_at.file, returned_at.function, returned_at.line, output)
    if ret is not None and ret.name is not None:
        return label("jax_report.device_fix_named", where=place(returned_at.file, ret.line), output=output,
                     name=ret.name, device=_TO_DEVICE)
    if ret is not None:
        return label("jax_report.device_fix_expression", where=place(returned_at.file, ret.line), output=output,
                     source=ret.source, device=_TO_DEVICE)
    return label("jax_report.device_fix_at", where=place(returned_at.file, returned_at.line), output=output,
                 device=_TO_DEVICE)


def _frontend_fix(output: str, returned_at: SourceLine | None, primitive: str) -> str:
    counterpart = primitive.replace("host", "device") if "host" in primitive else None
    ret = (returned_expression(returned_at.file, returned_at.function, returned_at.line, output)
           if returned_at is not None else None)
    name = ret.name if ret is not None and ret.name is not None else "value"
    where = (label("jax_report.frontend_fix_where", where=place(returned_at.file, ret.line if ret else returned_at.line),
                   output=output) if returned_at is not None else label("jax_report.frontend_fix_anywhere",
                                                                        output=output))
    if counterpart is None:
        return label("jax_report.frontend_fix_unknown", primitive=primitive, where=where, name=name)
    if ret is not None and ret.name is None:  # the return computes it: wrap the expression
        return label("jax_report.frontend_fix_expression", primitive=primitive, where=where, source=ret.source,
                     counterpart=counterpart)
    return label("jax_report.frontend_fix", primitive=primitive, where=where, name=name, counterpart=counterpart)
