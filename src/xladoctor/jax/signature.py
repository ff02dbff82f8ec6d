"""What JAX wrote on ``@main`` of a lowered module, read through jax's MLIR bindings.

The model (:class:`MainSignature`) and the text reader used when the bindings move
live in :mod:`xladoctor.syntax.stablehlo_main`, which needs no jax.
"""

from __future__ import annotations

from typing import Any

from ..syntax.stablehlo_main import HOST_MEMORY_KINDS, MainSignature, ValueInfo, read_main_signature

__all__ = ["HOST_MEMORY_KINDS", "MainSignature", "ValueInfo", "argument_names", "main_signature"]


def _string(attr: Any) -> str:
    from jax._src.lib.mlir import ir
    try:
        return ir.StringAttr(attr).value
    except (TypeError, ValueError):
        return str(attr).strip('"')


def _infos(attrs: Any, types: list[Any], name_key: str) -> tuple[ValueInfo, ...]:
    from jax._src.lib.mlir import ir
    out = []
    dicts = list(attrs) if attrs is not None else [None] * len(types)
    for i, t in enumerate(types):
        d = ir.DictAttr(dicts[i]) if i < len(dicts) and dicts[i] is not None else None
        kind = _string(d["mhlo.memory_kind"]) if d is not None and "mhlo.memory_kind" in d else None
        name = _string(d[name_key]) if d is not None and name_key in d else None
        out.append(ValueInfo(i, kind, name, "token" in str(t)))
    return tuple(out)


def main_signature(lowered: Any) -> MainSignature:
    """Read ``@main``'s argument and result attributes from ``lowered.compiler_ir("stablehlo")``."""
    from jax._src.lib.mlir import ir
    module = lowered.compiler_ir("stablehlo")
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        if _string(op.attributes["sym_name"]) != "main":
            continue
        ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        arg_attrs = op.attributes.get("arg_attrs")
        res_attrs = op.attributes.get("res_attrs")
        return MainSignature(_infos(arg_attrs, list(ftype.inputs), "jax.arg_info"),
                             _infos(res_attrs, list(ftype.results), "jax.result_info"))
    return read_main_signature(lowered.as_text())


def argument_names(compiled: Any, leaves: int) -> list[str] | None:
    """The Python names of a compiled executable's argument leaves (``w``, ``params['b']``,
    ``scale``), in ``input_formats`` order: the names JAX's own errors use ("Argument w");
    None when this jax does not keep them (``Compiled._executable._all_args_info.debug_info``,
    jax 0.4.36 to 0.10) or they do not cover every leaf."""
    info = getattr(getattr(compiled, "_executable", None), "_all_args_info", None)
    names = getattr(getattr(info, "debug_info", None), "arg_names", None)
    if not names or len(names) != leaves or not all(isinstance(n, str) and n for n in names):
        return None
    return list(names)
