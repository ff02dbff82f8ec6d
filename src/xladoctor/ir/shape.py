"""XLA's Shape, Layout, Tile and SplitConfig as frozen value objects.

They mirror ``xla/shape.h`` and ``xla/layout.h``: a Shape is an array (element type,
dimensions, per-dimension dynamic flags, optional Layout), a tuple of shapes, a
token, an opaque, or a ``b(...)`` buffer wrapping one array.  ``str()`` prints
exactly what XLA's ``ShapeUtil::HumanStringWithLayout`` prints, so
``str(parse_shape(s))`` is XLA's canonical spelling of ``s``.

>>> from xladoctor.syntax.shape_parser import parse_shape
>>> s = parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)S(5)}")
>>> s.layout.memory_space, s.layout.tiles[0].dimensions
(5, (8, 128))
>>> str(s.with_memory_space(0))
'bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}'
"""

from __future__ import annotations

from .primitive import BUFFER, PRIMITIVE_TYPES, TUPLE, PrimitiveType
from .value import FrozenValue

TYPE_CHECKING = False  # not typing's: `xladoctor shape` imports this module (issue 36, start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Final

COMBINE_DIMENSION = -(2**63)
"""``Tile::kCombineDimension`` (INT64_MIN), printed ``*``."""

UNBOUNDED_SIZE = -(2**63)
"""``Shape::kUnboundedSize``: a dynamic dimension with no bound, printed ``?``."""

# Final (typing is imported for the checker only): mypyc puts the number itself where a compiled
# module reads one (setup.py), not a read of this module's globals.
DEFAULT_MEMORY_SPACE: Final = 0
GENERIC_FAST_MEMORY_SPACE: Final = 1
HOST_MEMORY_SPACE: Final = 5
"""``Layout::kHostMemorySpace``: the ``S(5)`` that host offloading is about."""

HOST_MEMORY_KINDS = frozenset({"pinned_host", "unpinned_host"})
"""JAX memory kinds (and ``_xla_buffer_placement`` values) that XLA puts in ``S(5)``;
XLA does not tell pinned from unpinned host memory."""

ShapeIndex = tuple[int, ...]
"""A path into nested tuples, as XLA's ShapeIndex; ``()`` is the whole shape."""

IndexedShape = tuple[ShapeIndex, "Shape"]
"""A subshape with its index; spelled here because ``Shape.tuple`` hides the builtin inside the class."""


def format_shape_index(index: ShapeIndex) -> str:
    """XLA's ShapeIndex::ToString: ``{}`` or ``{1,0}``."""
    return "{" + ",".join(str(i) for i in index) + "}"


class Tile(FrozenValue):
    """One tile of a tiled layout; covers the most-minor ``len(dimensions)`` physical dims."""

    _FIELDS = ("dimensions",)

    dimensions: tuple[int, ...]
    """Tile extents, major to minor; ``COMBINE_DIMENSION`` entries print as ``*``."""

    def __init__(self, dimensions: tuple[int, ...]) -> None:
        object.__setattr__(self, "dimensions", dimensions)

    # Equality and hash spelled out for Tile, Layout and Shape (the parser's and the passes' keys):
    # FrozenValue's generic ones are twice as slow; the values are the same.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.dimensions == other.dimensions

    def __hash__(self) -> int:
        return hash((self.dimensions,))

    def __str__(self) -> str:
        return "(" + ",".join("*" if d == COMBINE_DIMENSION else str(d) for d in self.dimensions) + ")"


class SplitConfig(FrozenValue):
    """Splits one physical dimension (counted from the major end) at element indices."""

    _FIELDS = ("dimension", "split_indices")

    dimension: int
    split_indices: tuple[int, ...]

    def __init__(self, dimension: int, split_indices: tuple[int, ...]) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "dimension", dimension)
        set_(self, "split_indices", split_indices)

    def __str__(self) -> str:
        return f"({self.dimension}:" + ",".join(str(i) for i in self.split_indices) + ")"


DIM_LEVEL_ABBREV = {"dense": "D", "compressed": "C", "singleton": "S", "loose_compressed": "H"}
DIM_LEVEL_BY_ABBREV = {v: k for k, v in DIM_LEVEL_ABBREV.items()}


class DimLevel(FrozenValue):
    """One entry of a sparse layout's ``D(...)`` list."""

    _FIELDS = ("level_type", "unique", "ordered")

    level_type: str
    unique: bool
    ordered: bool

    def __init__(self, level_type: str = "dense", unique: bool = True, ordered: bool = True) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "level_type", level_type)
        set_(self, "unique", unique)
        set_(self, "ordered", ordered)

    def __str__(self) -> str:
        return DIM_LEVEL_ABBREV[self.level_type] + ("" if self.unique else "+") + ("" if self.ordered else "~")


class Layout(FrozenValue):
    """A physical layout: dimension order plus the attributes after ``:``, in XLA's order.

    Defaults are XLA's, so a default field is never printed (``L(1)``, ``E(0)``, ``S(0)``).
    """

    _FIELDS = ("minor_to_major", "dim_levels", "tiles", "tail_padding_alignment_in_elements", "index_primitive_type",
               "pointer_primitive_type", "element_size_in_bits", "memory_space", "split_configs", "physical_shape",
               "dynamic_shape_metadata_prefix_bytes")

    minor_to_major: tuple[int, ...]
    """Logical dimension numbers from fastest-varying to slowest."""
    dim_levels: tuple[DimLevel, ...]
    """``D(...)``: sparse dimension level types; empty for dense layouts."""
    tiles: tuple[Tile, ...]
    """``T(...)(...)``: applied first to last; only the first adds padding."""
    tail_padding_alignment_in_elements: int
    """``L(n)``: element count rounded up to a multiple of n after tiling."""
    index_primitive_type: str | None
    """``#(u32)``: sparse index type."""
    pointer_primitive_type: str | None
    """``*(u16)``: sparse pointer type."""
    element_size_in_bits: int
    """``E(n)``: bits per stored element; 0 means the type's natural byte width."""
    memory_space: int
    """``S(n)``: 0 device (HBM), 1 fast memory, 5 host."""
    split_configs: tuple[SplitConfig, ...]
    """``SC(d:i,j)``: a physical dimension split across memories."""
    physical_shape: Shape | None
    """``P(shape)``: sparse only."""
    dynamic_shape_metadata_prefix_bytes: int
    """``M(n)``: bytes of dynamic-size metadata before the data."""

    def __init__(self, minor_to_major: tuple[int, ...] = (), dim_levels: tuple[DimLevel, ...] = (),
                 tiles: tuple[Tile, ...] = (), tail_padding_alignment_in_elements: int = 1,
                 index_primitive_type: str | None = None, pointer_primitive_type: str | None = None,
                 element_size_in_bits: int = 0, memory_space: int = DEFAULT_MEMORY_SPACE,
                 split_configs: tuple[SplitConfig, ...] = (), physical_shape: Shape | None = None,
                 dynamic_shape_metadata_prefix_bytes: int = 0) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "minor_to_major", minor_to_major)
        set_(self, "dim_levels", dim_levels)
        set_(self, "tiles", tiles)
        set_(self, "tail_padding_alignment_in_elements", tail_padding_alignment_in_elements)
        set_(self, "index_primitive_type", index_primitive_type)
        set_(self, "pointer_primitive_type", pointer_primitive_type)
        set_(self, "element_size_in_bits", element_size_in_bits)
        set_(self, "memory_space", memory_space)
        set_(self, "split_configs", split_configs)
        set_(self, "physical_shape", physical_shape)
        set_(self, "dynamic_shape_metadata_prefix_bytes", dynamic_shape_metadata_prefix_bytes)

    def _key(self) -> tuple[Any, ...]:
        return (self.minor_to_major, self.dim_levels, self.tiles, self.tail_padding_alignment_in_elements,
                self.index_primitive_type, self.pointer_primitive_type, self.element_size_in_bits, self.memory_space,
                self.split_configs, self.physical_shape, self.dynamic_shape_metadata_prefix_bytes)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()  # tuples: an element that `is` the other's is equal unasked

    def __hash__(self) -> int:
        return hash((self.minor_to_major, self.dim_levels, self.tiles, self.tail_padding_alignment_in_elements,
                     self.index_primitive_type, self.pointer_primitive_type, self.element_size_in_bits,
                     self.memory_space, self.split_configs, self.physical_shape,
                     self.dynamic_shape_metadata_prefix_bytes))

    @property
    def is_sparse(self) -> bool:
        return any(d.level_type != "dense" for d in self.dim_levels)

    @property
    def is_customized(self) -> bool:
        """HostOffloader's "explicitly customized" test: tiles, index/pointer type or E(n)."""
        return bool(self.tiles) or self.index_primitive_type is not None or \
            self.pointer_primitive_type is not None or self.element_size_in_bits != 0

    def attributes_text(self) -> str:
        """The part after ``:``, in XLA's fixed order D, T, L, #, *, E, S, SC, P, M.

        ``D(...)`` is left out: jaxlib parses it but never prints it, and printing must
        match XLA's canonical text.
        """
        out = []
        if self.tiles:
            out.append("T" + "".join(str(t) for t in self.tiles))
        if self.tail_padding_alignment_in_elements != 1:
            out.append(f"L({self.tail_padding_alignment_in_elements})")
        if self.index_primitive_type is not None:
            out.append(f"#({self.index_primitive_type})")
        if self.pointer_primitive_type is not None:
            out.append(f"*({self.pointer_primitive_type})")
        if self.element_size_in_bits != 0:
            out.append(f"E({self.element_size_in_bits})")
        if self.memory_space != 0:
            out.append(f"S({self.memory_space})")
        if self.split_configs:
            out.append("SC" + "".join(str(s) for s in self.split_configs))
        if self.physical_shape is not None:
            out.append(f"P({self.physical_shape})")
        if self.dynamic_shape_metadata_prefix_bytes > 0:
            out.append(f"M({self.dynamic_shape_metadata_prefix_bytes})")
        return "".join(out)

    def __str__(self) -> str:
        attrs = self.attributes_text()
        return "{" + ",".join(str(d) for d in self.minor_to_major) + (":" + attrs if attrs else "") + "}"

    def with_memory_space(self, memory_space: int) -> Layout:
        return self.replace(memory_space=memory_space)

    @property
    def major_to_minor(self) -> tuple[int, ...]:
        """JAX's ``Layout(major_to_minor=...)``: XLA's minor_to_major reversed."""
        return tuple(reversed(self.minor_to_major))


def default_layout(rank: int) -> Layout:
    """XLA's default (row-major) layout: minor_to_major = rank-1, ..., 1, 0; one per rank, shared (frozen: ~3 us each)."""
    layout = _DEFAULT_LAYOUTS.get(rank)
    if layout is None:  # a few ranks a module; ReshapeMover asks one per reshape it makes (~150 a train step)
        layout = _DEFAULT_LAYOUTS[rank] = Layout(minor_to_major=tuple(range(rank - 1, -1, -1)))
    return layout


_DEFAULT_LAYOUTS: dict[int, Layout] = {}


class Shape(FrozenValue):
    """An XLA shape.  Build with :meth:`array`, :meth:`tuple` or :meth:`buffer`."""

    _FIELDS = ("element_type", "dimensions", "dynamic", "tuple_shapes", "layout")

    element_type: PrimitiveType
    dimensions: tuple[int, ...]
    """Sizes; a dynamic dimension stores its bound, an unbounded one ``UNBOUNDED_SIZE``."""
    dynamic: tuple[bool, ...]
    """Per-dimension ``is_dynamic`` flags (same length as ``dimensions``)."""
    tuple_shapes: tuple[Shape, ...]
    """Elements of a tuple; the one wrapped array of a ``b(...)`` buffer."""
    layout: Layout | None
    """The array's layout, or ``None`` when the text gave none."""

    def __init__(self, element_type: PrimitiveType, dimensions: tuple[int, ...] = (), dynamic: tuple[bool, ...] = (),
                 tuple_shapes: tuple[Shape, ...] = (), layout: Layout | None = None) -> None:
        set_ = object.__setattr__  # not __dict__: a dict made by hand slows every read 4x
        set_(self, "element_type", element_type)
        set_(self, "dimensions", dimensions)
        set_(self, "dynamic", dynamic)
        set_(self, "tuple_shapes", tuple_shapes)
        set_(self, "layout", layout)

    def _key(self) -> tuple[Any, ...]:
        return (self.element_type, self.dimensions, self.dynamic, self.tuple_shapes, self.layout)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        o = other
        # As tuples, as the dataclass compared them: an element that `is` the other's is equal unasked
        # (the parser shares one Layout and one element tuple per spelling).
        return ((self.element_type, self.dimensions, self.dynamic, self.tuple_shapes, self.layout)
                == (o.element_type, o.dimensions, o.dynamic, o.tuple_shapes, o.layout))

    def __hash__(self) -> int:
        return hash((self.element_type, self.dimensions, self.dynamic, self.tuple_shapes, self.layout))

    # -- construction -------------------------------------------------------------
    @staticmethod
    def array(element_type: str | PrimitiveType, dimensions: tuple[int, ...] | list[int],
              layout: Layout | None = None, dynamic: tuple[bool, ...] | None = None) -> Shape:
        et = PRIMITIVE_TYPES[element_type] if isinstance(element_type, str) else element_type
        dims = tuple(dimensions)
        dyn = tuple(dynamic) if dynamic is not None else (False,) * len(dims)
        return Shape(et, dims, dyn, (), layout)

    @staticmethod
    def tuple(shapes: list[Shape] | tuple[Shape, ...]) -> Shape:
        return Shape(TUPLE, tuple_shapes=tuple(shapes))

    @staticmethod
    def buffer(array: Shape) -> Shape:
        return Shape(BUFFER, tuple_shapes=(array,))

    # -- queries -----------------------------------------------------------------
    @property
    def is_tuple(self) -> bool:
        return self.element_type is TUPLE

    @property
    def is_buffer(self) -> bool:
        return self.element_type is BUFFER

    @property
    def is_array(self) -> bool:
        return self.element_type.bits is not None  # is_array_type, without a second property call

    @property
    def rank(self) -> int:
        return len(self.dimensions)

    @property
    def is_dynamic(self) -> bool:
        return any(self.dynamic) or any(s.is_dynamic for s in self.tuple_shapes)

    def is_unbounded(self, dim: int) -> bool:
        return self.dimensions[dim] == UNBOUNDED_SIZE

    @property
    def effective_layout(self) -> Layout:
        """The layout, or XLA's default for this rank when none was given."""
        return self.layout if self.layout is not None else default_layout(self.rank)

    @property
    def memory_space(self) -> int:
        return self.layout.memory_space if self.layout is not None else DEFAULT_MEMORY_SPACE

    def subshape(self, index: ShapeIndex) -> Shape:
        """ShapeUtil::GetSubshape; raises IndexError for an index the shape does not have."""
        s = self
        for i in index:
            if not s.is_tuple or not 0 <= i < len(s.tuple_shapes):
                raise IndexError(f"shape index {format_shape_index(index)} is not valid for {self}")
            s = s.tuple_shapes[i]
        return s

    def has_index(self, index: ShapeIndex) -> bool:
        try:
            self.subshape(index)
            return True
        except IndexError:
            return False

    def leaves(self, prefix: ShapeIndex = ()) -> Iterator[IndexedShape]:
        """Every non-tuple subshape with its index, in XLA's ForEachLeaf order."""
        if self.element_type is TUPLE:  # is_tuple, without its property call per subshape
            for i, s in enumerate(self.tuple_shapes):
                yield from s.leaves(prefix + (i,))
        else:
            yield prefix, self

    def subshapes(self, prefix: ShapeIndex = ()) -> Iterator[IndexedShape]:
        """Every subshape, tuples included, pre-order."""
        yield prefix, self
        if self.is_tuple:
            for i, s in enumerate(self.tuple_shapes):
                yield from s.subshapes(prefix + (i,))

    # -- derived shapes -------------------------------------------------------------
    def with_layout(self, layout: Layout | None) -> Shape:
        return self.replace(layout=layout)

    def without_layout(self) -> Shape:
        if self.is_tuple or self.is_buffer:
            return self.replace(tuple_shapes=tuple(s.without_layout() for s in self.tuple_shapes))
        return self.replace(layout=None)

    def with_memory_space(self, memory_space: int, index: ShapeIndex = ()) -> Shape:
        """This shape with ``S(memory_space)`` on the array at ``index`` (all leaves below it)."""
        if index:
            i = index[0]
            part = self.tuple_shapes[i]
            new_part = part.with_memory_space(memory_space, index[1:])
            if new_part is part:
                return self
            # Built directly, not by ``replace``: a walk sets one element of a 10,000-element
            # ROOT tuple per output (the copy of the element tuple is what immutability costs).
            parts = list(self.tuple_shapes)
            parts[i] = new_part
            return Shape(self.element_type, self.dimensions, self.dynamic, tuple(parts), self.layout)
        if self.is_tuple:
            return self.replace(tuple_shapes=tuple(s.with_memory_space(memory_space) for s in self.tuple_shapes))
        if not self.is_array or (self.layout is not None and self.layout.memory_space == memory_space):
            return self
        return self.replace(layout=self.effective_layout.with_memory_space(memory_space))

    def compatible(self, other: Shape) -> bool:
        """ShapeUtil::Compatible: same element types, dimensions and tuple structure; layouts ignored."""
        if self.is_tuple or other.is_tuple:
            return self.is_tuple and other.is_tuple and len(self.tuple_shapes) == len(other.tuple_shapes) and \
                all(a.compatible(b) for a, b in zip(self.tuple_shapes, other.tuple_shapes))
        return self.element_type is other.element_type and self.dimensions == other.dimensions and \
            self.tuple_shapes == other.tuple_shapes

    # -- printing ------------------------------------------------------------------
    def human_string(self) -> str:
        """ShapeUtil::HumanString: without layouts (as in computation signatures)."""
        return _print(self, with_layout=False)

    def __str__(self) -> str:
        # The text is kept: the path of every offload out of a pytree-returning ENTRY names the
        # ROOT tuple's shape (printing 10,000 elements per error was quadratic), and the parser
        # makes one Shape per spelling, so a printer or summary that spells every instruction's
        # shape shares one string per spelling instead of making one per instruction.
        text = self.__dict__.get("_text")
        if text is None:
            text = self.__dict__["_text"] = _print(self, with_layout=True)  # frozen: not a field
        return text


class MutableTupleShape(Shape):
    """A tuple shape its one holder changes in place, as XLA mutates a subshape of an instruction.

    HostOffloader sets the memory space of one element of the ROOT tuple (and of the entry
    result layout) per output it reaches: copying a 10,000-element immutable tuple per output
    made a pytree-returning program quadratic.  Made only by :func:`set_memory_space_in_place`
    for the holder that owns it (a private copy's instruction, a pass' result layout);
    ``tuple_shapes`` is then a list.  Compares and hashes as the :class:`Shape` it spells.
    """

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shape):
            return NotImplemented
        return (self.element_type == other.element_type and self.dimensions == other.dimensions
                and self.dynamic == other.dynamic and tuple(self.tuple_shapes) == tuple(other.tuple_shapes)
                and self.layout == other.layout)

    def __hash__(self) -> int:
        return hash((self.element_type, self.dimensions, self.dynamic, tuple(self.tuple_shapes), self.layout))

    def with_layout(self, layout: Layout | None) -> Shape:
        # Not ``replace``: that would share the element list, which this shape changes in place.
        return Shape(self.element_type, self.dimensions, self.dynamic, tuple(self.tuple_shapes), layout)


WIDE_TUPLE: Final = 64
"""Tuples at least this wide are changed in place by :func:`set_memory_space_in_place`."""


def set_memory_space_in_place(shape: Shape, memory_space: int, index: ShapeIndex, owner: object) -> Shape:
    """``shape.with_memory_space(memory_space, index)`` for ``owner``'s own shape.

    A wide tuple owned by ``owner`` is changed in place (O(depth) rather than O(width));
    the first change copies it once into a :class:`MutableTupleShape` owned by ``owner``, so
    a shape shared with another holder (the input module, the parser's one object per
    spelling) is never changed.  Returns the shape ``owner`` holds now.
    """
    if not index or not shape.is_tuple or len(shape.tuple_shapes) < WIDE_TUPLE:
        return shape.with_memory_space(memory_space, index)
    i = index[0]
    part = shape.tuple_shapes[i]
    new_part = part.with_memory_space(memory_space, index[1:])
    if new_part is part:
        return shape
    if not (isinstance(shape, MutableTupleShape) and shape.__dict__.get("_owner") is owner):
        mine = MutableTupleShape(shape.element_type, shape.dimensions, shape.dynamic,
                                 list(shape.tuple_shapes), shape.layout)  # type: ignore[arg-type]
        mine.__dict__["_owner"] = owner  # frozen: not a field
        shape = mine
    shape.tuple_shapes[i] = new_part  # type: ignore[index]
    shape.__dict__.pop("_text", None)
    return shape


def _dims_text(shape: Shape) -> str:
    out = []
    for d, dyn in zip(shape.dimensions, shape.dynamic):
        if d == UNBOUNDED_SIZE:
            out.append("?")
        else:
            out.append(("<=" if dyn else "") + str(d))
    return "[" + ",".join(out) + "]"


def _print(shape: Shape, with_layout: bool) -> str:
    if shape.is_tuple:
        parts = []
        for i, s in enumerate(shape.tuple_shapes):
            text = _print(s, with_layout)
            parts.append(f"/*index={i}*/{text}" if i and i % 5 == 0 else text)
        return "(" + ", ".join(parts) + ")"
    if shape.is_buffer:
        return "b(" + _print(shape.tuple_shapes[0], with_layout) + ")"
    text = shape.element_type.name + _dims_text(shape)
    if with_layout and shape.layout is not None and shape.is_array:
        layout_text = str(shape.layout)
        if not (shape.rank == 0 and layout_text == "{}"):
            text += layout_text
    return text
