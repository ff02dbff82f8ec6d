"""The two E1200 fixes as JAX code for one output of a lowered program (``check_offload``'s fixes).

Fix (a) is an ``out_shardings`` pytree with host memory at the offending leaf, spelled in
the program's own output structure; fix (b) moves the returned value back to device memory,
on the user's own variable when the ``return`` statement names it (read from the source by
:mod:`.returned_value`).  They travel as :attr:`xladoctor.findings.Fix.code` on the finding.
"""

from __future__ import annotations

import jax

from ..labels import label
from .lowering import LoweredProgram
from .returned_value import returned_expression
from .source_line import SourceLine


def host_fix_code(output: str, leaf: int, program: LoweredProgram) -> str:
    """``out_shardings`` with ``host`` at ``leaf`` and ``None`` elsewhere, in the output's own pytree."""
    tree = program.lowered.out_tree
    if tree.num_leaves == 1:
        shardings = "host"
    else:
        marks = [_Code("host") if i == leaf else _Code("None") for i in range(tree.num_leaves)]
        try:
            shardings = repr(jax.tree_util.tree_unflatten(tree, marks))
        except Exception:  # custom pytree nodes without a readable repr
            shardings = label("jax_report.tree_unreadable", output=output)
        if len(shardings) > 240:
            shardings = label("jax_report.tree_long", output=output)
    return label("jax_report.host_fix_code", shardings=shardings, output=output)


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
        return label("jax_report.device_fix_named", file=returned_at.file, line=ret.line, output=output,
                     name=ret.name, device=_TO_DEVICE)
    if ret is not None:
        return label("jax_report.device_fix_expression", file=returned_at.file, line=ret.line, output=output,
                     source=ret.source, device=_TO_DEVICE)
    return label("jax_report.device_fix_at", file=returned_at.file, line=returned_at.line, output=output,
                 device=_TO_DEVICE)


def _frontend_fix(output: str, returned_at: SourceLine | None, primitive: str) -> str:
    counterpart = primitive.replace("host", "device") if "host" in primitive else None
    ret = (returned_expression(returned_at.file, returned_at.function, returned_at.line, output)
           if returned_at is not None else None)
    name = ret.name if ret is not None and ret.name is not None else "value"
    where = (label("jax_report.frontend_fix_where", file=returned_at.file, line=ret.line if ret else returned_at.line,
                   output=output) if returned_at is not None else label("jax_report.frontend_fix_anywhere",
                                                                        output=output))
    if counterpart is None:
        return label("jax_report.frontend_fix_unknown", primitive=primitive, where=where, name=name)
    if ret is not None and ret.name is None:  # the return computes it: wrap the expression
        return label("jax_report.frontend_fix_expression", primitive=primitive, where=where, source=ret.source,
                     counterpart=counterpart)
    return label("jax_report.frontend_fix", primitive=primitive, where=where, name=name, counterpart=counterpart)
