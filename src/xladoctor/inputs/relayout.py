"""Move array data between a dense numpy array and the stored bytes of any XLA layout.

:func:`tile` writes a logical array in a layout's physical order (padding bytes are
zero), :func:`untile` reads it back (padding ignored), :func:`relayout` goes from one
layout's bytes to another's.  The steps come from :mod:`.tiling_plan`; this module
only executes them with numpy, which is imported lazily (``pip install
xladoctor[numpy]``) so the core package stays dependency-free.

Elements are handled as raw bytes (a trailing axis of ``element_bytes`` uint8), so
every element type works, values are never converted, and NaN payloads survive.
Multi-byte elements are little-endian, as on every host XLA runs on.

``E(n)`` storage:

* ``n`` below 8 (``s4``, ``u2``, ``f4e2m1fn`` ...): the low ``n`` bits of each element
  are packed into a bit stream, first element in the least significant bits of the
  first byte, the way XLA:CPU stores ``s4[...]{...:E(4)}`` (checked against a real
  jax buffer in the tests).  Unpacking zero-extends, as ml_dtypes' ``int4`` holds
  its values.
* ``n`` a multiple of 8 above the natural width (``pred`` with ``E(32)``): each
  element is widened little-endian with zero bytes.
"""

from __future__ import annotations

from typing import Any

from ..ir.shape import Shape
from ..ir.sizes import physical_bytes
from .tiling_plan import PhysicalPlan, RelayoutError, SubtilePaddingError, plan_for

_ML_DTYPE_NAMES = {
    "bf16": "bfloat16", "f8e5m2": "float8_e5m2", "f8e4m3": "float8_e4m3", "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e3m4": "float8_e3m4", "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz", "f8e8m0fnu": "float8_e8m0fnu", "f4e2m1fn": "float4_e2m1fn",
    "f6e3m2fn": "float6_e3m2fn", "f6e2m3fn": "float6_e2m3fn", "s4": "int4", "u4": "uint4",
    "s2": "int2", "u2": "uint2", "s1": "int1", "u1": "uint1",
}
_NUMPY_NAMES = {
    "pred": "bool", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128",
}


def _np():
    try:
        import numpy
    except ImportError:  # pragma: no cover - exercised only without numpy
        raise RelayoutError("relayout needs numpy: pip install 'xladoctor[numpy]'") from None
    return numpy


def numpy_has_type(shape: Shape) -> bool:
    """Whether numpy has a dtype of its own for ``shape``'s element type (ml_dtypes' are not numpy's)."""
    return shape.element_type.name in _NUMPY_NAMES


def numpy_dtype(shape: Shape) -> Any:
    """The numpy dtype for ``shape``'s element type.

    Types numpy lacks (bf16, f8*, s4 ...) use ml_dtypes when it is installed (jax
    installs it); otherwise an unsigned integer of the same width holds the raw bits.
    """
    np = _np()
    name = shape.element_type.name
    if name in _NUMPY_NAMES:
        return np.dtype(_NUMPY_NAMES[name])
    if name in _ML_DTYPE_NAMES:
        try:
            import ml_dtypes
            return np.dtype(getattr(ml_dtypes, _ML_DTYPE_NAMES[name]))
        except (ImportError, AttributeError):
            pass
    width = shape.element_type.byte_width
    if width is None:
        raise RelayoutError(f"{shape}: no array data")
    return np.dtype(f"<u{width}")


def _as_element_bytes(array: Any, plan: PhysicalPlan) -> Any:
    """``array`` as uint8 with a trailing axis of ``element_bytes``, logical dims checked."""
    np = _np()
    a = np.asarray(array)
    shape = plan.shape
    if tuple(a.shape) != tuple(shape.dimensions):
        raise RelayoutError(f"array has dimensions {list(a.shape)} but {shape} has {list(shape.dimensions)}")
    if a.dtype.itemsize != plan.element_bytes:
        raise RelayoutError(f"array elements are {a.dtype.itemsize} byte(s) ({a.dtype}) but "
                            f"{shape.element_type.name} elements are {plan.element_bytes}")
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(tuple(shape.dimensions) + (plan.element_bytes,))


def _forward(a: Any, plan: PhysicalPlan) -> Any:
    np = _np()
    for step in plan.steps:
        if step.kind == "transpose":
            a = a.transpose(step.perm + (len(step.perm),))
        elif step.kind == "reshape":
            a = a.reshape(step.after + (plan.element_bytes,))
        else:
            a = np.pad(a, [(0, p) for p in step.pad] + [(0, 0)])
    return a


def _backward(a: Any, plan: PhysicalPlan) -> Any:
    np = _np()
    for step in reversed(plan.steps):
        if step.kind == "transpose":
            inverse = tuple(int(i) for i in np.argsort(step.perm))
            a = a.transpose(inverse + (len(inverse),))
        elif step.kind == "reshape":
            a = a.reshape(step.before + (plan.element_bytes,))
        else:
            a = a[tuple(slice(0, d) for d in step.before)]
    return a


_BIT_CHUNK = 1 << 16
"""Elements packed or unpacked per step when ``E(n)`` stores fewer than 8 bits.  Bit-level
work goes through numpy's 8-bytes-per-byte bit arrays; in chunks, those temporaries stay
at a few hundred KB instead of 8-16x the buffer.  A multiple of 8, so every chunk starts
on a byte boundary of the packed stream."""


def _pack(elements: Any, plan: PhysicalPlan) -> bytes:
    """Stored bytes for ``elements`` (n x element_bytes uint8, already tail-padded)."""
    np = _np()
    w, bits = plan.element_bytes, plan.element_bits
    if bits == 8 * w:
        return elements.tobytes()
    if bits > 8 * w:
        wide = np.zeros((elements.shape[0], bits // 8), np.uint8)
        wide[:, :w] = elements
        return wide.tobytes()
    out = bytearray()
    for start in range(0, elements.shape[0], _BIT_CHUNK):
        chunk = elements[start:start + _BIT_CHUNK, :1]
        stream = np.unpackbits(chunk, axis=1, bitorder="little")[:, :bits].reshape(-1)
        out += np.packbits(stream, bitorder="little").tobytes()
    return bytes(out)


def _unpack(data: bytes, count: int, plan: PhysicalPlan) -> Any:
    """Inverse of :func:`_pack`: ``count`` elements as (count x element_bytes) uint8."""
    np = _np()
    w, bits = plan.element_bytes, plan.element_bits
    raw = np.frombuffer(data, np.uint8)
    if bits == 8 * w:
        return raw[: count * w].reshape(count, w)
    if bits > 8 * w:
        return raw[: count * bits // 8].reshape(count, bits // 8)[:, :w]
    out = np.empty((count, 1), np.uint8)
    for start in range(0, count, _BIT_CHUNK):
        n = min(_BIT_CHUNK, count - start)
        first = start * bits // 8  # exact: start is a multiple of 8
        stream = np.unpackbits(raw[first:first + -(-n * bits // 8)], bitorder="little")[: n * bits]
        full = np.zeros((n, 8), np.uint8)
        full[:, :bits] = stream.reshape(n, bits)
        out[start:start + n] = np.packbits(full, axis=1, bitorder="little")
    return out


def _checked_plan(shape: Shape, allow_subtile_padding: bool) -> PhysicalPlan:
    plan = plan_for(shape)
    if plan.subtile_padding_elements and not allow_subtile_padding:
        size = physical_bytes(shape)
        if plan.stored_bytes != size:  # L(n) tail padding may absorb it; then it fits
            raise SubtilePaddingError(shape, plan.stored_bytes, size, plan.first_subtile_padding_tile or 0)
    return plan


def stored_size(shape: Shape, allow_subtile_padding: bool = False) -> int:
    """Bytes :func:`tile` produces for ``shape``: ``physical_bytes(shape)`` unless a later
    tile needs padding (then :class:`SubtilePaddingError`, or the larger size if allowed)."""
    return _checked_plan(shape, allow_subtile_padding).stored_bytes


class LossyRelayoutError(RelayoutError):
    """Storing the array in ``E(n)`` would drop bits: it could not be read back as it was."""

    def __init__(self, shape: Shape, index: tuple[int, ...], value: int, bits: int, count: int):
        self.index, self.value, self.count = index, value, count
        where = ",".join(str(i) for i in index)
        super().__init__(
            f"{shape} keeps only the low {bits} bit(s) of each element, but element [{where}] is "
            f"0x{value:x} ({value}); {count:,} element(s) would lose bits. Pass --truncate to store "
            f"the low {bits} bits anyway")


def _first_lossy_element(elements: Any, plan: PhysicalPlan) -> LossyRelayoutError | None:
    """The first element (logical order) with bits set above ``element_bits``, as an error."""
    np = _np()
    bits, w = plan.element_bits, plan.element_bytes
    if bits >= 8 * w:
        return None
    lossy = (elements[..., 0] >> bits) != 0
    if w > 1:
        lossy |= (elements[..., 1:] != 0).any(axis=-1)
    count = int(np.count_nonzero(lossy))
    if not count:
        return None
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(lossy.reshape(-1))), lossy.shape))
    value = int.from_bytes(bytes(elements[index]), "little")
    return LossyRelayoutError(plan.shape, index, value, bits, count)


def tile(array: Any, shape: Shape, allow_subtile_padding: bool = False, truncate: bool = False) -> bytes:
    """The bytes a buffer of ``shape`` (with its layout) holds for the logical ``array``.

    ``array`` has ``shape``'s logical dimensions and elements of its byte width (any
    dtype: only the bytes are used).  Padding is zero.  The result has
    ``physical_bytes(shape)`` bytes.  When ``E(n)`` stores fewer bits than an element
    has, any element with higher bits set raises :class:`LossyRelayoutError` (the
    bytes could not be read back) unless ``truncate`` asks for the low bits only.
    """
    np = _np()
    plan = _checked_plan(shape, allow_subtile_padding)
    elements = _as_element_bytes(array, plan)
    if not truncate:
        lossy = _first_lossy_element(elements, plan)
        if lossy is not None:
            raise lossy
    a = _forward(elements, plan)
    flat = a.reshape(-1, plan.element_bytes)
    tail = plan.stored_elements - flat.shape[0]
    if tail:
        flat = np.concatenate([flat, np.zeros((tail, plan.element_bytes), np.uint8)])
    return _pack(flat, plan)


def untile(data: bytes | bytearray | memoryview, shape: Shape, dtype: Any = None,
           allow_subtile_padding: bool = False) -> Any:
    """The logical array stored in ``data``, a buffer of ``shape``; padding is ignored.

    ``data`` must be exactly the stored size (:func:`stored_size`).  The result's dtype
    is ``dtype`` or :func:`numpy_dtype` of the element type.
    """
    np = _np()
    plan = _checked_plan(shape, allow_subtile_padding)
    data = bytes(data)
    if len(data) != plan.stored_bytes:
        raise RelayoutError(f"buffer has {len(data)} bytes but {shape} stores {plan.stored_bytes}")
    elements = _unpack(data, plan.tiled_elements, plan)
    a = elements.reshape(plan.final_dims + (plan.element_bytes,))
    a = np.ascontiguousarray(_backward(a, plan))
    dt = np.dtype(dtype) if dtype is not None else numpy_dtype(shape)
    if dt.itemsize != plan.element_bytes:
        raise RelayoutError(f"dtype {dt} has {dt.itemsize}-byte elements; {shape.element_type.name} has "
                            f"{plan.element_bytes}")
    return a.view(dt).reshape(shape.dimensions)


def check_same_array(source: Shape, target: Shape) -> None:
    """Refuse a relayout between shapes that do not hold the same logical array."""
    if not (source.is_array and target.is_array):
        raise RelayoutError("relayout works on array shapes only")
    if source.element_type is not target.element_type:
        raise RelayoutError(f"element types differ: {source.element_type.name} vs {target.element_type.name} "
                            "(relayout moves bytes; it does not convert values)")
    if source.dimensions != target.dimensions:
        raise RelayoutError(f"logical dimensions differ: {list(source.dimensions)} vs {list(target.dimensions)}")


def relayout(data: bytes | bytearray | memoryview, source: Shape, target: Shape,
             allow_subtile_padding: bool = False, truncate: bool = False) -> bytes:
    """Re-store a buffer of ``source`` as a buffer of ``target`` (same logical array)."""
    check_same_array(source, target)
    array = untile(data, source, dtype=f"V{plan_for(source).element_bytes}",
                   allow_subtile_padding=allow_subtile_padding)
    return tile(array, target, allow_subtile_padding=allow_subtile_padding, truncate=truncate)
