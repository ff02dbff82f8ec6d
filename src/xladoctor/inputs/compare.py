"""Check supplied buffers against an executable's parameters, and explain each mismatch.

XLA runtimes stop at the first bad parameter; :func:`check_inputs` reports every
one, as plain data (no printing) so the CLI, the JAX integration and the log
explainer share it.  For each mismatch it records both shapes, both sizes as each
runtime counts them (TPU: ``ArraySize``, physical; CPU/GPU: ``ByteSizeOf``,
logical), which layout attributes differ, how each layout pads each dimension,
the expansion factor, the JAX spelling of both layouts, and which runtime would
accept the buffer.  A layout difference with equal sizes passes TPU's size check
but is still reported: the data would be read in the wrong order.

Tuple rule (CPU/GPU PJRT clients): when the executable has exactly one parameter
and it is a tuple, the supplied buffers are compared with its elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..base.labels import label
from ..ir.shape import Layout, Shape
from ..ir.sizes import DimensionPadding, dimension_padding, logical_bytes, physical_bytes
from . import runtime_messages as rm
from .jax_spelling import jax_layout, memory_kind

RUNTIMES = ("tpu", "cpu_gpu", "stream_executor")


@dataclass(frozen=True)
class ExpectedParameter:
    """One parameter of the compiled executable."""

    index: int
    shape: Shape
    name: str | None = None
    """Argument path, e.g. ``params['w']`` (from parameter metadata)."""
    instruction: str | None = None


@dataclass(frozen=True)
class SuppliedBuffer:
    """One buffer handed to the executable: its on-device shape and, if known, its real size."""

    shape: Shape
    name: str | None = None
    actual_bytes: int | None = None
    """The buffer's measured size; every runtime compares this when it is given."""
    index: int | None = None
    """Position among the supplied buffers (its parameter number in the other compile)."""


@dataclass(frozen=True)
class AttributeDifference:
    """One way the supplied shape differs from the expected one (``attribute`` as XLA names it)."""

    attribute: str
    """``element_type``, ``dimensions``, ``dynamic_dimensions``, ``minor_to_major``, ``tiles``,
    ``element_size_in_bits``, ``memory_space``, ``tail_padding_alignment``, ``split_configs``,
    ``dynamic_shape_metadata_prefix_bytes`` or ``tuple_shapes``."""
    expected: str
    supplied: str


@dataclass(frozen=True)
class RuntimeVerdict:
    """Whether one runtime's input check passes, and what it compares."""

    runtime: str
    accepts: bool
    compares: str
    expected_value: str
    supplied_value: str


@dataclass(frozen=True)
class ParameterMismatch:
    """Everything known about one parameter whose supplied buffer differs from what is expected."""

    expected: ExpectedParameter
    supplied: SuppliedBuffer
    kind: str
    """``shape`` (type or dimensions differ: wrong array), ``size`` (TPU sizes differ),
    ``memory_space`` (only the memory differs) or ``layout`` (same size, different order)."""
    differences: tuple[AttributeDifference, ...]
    expected_logical_bytes: int
    expected_physical_bytes: int
    supplied_logical_bytes: int
    supplied_physical_bytes: int
    expected_padding: tuple[DimensionPadding, ...]
    supplied_padding: tuple[DimensionPadding, ...]
    verdicts: tuple[RuntimeVerdict, ...]
    expected_jax_layout: str | None
    supplied_jax_layout: str | None
    notes: tuple[str, ...] = ()
    hidden_layout_candidates: tuple[str, ...] = ()
    """When the real size disagrees with the printed supplied shape: layouts of that shape
    (common TPU tilings) whose ArraySize equals the real size."""

    @property
    def index(self) -> int:
        return self.expected.index

    @property
    def supplied_bytes(self) -> int:
        """The supplied buffer's size as TPU sees it: the real size if known, else ArraySize."""
        a = self.supplied.actual_bytes
        return a if a is not None else self.supplied_physical_bytes

    @property
    def expansion(self) -> float | None:
        """Expected physical bytes / supplied bytes (3.2 for the E0102 seed)."""
        return self.expected_physical_bytes / self.supplied_bytes if self.supplied_bytes else None

    def verdict(self, runtime: str) -> RuntimeVerdict:
        return next(v for v in self.verdicts if v.runtime == runtime)

    @property
    def attributes(self) -> tuple[str, ...]:
        return tuple(d.attribute for d in self.differences)


@dataclass
class InputCheck:
    """The result of comparing all supplied buffers with all expected parameters."""

    executable: str
    expected_count: int
    supplied_count: int
    mismatches: list[ParameterMismatch] = field(default_factory=list)
    per_tuple_element: bool = False
    """True when one tuple parameter was compared element by element."""
    messages: dict[str, str] = field(default_factory=dict)
    """Runtime -> the message it would print for the first parameter it rejects."""
    pairing: str = "index"
    """``index`` (as runtimes do) or ``name`` (argument paths; two compiles side by side)."""
    missing: list[str] = field(default_factory=list)
    """Names the executable expects that no supplied buffer has (name pairing)."""
    extra: list[str] = field(default_factory=list)
    """Supplied names the executable does not have (name pairing)."""

    @property
    def ok(self) -> bool:
        return not self.mismatches and self.expected_count == self.supplied_count and \
            not self.missing and not self.extra

    @property
    def count_mismatch(self) -> bool:
        return self.expected_count != self.supplied_count


# -- differences ---------------------------------------------------------------------

def _layout_fields(layout: Layout) -> list[tuple[str, str]]:
    return [
        ("minor_to_major", "{" + ",".join(map(str, layout.minor_to_major)) + "}"),
        ("tiles", "".join(str(t) for t in layout.tiles) or "none"),
        ("element_size_in_bits", str(layout.element_size_in_bits)),
        ("memory_space", str(layout.memory_space)),
        ("tail_padding_alignment", str(layout.tail_padding_alignment_in_elements)),
        ("split_configs", "".join(str(s) for s in layout.split_configs) or "none"),
        ("dynamic_shape_metadata_prefix_bytes", str(layout.dynamic_shape_metadata_prefix_bytes)),
    ]


def shape_differences(expected: Shape, supplied: Shape) -> list[AttributeDifference]:
    """The attributes in which ``supplied`` differs from ``expected`` (empty when identical)."""
    if expected.is_tuple or supplied.is_tuple:
        if not (expected.is_tuple and supplied.is_tuple) or len(expected.tuple_shapes) != len(supplied.tuple_shapes):
            return [AttributeDifference("tuple_shapes", str(expected), str(supplied))]
        return [d for a, b in zip(expected.tuple_shapes, supplied.tuple_shapes) for d in shape_differences(a, b)]
    out = []
    if expected.element_type is not supplied.element_type:
        out.append(AttributeDifference("element_type", expected.element_type.name, supplied.element_type.name))
    if expected.dimensions != supplied.dimensions:
        out.append(AttributeDifference("dimensions", str(list(expected.dimensions)), str(list(supplied.dimensions))))
    elif expected.dynamic != supplied.dynamic:
        out.append(AttributeDifference("dynamic_dimensions", str(list(expected.dynamic)), str(list(supplied.dynamic))))
    if expected.is_array and supplied.is_array:
        for (name, a), (_, b) in zip(_layout_fields(expected.effective_layout), _layout_fields(supplied.effective_layout)):
            if a != b and not (name == "minor_to_major" and expected.rank != supplied.rank):
                out.append(AttributeDifference(name, a, b))
    return out


# -- sizes and verdicts ----------------------------------------------------------------------

def _safe_padding(shape: Shape) -> tuple[DimensionPadding, ...]:
    return tuple(dimension_padding(shape)) if shape.is_array else ()


def _verdicts(exp: Shape, sup: Shape, e_log: int, e_phys: int, s_log: int, s_phys: int,
              actual: int | None) -> tuple[RuntimeVerdict, ...]:
    tpu_supplied = actual if actual is not None else s_phys
    cpu_supplied = actual if actual is not None else s_log
    return (
        RuntimeVerdict("tpu", e_phys == tpu_supplied, label("inputs.compares_tpu"),
                       str(e_phys), str(tpu_supplied)),
        RuntimeVerdict("cpu_gpu", e_log == cpu_supplied, label("inputs.compares_cpu_gpu"),
                       str(e_log), str(cpu_supplied)),
        RuntimeVerdict("stream_executor", exp.compatible(sup),
                       label("inputs.compares_stream_executor"),
                       exp.human_string(), sup.human_string()),
    )


_HIDDEN_TILINGS = ["T(8,128)", "T(4,128)", "T(2,128)", "T(8,128)(2,1)", "T(16,128)(2,1)", "T(8,128)(4,1)",
                   "T(32,128)(4,1)", "T(128)", "T(256)", "T(512)", "T(1024)"]


def hidden_layout_candidates(shape: Shape, actual_bytes: int) -> list[str]:
    """Tiled variants of ``shape`` (same minor_to_major) whose ArraySize is ``actual_bytes``.

    A printed shape can omit the tiles the buffer really has (Reactant's E0102:
    ``f32[5,4,3]{2,1,0}`` reported with 10240 bytes, which is ``T(4,128)``).
    """
    from ..syntax.shape_parser import parse_shape

    if not shape.is_array or shape.effective_layout.tiles:
        return []
    base = shape.effective_layout
    out = []
    for tiling in _HIDDEN_TILINGS:
        attrs = base.attributes_text()
        text = f"{shape.element_type.name}[{','.join(map(str, shape.dimensions))}]" \
               f"{{{','.join(map(str, base.minor_to_major))}:{tiling}{attrs}}}"
        try:
            candidate = parse_shape(text)
        except Exception:  # a tiling the parser rejects for this shape is simply not a candidate
            continue
        if physical_bytes(candidate) == actual_bytes:
            out.append(str(candidate))
    return out


def _kind(diffs: list[AttributeDifference], tpu_ok: bool) -> str:
    attrs = {d.attribute for d in diffs}
    if attrs & {"element_type", "dimensions", "tuple_shapes"}:
        return "shape"
    if not tpu_ok:
        return "size"
    if attrs == {"memory_space"}:
        return "memory_space"
    return "layout"


def compare_parameter(expected: ExpectedParameter, supplied: SuppliedBuffer) -> ParameterMismatch | None:
    """The mismatch between one parameter and its buffer, or ``None`` when they agree."""
    exp, sup = expected.shape, supplied.shape
    diffs = shape_differences(exp, sup)
    e_log, e_phys = logical_bytes(exp), physical_bytes(exp)
    s_log, s_phys = logical_bytes(sup), physical_bytes(sup)
    actual = supplied.actual_bytes
    if not diffs and (actual is None or actual == e_phys):
        return None
    verdicts = _verdicts(exp, sup, e_log, e_phys, s_log, s_phys, actual)
    notes: list[str] = []
    candidates: list[str] = []
    if actual is not None and actual != s_phys:
        notes.append(label("inputs.note_hidden_attributes", actual=actual, implied=s_phys, shape=sup))
        candidates = hidden_layout_candidates(sup, actual)
    if exp.memory_space != sup.memory_space:
        ek, sk = memory_kind(exp), memory_kind(sup)
        notes.append(label("inputs.note_memory_space", expected=f"S({exp.memory_space})" + (f" ({ek})" if ek else ""),
                           supplied=f"S({sup.memory_space})" + (f" ({sk})" if sk else "")))
    tpu_ok = verdicts[0].accepts
    return ParameterMismatch(
        expected, supplied, _kind(diffs, tpu_ok), tuple(diffs), e_log, e_phys, s_log, s_phys,
        _safe_padding(exp), _safe_padding(sup), verdicts,
        jax_layout(exp.effective_layout) if exp.is_array else None,
        jax_layout(sup.effective_layout) if sup.is_array else None,
        tuple(notes), tuple(candidates))


def _untuple(expected: list[ExpectedParameter], supplied: list[SuppliedBuffer]) -> tuple[list[ExpectedParameter], bool]:
    if len(expected) == 1 and expected[0].shape.is_tuple:
        elems = expected[0].shape.tuple_shapes
        if not (len(supplied) == 1 and supplied[0].shape.is_tuple):
            base = expected[0].name
            return [ExpectedParameter(i, s, f"{base}[{i}]" if base else None, expected[0].instruction)
                    for i, s in enumerate(elems)], True
    return expected, False


def _messages(check: InputCheck, replica: int | None, partition: int | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if check.count_mismatch:
        out["cpu_gpu"] = rm.buffer_count_message(check.supplied_count, check.expected_count)
    for m in check.mismatches:
        exp, sup = m.expected.shape, m.supplied.shape
        if "tpu" not in out and not m.verdict("tpu").accepts:
            out["tpu"] = rm.tpu_message(check.executable, m.index, m.expected_physical_bytes, exp,
                                        m.supplied_bytes, sup, replica, partition)
        if "cpu_gpu" not in out and not m.verdict("cpu_gpu").accepts:
            actual = int(m.verdict("cpu_gpu").supplied_value)
            out["cpu_gpu"] = rm.cpu_gpu_message(m.index, m.expected_logical_bytes, actual)
            out["gpu"] = rm.cpu_gpu_message(m.index, m.expected_logical_bytes, actual, gpu=True)
        if "stream_executor" not in out and not m.verdict("stream_executor").accepts:
            out["stream_executor"] = rm.stream_executor_message(m.index, exp, sup)
    return out


def can_pair_by_name(expected: list[ExpectedParameter], supplied: list[SuppliedBuffer]) -> bool:
    """True when every parameter and buffer has a name and names are unique on each side."""
    en = [e.name for e in expected]
    sn = [s.name for s in supplied]
    return all(en) and all(sn) and len(set(en)) == len(en) and len(set(sn)) == len(sn)


def check_inputs(expected: Sequence[ExpectedParameter | Shape], supplied: Sequence[SuppliedBuffer | Shape],
                 executable: str = "unknown", replica: int | None = None,
                 partition: int | None = None, pairing: str = "index") -> InputCheck:
    """Compare every supplied buffer with its parameter; report all mismatches in index order.

    ``pairing="index"`` pairs buffer i with parameter i, as every runtime does.
    ``pairing="name"`` pairs by argument path, for two compiles that numbered their
    parameters differently (jax drops unused arguments); unpaired names are reported.
    ``replica``/``partition``, when given, add PJRT's multi-device suffix to the TPU message.
    """
    exp = [e if isinstance(e, ExpectedParameter) else ExpectedParameter(i, e) for i, e in enumerate(expected)]
    sup = [s if isinstance(s, SuppliedBuffer) else SuppliedBuffer(s, index=i) for i, s in enumerate(supplied)]
    exp, untupled = _untuple(exp, sup)
    check = InputCheck(executable, len(exp), len(sup), per_tuple_element=untupled, pairing=pairing)
    if pairing == "name":
        by_name = {s.name: s for s in sup}
        pairs = [(e, by_name[e.name]) for e in exp if e.name in by_name]
        expected_names = {e.name for e in exp}
        check.missing = [e.name for e in exp if e.name not in by_name]  # type: ignore[misc]
        check.extra = [s.name for s in sup if s.name not in expected_names]  # type: ignore[misc]
    else:
        pairs = list(zip(exp, sup))
    for e, s in pairs:
        m = compare_parameter(e, s)
        if m is not None:
            check.mismatches.append(m)
    check.messages = _messages(check, replica, partition)
    return check
