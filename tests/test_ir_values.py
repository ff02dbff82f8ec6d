"""The IR's values (ir.value.FrozenValue, ir.primitive.PrimitiveType) behave as the frozen dataclasses
they replaced (issue 36, start-up): equality, hash, repr, replace, no assignment, copies and pickles."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from xladoctor.ir.primitive import PRIMITIVE_TYPES, TUPLE, PrimitiveType
from xladoctor.ir.shape import DimLevel, Layout, Shape, SplitConfig, Tile, set_memory_space_in_place
from xladoctor.ir.sizes import DimensionPadding, LeafSize
from xladoctor.ir.value import replace
from xladoctor.syntax.layout_warnings import LayoutWarning
from xladoctor.syntax.shape_parser import parse_shape

SHAPES = ["bf16[16,1280,40]{1,2,0:T(8,128)(2,1)S(5)}", "(f32[2]{0}, s8[3,4]{0,1:T(4,128)L(2)E(4)}, token[])",
          "b(f32[<=4,?]{1,0})", "f32[8,8]{1,0:D(D,C)#(u32)*(u16)}", "pred[]", "f32[4,2]{1,0:SC(0:2)M(8)}"]


def _dataclass_twin(cls: type) -> type:
    """A frozen dataclass with ``cls``' name and fields: what ``cls`` was before issue 36's start-up work."""
    fields = [(name, object) for name in getattr(cls, "_FIELDS", None) or cls.__slots__]
    twin = dataclasses.make_dataclass(cls.__name__, fields, frozen=True)
    twin.__qualname__ = cls.__qualname__
    return twin


def _values(shape: Shape):
    yield shape
    yield shape.element_type
    if shape.layout is not None:
        yield shape.layout
        yield from shape.layout.tiles
        yield from shape.layout.split_configs
        yield from shape.layout.dim_levels
    for part in shape.tuple_shapes:
        yield from _values(part)


@pytest.mark.parametrize("text", SHAPES)
def test_equality_hash_and_repr_are_the_dataclass_ones(text):
    for value in _values(parse_shape(text)):
        cls = type(value)
        names = getattr(cls, "_FIELDS", None) or cls.__slots__
        fields = {name: getattr(value, name) for name in names}
        twin = _dataclass_twin(cls)(**fields)
        assert hash(value) == hash(twin) and repr(value) == repr(twin), cls
        again = cls(**fields)
        assert again == value and again is not value and hash(again) == hash(value)
        assert value != twin and (value == object()) is False


def test_replace_copies_with_changes_and_refuses_unknown_fields():
    layout = Layout((1, 0), tiles=(Tile((8, 128)),))
    moved = replace(layout, memory_space=5)
    assert moved.memory_space == 5 and moved.tiles == layout.tiles and layout.memory_space == 0
    assert moved == layout.replace(memory_space=5) and str(moved) == "{1,0:T(8,128)S(5)}"
    shape = Shape.array("f32", (2, 3), layout)
    assert replace(shape, dimensions=(3, 2)).dimensions == (3, 2) and shape.dimensions == (2, 3)
    with pytest.raises(TypeError):
        replace(layout, memory_spaces=5)


@pytest.mark.parametrize("value", [Tile((8, 128)), SplitConfig(0, (2,)), DimLevel(), Layout(), PRIMITIVE_TYPES["f32"],
                                   Shape.array("f32", (2,)), DimensionPadding(0, 2, 8, 8, 0, 24),
                                   LeafSize((), Shape.array("f32", (2,)), 8, 8),
                                   LayoutWarning("tile", "m", 1, 2, None, "result")])
def test_fields_cannot_be_assigned_or_deleted(value):
    name = (getattr(type(value), "_FIELDS", None) or type(value).__slots__)[0]
    with pytest.raises(AttributeError):
        setattr(value, name, None)
    with pytest.raises(AttributeError):
        delattr(value, name)


@pytest.mark.parametrize("text", SHAPES)
def test_copies_and_pickles_keep_the_value(text):
    shape = parse_shape(text)
    str(shape)  # the printed text is kept on the shape; copies carry it
    for other in (copy.copy(shape), copy.deepcopy(shape), pickle.loads(pickle.dumps(shape))):
        assert other == shape and hash(other) == hash(shape) and str(other) == str(shape)
    element = pickle.loads(pickle.dumps(shape.element_type))
    assert element == shape.element_type and isinstance(element, PrimitiveType)


def test_a_wide_tuple_changed_in_place_still_equals_its_frozen_spelling():
    wide = Shape.tuple([Shape.array("f32", (2,), Layout((0,)))] * 70)
    owner = object()
    mine = set_memory_space_in_place(wide, 5, (3,), owner)
    frozen = wide.with_memory_space(5, (3,))
    assert mine == frozen and frozen == mine and hash(mine) == hash(frozen) and str(mine) == str(frozen)
    assert wide.tuple_shapes[3].memory_space == 0 and mine.element_type is TUPLE
