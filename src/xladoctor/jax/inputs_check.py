"""E0102 before calling: compare ``compiled.input_formats`` with the arguments.

JAX checks committed arrays itself, but only when the call is made, and its
``ValueError`` ("Computation was compiled for input layouts that disagree with the
layouts of arguments passed to it") names the layouts, not what they cost; other
paths (deserialized executables, Pathways, other frontends) reach XLA and fail
there with E0102.  :func:`check_inputs` reports every leaf whose shape, dtype,
layout or memory kind differs, with its pytree path, both physical sizes under the
executable's own layouts and under typical TPU tiling, and the E0102 explainer's
reading of the difference; :func:`fix_inputs` returns the arguments moved with
``jax.device_put`` to the formats the executable expects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import jax

from ..base.labels import label
from ..findings import Finding, FixKind, Report, Severity, to_json
from ..findings.schema_files import schema_id
from ..inputs.compare import ExpectedParameter, ParameterMismatch, RuntimeVerdict, SuppliedBuffer
from ..inputs.compare import check_inputs as compare_buffers
from ..inputs.explanation import explanation_lines
from ..ir.shape import Shape
from ..ir.sizes import physical_bytes
from ..report.finding_text import render_finding
from .formats import LeafFormat, expected_leaf, supplied_leaf, tpu_tiled
from .signature import argument_names


def _is_metadata_dict(x: Any) -> bool:
    return isinstance(x, dict) and "shape" in x and "dtype" in x


def _is_format_leaf(x: Any) -> bool:
    return x is None or (hasattr(x, "layout") and hasattr(x, "sharding"))


@dataclass(frozen=True)
class LeafMismatch:
    """One argument leaf the executable will not take as it is."""

    path: str
    """``args[0]['w']`` or ``kwargs['batch']``."""
    kind: str
    """``shape`` (another array), ``layout``, ``size`` (padding differs) or ``memory_space``."""
    expected: Shape
    supplied: Shape
    expected_bytes: int
    """Physical size under the executable's layout."""
    supplied_bytes: int
    tpu_expected: Shape
    tpu_supplied: Shape
    tpu_expected_bytes: int
    tpu_supplied_bytes: int
    will_fail: bool
    """True when the call fails (JAX's ValueError/TypeError, or E0102 past JAX); False for an
    uncommitted array JAX will relay out by itself (a silent copy)."""
    explanation: tuple[str, ...]
    fix_code: str
    detail: ParameterMismatch | None = None
    position: str = ""
    """The leaf's place in the call, ``args[0]['w']`` (``path`` is its Python name when JAX
    kept the names, as JAX's own error says "Argument w")."""


@dataclass
class ArgumentCheck:
    """What only a JAX call's check knows (the :class:`Report`'s ``analysis``): each argument leaf
    compared with the executable's format, and how ``xladoctor.jax`` draws that."""

    mismatches: list[LeafMismatch] = field(default_factory=list)
    structure_error: str | None = None
    leaves: int = 0
    unchecked: list[str] = field(default_factory=list)
    """Leaves whose layout cannot be checked: a ``jax.ShapeDtypeStruct`` or metadata dict with
    no format says nothing of it (their shape, dtype and memory kind are still compared)."""

    def ok(self, report: Report | None = None) -> bool:
        return self.structure_error is None and not any(m.will_fail for m in self.mismatches)

    def paths(self) -> list[str]:
        return [m.path for m in self.mismatches]

    def text(self, report: Report) -> str:
        return render_text(self)

    def summary(self, report: Report) -> str:
        failing = sum(1 for m in self.mismatches if m.will_fail)
        state = label("jax_report.repr_structure_differs") if self.structure_error else \
            label("jax_report.leaves_refused", failing=failing, leaves=self.leaves)
        return f"<InputsReport {'ok' if self.ok() else 'mismatch'}: {state}>"

    def html(self, report: Report) -> str:
        """The ``inputs --html`` page of these leaves."""
        from .display import inputs_html

        return inputs_html(report)

    def diagnostics(self, lang: str = "en") -> Report:
        """One finding per leaf, from the same adapter as ``xladoctor inputs``; a leaf JAX relays
        out by itself (uncommitted) is a warning, one the call rejects an error."""
        from ..findings.from_inputs import mismatch_finding

        out = [_with_leaf_code(mismatch_finding(m.detail, "compiled", None, None, lang,
                                                None if m.will_fail else Severity.WARNING), m)
               for m in self.mismatches if m.detail is not None]
        errors = (self.structure_error,) if self.structure_error else ()
        return Report("check_inputs", (), tuple(out), lang, errors)

    def text_findings(self) -> tuple[Finding, ...]:
        """:meth:`diagnostics` as the text draws them: each with its leaf's facts (``fields["jax"]``)."""
        with_detail = [m for m in self.mismatches if m.detail is not None]
        return tuple(replace(f, fields={**f.fields, "jax": leaf_facts(m)})
                     for f, m in zip(self.diagnostics().findings, with_detail))

    def document(self, report: Report) -> dict[str, Any]:
        """``ok``, the leaf paths (``positions``: the same leaves' places in the call), the leaves
        whose layout could not be checked and the ``diagnostics`` document (docs/json.md)."""
        return {"schema_version": 1, "$schema": schema_id("jax_inputs"), "ok": self.ok(), "leaves": self.leaves, "paths": self.paths(),
                "positions": [m.position or m.path for m in self.mismatches], "unchecked": list(self.unchecked),
                "structure_error": self.structure_error, "diagnostics": to_json(self.diagnostics())}

    def report(self, command: str = "check_inputs") -> Report:
        """The one report type, this check attached: its findings are the leaves' (with their facts)."""
        errors = (self.structure_error,) if self.structure_error else ()
        return Report(command, (), self.text_findings(), "en", errors, analysis=self)


InputsReport = Report
"""The name ``check_inputs`` returned before there was one report type; kept so users' code works."""


def leaf_fix_code(m: LeafMismatch) -> str:
    """The device_put of this leaf to the executable's format, then the helper that does them all."""
    return label("jax_report.device_put_or_fix_inputs", code=m.fix_code)


def _with_leaf_code(f: Finding, m: LeafMismatch) -> Finding:
    """The finding's device_put fix as this leaf's own line (``args[0]['w']``, ``compiled.input_formats``)."""
    if not m.fix_code:
        return f
    return replace(f, fixes=tuple(replace(x, code=leaf_fix_code(m)) if x.kind is FixKind.DEVICE_PUT else x
                                  for x in f.fixes))


def _path_text(path: tuple) -> str:
    if not path:
        return "args"
    head, rest = path[0], path[1:]
    root = "args" if getattr(head, "idx", None) == 0 else "kwargs"
    return root + jax.tree_util.keystr(rest)


def flatten_formats(compiled: Any) -> tuple[list[tuple[str, Any]], Any]:
    fmts = compiled.input_formats
    leaves, tree = jax.tree_util.tree_flatten_with_path(fmts, is_leaf=_is_format_leaf)
    return [(_path_text(p), f) for p, f in leaves], tree


def _avals(compiled: Any) -> list[Any]:
    """The executable's argument avals, flattened in input_formats order."""
    info = compiled.args_info
    return [a._aval for a in jax.tree_util.tree_leaves(info, is_leaf=lambda x: hasattr(x, "_aval"))]


def _flatten_args(args: tuple, kwargs: dict) -> tuple[list[tuple[str, Any]], Any]:
    leaves, tree = jax.tree_util.tree_flatten_with_path((args, kwargs), is_leaf=_is_metadata_dict)
    return [(_path_text(p), v) for p, v in leaves], tree


def _fix_code(path: str, name: str | None = None) -> str:
    """``w = jax.device_put(w, compiled.input_formats[0][0])``: the leaf by its Python name
    (``args[0]['w']`` without one), the format by its place in ``input_formats``."""
    where = "[0]" + path[4:] if path.startswith("args") else "[1]" + path[6:]
    who = name or path
    return f"{who} = jax.device_put({who}, compiled.input_formats{where})"


def compare_leaves(expected: list[tuple[str, LeafFormat]], supplied: list[tuple[str, LeafFormat]],
                   fix_code: Callable[[str], str] | None = None,
                   names: list[str] | None = None) -> list[LeafMismatch]:
    """Pair leaves by position; hand each pair to the E0102 comparison.  ``names``: the leaves'
    Python names (reports and fixes use them; ``position`` keeps ``args[0]['w']``)."""
    shown = names or [p for p, _ in expected]
    exp = [ExpectedParameter(i, e.shape, name=shown[i]) for i, (p, e) in enumerate(expected)]
    sup = [SuppliedBuffer(s.shape, name=shown[i], index=i) for i, (p, s) in enumerate(supplied)]
    check = compare_buffers(exp, sup, executable="compiled")
    out = []
    for m in check.mismatches:
        path, e = expected[m.index]
        _, s = supplied[m.index]
        if not s.has_layout and m.kind != "shape" and m.kind != "memory_space":
            # numpy / Python values carry no layout: JAX transfers them in the executable's layout.
            continue
        te, ts = tpu_tiled(e.shape), tpu_tiled(s.shape)
        m = _tpu_verdict_under_tiling(m, te, ts)
        code = fix_code(path) if fix_code is not None else _fix_code(path, names[m.index] if names else None)
        out.append(LeafMismatch(
            shown[m.index], m.kind, e.shape, s.shape, m.expected_physical_bytes, m.supplied_physical_bytes,
            te, ts, _safe_bytes(te), _safe_bytes(ts), will_fail=s.committed or m.kind == "shape",
            explanation=tuple(explanation_lines(m, behind_jax=s.committed and m.kind != "shape")),
            fix_code=code if m.kind != "shape" else "", detail=m, position=path))
    return out


def _tpu_verdict_under_tiling(m: ParameterMismatch, te: Shape, ts: Shape) -> ParameterMismatch:
    """The TPU runtime's verdict on the pair as a TPU would lay it out, when the executable's own
    layouts have no tiles (compiled for CPU/GPU): its ArraySize of untiled layouts is not what a
    TPU compares, and the report's "with TPU tiling" sizes must be the ones it judges by."""
    exp = m.expected.shape
    if m.kind == "shape" or not exp.is_array or exp.effective_layout.tiles or te == exp:
        return m
    e_phys, s_phys = _safe_bytes(te), _safe_bytes(ts)
    if e_phys < 0 or s_phys < 0:
        return m
    tpu = RuntimeVerdict("tpu", e_phys == s_phys, label("inputs.compares_tpu") + label("jax_report.under_tpu_tiling"),
                         str(e_phys), str(s_phys))
    return replace(m, verdicts=tuple(tpu if v.runtime == "tpu" else v for v in m.verdicts))


def _safe_bytes(shape: Shape) -> int:
    try:
        return physical_bytes(shape)
    except Exception:
        return -1


def _check_compiled(compiled: Any) -> None:
    """A clear TypeError for what is not a compiled executable (a jitted function, a Lowered)."""
    if not hasattr(compiled, "input_formats"):
        raise TypeError(label("jax_report.not_compiled", kind=type(compiled).__name__))


def check_inputs(compiled: Any, *args: Any, **kwargs: Any) -> Report:
    """Every argument leaf that ``compiled(*args, **kwargs)`` would reject, before calling it.

    Leaves may be ``jax.Array``, numpy values, ``jax.ShapeDtypeStruct`` (with a
    ``Format`` in ``sharding=``) or metadata dicts ``{"shape", "dtype", "layout"}``.
    """
    _check_compiled(compiled)
    formats, ftree = flatten_formats(compiled)
    values, vtree = _flatten_args(args, kwargs)
    check = ArgumentCheck(leaves=len(formats))
    compiled_tree = getattr(compiled, "in_tree", None)
    if len(formats) != len(values):
        check.structure_error = label("jax_report.structure_error", expected=len(formats), supplied=len(values),
                                      expected_tree=ftree, supplied_tree=vtree)
        return check.report()
    if compiled_tree is not None and vtree != compiled_tree:
        # As Compiled.call does: the pytree (node types, dict keys, tuple vs list), not only the leaf count.
        check.structure_error = label("jax_report.structure_error_tree", expected_tree=compiled_tree,
                                      supplied_tree=vtree)
        return check.report()
    avals = _avals(compiled)
    expected = []
    for i, (path, fmt) in enumerate(formats):
        aval = avals[i] if i < len(avals) else None
        shape = tuple(aval.shape) if aval is not None else tuple(values[i][1].shape)
        dtype = aval.dtype if aval is not None else values[i][1].dtype
        expected.append((path, expected_leaf(fmt, shape, dtype)))
    supplied = [(path, supplied_leaf(v)) for path, v in values]
    names = argument_names(compiled, len(formats))
    check.mismatches = compare_leaves(expected, supplied, names=names)
    check.unchecked = [names[i] if names else path for i, (path, v) in enumerate(values)
                       if _is_description(v) and not supplied[i][1].has_layout]
    return check.report()


def _is_description(value: Any) -> bool:
    """A leaf that describes an array rather than holding one: its layout is what it says."""
    return _is_metadata_dict(value) or isinstance(value, jax.ShapeDtypeStruct)


def _refuse_unsafe_put(path: str, value: Any, fmt: Any) -> None:
    """A ``device_put`` the TPU chip was seen to answer with wrong data or an abort: say so instead.

    Only a tiling that is not the chip's own for the shape is at risk (:mod:`..inputs.put_safety`);
    an executable's own input formats have the chip's tiling, so this guards hand-made Formats."""
    from ..inputs.put_safety import chip_tiling, put_is_safe
    from .formats import layout_from_jax, make_shape

    sharding = getattr(fmt, "sharding", None)
    devices = getattr(sharding, "device_set", None) or ()
    if not any(getattr(d, "platform", "") == "tpu" for d in devices) or not hasattr(value, "shape"):
        return
    layout = layout_from_jax(getattr(fmt, "layout", None), len(value.shape))
    shape = make_shape(tuple(value.shape), value.dtype, layout, None)
    if not put_is_safe(shape):
        raise ValueError(label("jax_report.unsafe_put", path=path, shape=str(shape),
                               tiles="".join(f"T({','.join(map(str, t))})" for t in chip_tiling(shape) or ())))


def fix_inputs(compiled: Any, *args: Any, **kwargs: Any) -> tuple[tuple, dict]:
    """``(args, kwargs)`` with every mismatching array moved to the executable's format.

    Values are unchanged (``jax.device_put`` relays out on the device); leaves that
    already match are returned as they are.  Call ``compiled(*args, **kwargs)`` with
    the result.
    """
    report = check_inputs(compiled, *args, **kwargs)
    if report.structure_error:
        raise ValueError(report.structure_error)
    bad = {m.position or m.path for m in report.mismatches if m.kind != "shape"}
    shapes = [m.path for m in report.mismatches if m.kind == "shape"]
    if shapes:
        raise ValueError("no relayout can fix these leaves (another shape or dtype): " + ", ".join(shapes))
    formats, _ = flatten_formats(compiled)
    values, vtree = _flatten_args(args, kwargs)
    for (path, v), (_, fmt) in zip(values, formats):
        if path in bad:
            _refuse_unsafe_put(path, v, fmt)
    fixed = [jax.device_put(v, fmt) if path in bad else v for (path, v), (_, fmt) in zip(values, formats)]
    new_args, new_kwargs = jax.tree_util.tree_unflatten(vtree, fixed)
    return tuple(new_args), dict(new_kwargs)


def render_text(report: ArgumentCheck) -> str:
    """The report as text (``str(report)``): each leaf's finding drawn by the E0102 renderer of
    :mod:`xladoctor.report.finding_text`, with the leaf's facts (:func:`text_findings`)."""
    if report.structure_error:
        return label("jax_report.structure_differs", error=report.structure_error)
    unchecked = [label("jax_report.leaves_unchecked", paths=", ".join(report.unchecked))] if report.unchecked else []
    if not report.mismatches:
        if not unchecked:
            return label("jax_report.one_leaf_matches" if report.leaves == 1 else "jax_report.all_leaves_match",
                         n=report.leaves)
        checked = report.leaves - len(report.unchecked)
        rest = ([] if not checked else [label("jax_report.other_leaf_matches")] if checked == 1 else
                [label("jax_report.other_leaves_match", n=checked)])
        return "\n".join(unchecked + rest)
    return "\n".join([*(line for f in report.text_findings() for line in render_finding(f)), *unchecked])


def leaf_facts(m: LeafMismatch) -> dict[str, Any]:
    """What ``fields["jax"]`` holds for one leaf (the renderer's JAX part)."""
    tpu = None if m.tpu_expected_bytes < 0 else {
        "expects": str(m.tpu_expected), "expects_bytes": m.tpu_expected_bytes,
        "has": str(m.tpu_supplied), "has_bytes": m.tpu_supplied_bytes}
    return {"path": m.path, "mismatch": m.kind, "will_fail": m.will_fail, "expects": str(m.expected),
            "expects_bytes": m.expected_bytes, "has": str(m.supplied), "has_bytes": m.supplied_bytes, "tpu": tpu,
            "explanation": list(m.explanation), "relayout_fixes": bool(m.fix_code)}
