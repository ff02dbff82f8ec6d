"""The two E1200 fixes as JAX code for one output of a lowered program (``check_offload``'s fixes).

Fix (a) is an ``out_shardings`` pytree with host memory at the offending leaf, spelled in
the program's own output structure; fix (b) moves the returned value back to device memory,
on the user's own variable when the ``return`` statement names it (read from the source by
:mod:`.returned_value`).  They travel as :attr:`xladoctor.findings.Fix.code` on the finding.
"""

from __future__ import annotations

import jax

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
            shardings = f"<out_shardings tree with host at {output}>"
        if len(shardings) > 240:
            shardings = f"<out_shardings tree: host at {output}, None elsewhere>"
    return ("host = sharding.with_memory_kind(\"pinned_host\")  # e.g. NamedSharding(mesh, spec) or "
            "SingleDeviceSharding(device)\n"
            f"jax.jit(f, out_shardings={shardings})  # {output} stays in host memory\n"
            "# or let xladoctor build it: out_shardings=report.suggested_out_shardings(sharding)")


class _Code(str):
    def __repr__(self) -> str:
        return str(self)


_TO_DEVICE = "jax.memory.Space.Device"


def device_fix_code(output: str, returned_at: SourceLine | None, value: str) -> str:
    """The move back to device, on the user's own variable when the return statement names it."""
    if returned_at is None:
        return (f"# where {value} is computed, before {output} is returned, move that value back:\n"
                f"value = jax.device_put(value, {_TO_DEVICE})  # or sharding.with_memory_kind(\"device\")")
    ret = returned_expression(returned_at.file, returned_at.function, returned_at.line, output)
    if ret is not None and ret.name is not None:
        return (f"# before the return at {returned_at.file}:{ret.line} ({output} is {ret.name}):\n"
                f"{ret.name} = jax.device_put({ret.name}, {_TO_DEVICE})  # or sharding.with_memory_kind(\"device\")")
    if ret is not None:
        return (f"# in the return at {returned_at.file}:{ret.line}, {output} is {ret.source}; return instead:\n"
                f"jax.device_put({ret.source}, {_TO_DEVICE})  # or sharding.with_memory_kind(\"device\")")
    return (f"# at {returned_at.file}:{returned_at.line}, before {output} is returned, move that value back:\n"
            f"value = jax.device_put(value, {_TO_DEVICE})  # or sharding.with_memory_kind(\"device\")")
