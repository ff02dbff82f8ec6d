"""``set_memory_space_in_place``: a wide tuple its owner changes in place, never a shared one."""

from __future__ import annotations

from xladoctor.ir.shape import HOST_MEMORY_SPACE, WIDE_TUPLE, MutableTupleShape, set_memory_space_in_place
from xladoctor.syntax.hlo_parser import parse_module


def _root_shape(n: int):
    parts = ", ".join(["f32[8,128]{1,0}"] * n)
    text = (f"HloModule m\n\nENTRY main {{\n  p = f32[8,128]{{1,0}} parameter(0)\n"
            f"  ROOT t = ({parts}) tuple({', '.join(['p'] * n)})\n}}\n")
    return parse_module(text).entry.root.shape


def test_wide_tuple_is_copied_once_then_changed_in_place() -> None:
    shared = _root_shape(WIDE_TUPLE + 8)
    before = str(shared)
    owner = object()
    mine = set_memory_space_in_place(shared, HOST_MEMORY_SPACE, (3,), owner)
    assert str(shared) == before  # the shared shape (the input's) is untouched
    assert isinstance(mine, MutableTupleShape)
    expected = shared.with_memory_space(HOST_MEMORY_SPACE, (3,)).with_memory_space(HOST_MEMORY_SPACE, (70,))
    again = set_memory_space_in_place(mine, HOST_MEMORY_SPACE, (70,), owner)
    assert again is mine
    assert str(mine) == str(expected) and "S(5)" in str(mine)
    assert mine == expected and expected == mine and hash(mine) == hash(expected)
    relaid = mine.with_layout(None)
    set_memory_space_in_place(mine, HOST_MEMORY_SPACE, (71,), owner)
    assert "S(5)" not in str(relaid.tuple_shapes[71]) and type(relaid) is not MutableTupleShape
    expected = expected.with_memory_space(HOST_MEMORY_SPACE, (71,))
    other = set_memory_space_in_place(mine, HOST_MEMORY_SPACE, (5,), object())
    assert other is not mine and str(mine) == str(expected)  # another owner gets its own copy


def test_narrow_tuple_stays_immutable() -> None:
    shape = _root_shape(3)
    new = set_memory_space_in_place(shape, HOST_MEMORY_SPACE, (1,), object())
    assert new == shape.with_memory_space(HOST_MEMORY_SPACE, (1,)) and type(new) is type(shape)
    assert "S(5)" not in str(shape)
