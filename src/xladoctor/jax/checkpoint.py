"""Restored checkpoints against a compiled step function.

A checkpoint written by one compile (another TPU generation, topology, XLA flags
or jax version) can hold arrays in layouts the current executable does not take:
the first call fails with JAX's layout ``ValueError`` or, past JAX, with E0102.
These helpers compare one argument of the executable (``argnum``, the state) with
a restored pytree - arrays, ``jax.ShapeDtypeStruct`` with a ``Format``, or
metadata dicts ``{"shape", "dtype", "layout"}`` - before the first step, and move
arrays to the expected formats (or, for metadata, return the restore targets to
hand to the checkpoint library, e.g. Orbax ``ArrayRestoreArgs(sharding=Format)``).
"""

from __future__ import annotations

from typing import Any

import jax

from ..base.labels import label
from ..findings.model import Report
from .formats import expected_leaf, supplied_leaf
from .inputs_check import ArgumentCheck, _is_format_leaf, _is_metadata_dict, compare_leaves


def _argument(compiled: Any, argnum: int) -> tuple[list[tuple[Any, Any]], Any]:
    fmts = compiled.input_formats[0][argnum]
    info = compiled.args_info[0][argnum]
    fleaves, tree = jax.tree_util.tree_flatten_with_path(fmts, is_leaf=_is_format_leaf)
    avals = [a._aval for a in jax.tree_util.tree_leaves(info, is_leaf=lambda x: hasattr(x, "_aval"))]
    return [(p, (f, a)) for (p, f), a in zip(fleaves, avals)], tree


def _leaves(restored: Any) -> tuple[list[tuple[str, Any]], Any]:
    leaves, tree = jax.tree_util.tree_flatten_with_path(restored, is_leaf=_is_metadata_dict)
    return [("state" + jax.tree_util.keystr(p), v) for p, v in leaves], tree


def check_checkpoint(compiled: Any, restored: Any, argnum: int = 0) -> Report:
    """Which leaves of ``restored`` argument ``argnum`` of ``compiled`` will reject."""
    expected_raw, etree = _argument(compiled, argnum)
    values, vtree = _leaves(restored)
    check = ArgumentCheck(leaves=len(expected_raw))
    if len(expected_raw) != len(values):
        check.structure_error = label("jax_report.checkpoint_structure", argnum=argnum, expected=len(expected_raw),
                                      got=len(values), etree=etree, vtree=vtree)
        return check.report("check_checkpoint")
    expected = [(path, expected_leaf(f, tuple(a.shape), a.dtype)) for (path, _), (_, (f, a))
                in zip(values, expected_raw)]
    supplied = [(path, supplied_leaf(v)) for path, v in values]
    check.mismatches = compare_leaves(
        expected, supplied,
        lambda path: f"{path} = jax.device_put({path}, compiled.input_formats[0][{argnum}]{path[5:]})")
    return check.report("check_checkpoint")


def relayout_checkpoint(compiled: Any, restored: Any, argnum: int = 0) -> Any:
    """``restored`` with every mismatching leaf in the executable's format.

    Arrays are moved with ``jax.device_put`` (same values, new layout); metadata
    leaves (ShapeDtypeStruct, dicts) become ``jax.ShapeDtypeStruct(shape, dtype,
    sharding=Format)``: the target to restore into.
    """
    report = check_checkpoint(compiled, restored, argnum)
    if report.structure_error:
        raise ValueError(report.structure_error)
    wrong = [m.path for m in report.mismatches if m.kind == "shape"]
    if wrong:
        raise ValueError("these leaves hold other arrays (shape or dtype differs): " + ", ".join(wrong))
    bad = {m.position or m.path for m in report.mismatches}
    expected_raw, _ = _argument(compiled, argnum)
    values, vtree = _leaves(restored)
    out = []
    for (path, v), (_, (fmt, aval)) in zip(values, expected_raw):
        if path not in bad:
            out.append(v)
        elif isinstance(v, jax.Array):
            out.append(jax.device_put(v, fmt))
        else:
            out.append(jax.ShapeDtypeStruct(aval.shape, aval.dtype, sharding=fmt))
    return jax.tree_util.tree_unflatten(vtree, out)
