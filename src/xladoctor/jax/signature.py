"""What JAX wrote on ``@main`` of a lowered module: memory kinds and pytree paths.

The HLO text of a ``jax.stages.Lowered`` (``as_text("hlo")``) does not carry the
memory kinds: JAX writes them as ``mhlo.memory_kind`` argument/result attributes
of the StableHLO ``@main`` function, and the PJRT compile path turns them into
``S(5)`` in ``entry_computation_layout`` before any HLO pass runs (checked with
jax 0.10.2: ``as_text("hlo")`` prints ``->f32[8,128]{1,0}`` for a result whose
StableHLO attribute says ``pinned_host``).  An analysis of the HLO alone would
therefore see every output as device memory; this module reads the attributes so
the caller can rebuild the layout XLA really compiles against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

HOST_MEMORY_KINDS = frozenset({"pinned_host", "unpinned_host"})


@dataclass(frozen=True)
class ValueInfo:
    """One argument or result of ``@main``."""

    index: int
    memory_kind: str | None
    """``mhlo.memory_kind`` (``device``, ``pinned_host``...), ``None`` when JAX wrote none."""
    name: str | None
    """For results ``jax.result_info`` (``result[1]['w']``); for arguments the ``loc`` name, if any."""
    is_token: bool = False

    @property
    def on_host(self) -> bool:
        return self.memory_kind in HOST_MEMORY_KINDS


@dataclass(frozen=True)
class MainSignature:
    arguments: tuple[ValueInfo, ...]
    results: tuple[ValueInfo, ...]


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
        arg_attrs = op.attributes["arg_attrs"] if "arg_attrs" in op.attributes else None
        res_attrs = op.attributes["res_attrs"] if "res_attrs" in op.attributes else None
        return MainSignature(_infos(arg_attrs, list(ftype.inputs), "jax.arg_info"),
                             _infos(res_attrs, list(ftype.results), "jax.result_info"))
    return _signature_from_text(lowered.as_text())


_MAIN = re.compile(r"func\.func\s+public\s+@main\((.*?)\)\s*->\s*(.*?)\{\s*$", re.S | re.M)


def _signature_from_text(text: str) -> MainSignature:
    """Fallback when the MLIR bindings move: scan the printed ``@main`` line."""
    m = _MAIN.search(text)
    if not m:
        return MainSignature((), ())

    def split(region: str, name_key: str) -> tuple[ValueInfo, ...]:
        items = re.findall(r"tensor<[^>]*>(?:\s*\{[^{}]*\})?|!stablehlo\.token(?:\s*\{[^{}]*\})?", region)
        out = []
        for i, item in enumerate(items):
            kind = re.search(r'mhlo\.memory_kind\s*=\s*"([^"]*)"', item)
            name = re.search(name_key + r'\s*=\s*"((?:[^"\\]|\\.)*)"', item)
            out.append(ValueInfo(i, kind.group(1) if kind else None, name.group(1) if name else None,
                                 item.startswith("!stablehlo.token")))
        return tuple(out)

    return MainSignature(split(m.group(1), r"jax\.arg_info"), split(m.group(2), r"jax\.result_info"))
