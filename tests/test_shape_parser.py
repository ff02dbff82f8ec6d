"""Shape/layout parsing: every attribute, XLA's printing rules, and errors with positions."""

import pytest

from xladoctor.base.errors import HloParseError
from xladoctor.ir.shape import COMBINE_DIMENSION, HOST_MEMORY_SPACE, UNBOUNDED_SIZE
from xladoctor.syntax.shape_parser import parse_shape


@pytest.mark.parametrize("text,printed", [
    ("f32[2,3]", "f32[2,3]{1,0}"),                      # XLA's parser fills the default layout
    ("f32[]", "f32[]"),
    ("f32[]{:T(256)}", "f32[]{:T(256)}"),
    ("f32[123,456,789]{0,1,2:T(2, * , 128)}", "f32[123,456,789]{0,1,2:T(2,*,128)}"),
    ("bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}", "bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}"),
    ("s4[123,456]{1,0:T(2,128)E(4)}", "s4[123,456]{1,0:T(2,128)E(4)}"),
    ("pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}", "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}"),
    ("pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}", "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}"),
    ("f32[123,456]{1,0:T(16,128)M(1024)}", "f32[123,456]{1,0:T(16,128)M(1024)}"),
    ("f32[1,2,3,4]{3,2,1,0:T(42,123)(4,5)L(100)E(42)}", "f32[1,2,3,4]{3,2,1,0:T(42,123)(4,5)L(100)E(42)}"),
    ("f32[10]{0:D(C)#(u32)*(u16)}", "f32[10]{0:#(u32)*(u16)}"),  # D(...) is kept but, as jaxlib, not printed
    ("f32[?,784]", "f32[?,784]{1,0}"),
    ("(f32[42], u32[<=123,<=456])", "(f32[42]{0}, u32[<=123,<=456]{1,0})"),
    ("(f32[1],(f32[2], token[]), opaque[], f32[3])", "(f32[1]{0}, (f32[2]{0}, token[]), opaque[], f32[3]{0})"),
    ("b(f32[2])", "b(f32[2]{0})"),
    ("f32[ 1, 2,3]{0, 1 ,2}", "f32[1,2,3]{0,1,2}"),
    ("f32[2]{0:S(0)}", "f32[2]{0}"),
    ("f32[2]{0:L(1)E(0)}", "f32[2]{0}"),
    ("f32[2] /* a comment */", "f32[2]{0}"),
    ("(f32[1], /*index=1*/s32[])", "(f32[1]{0}, s32[])"),
])
def test_canonical_printing(text, printed):
    assert str(parse_shape(text)) == printed


def test_tuple_index_comments_every_fifth_element():
    text = "(" + ",".join(["f32[1]"] * 11) + ")"
    assert str(parse_shape(text)) == ("(f32[1]{0}, f32[1]{0}, f32[1]{0}, f32[1]{0}, f32[1]{0}, /*index=5*/f32[1]{0}, "
                                      "f32[1]{0}, f32[1]{0}, f32[1]{0}, f32[1]{0}, /*index=10*/f32[1]{0})")


def test_every_attribute_is_decoded():
    s = parse_shape("f32[10,20]{0,1:D(D,C+~)L(4)#(u32)*(u16)E(8)S(5)SC(0:3)P(s32[10,20]{1,0})M(16)}")
    lay = s.layout
    assert lay.minor_to_major == (0, 1)
    assert [str(d) for d in lay.dim_levels] == ["D", "C+~"]
    assert lay.tail_padding_alignment_in_elements == 4
    assert (lay.index_primitive_type, lay.pointer_primitive_type) == ("u32", "u16")
    assert lay.element_size_in_bits == 8 and lay.memory_space == HOST_MEMORY_SPACE
    assert lay.split_configs[0].dimension == 0 and lay.split_configs[0].split_indices == (3,)
    assert str(lay.physical_shape) == "s32[10,20]{1,0}"
    assert lay.dynamic_shape_metadata_prefix_bytes == 16


def test_dynamic_and_combine_sentinels():
    s = parse_shape("f32[?,<=8]{1,0:T(*,128)}")
    assert s.dimensions[0] == UNBOUNDED_SIZE and s.dynamic == (True, True)
    assert s.layout.tiles[0].dimensions == (COMBINE_DIMENSION, 128)


def test_every_primitive_type_parses():
    from xladoctor.ir.primitive import PRIMITIVE_TYPES
    for name, pt in PRIMITIVE_TYPES.items():
        if name in ("tuple", "buffer"):
            continue
        text = f"{name}[]" if not pt.is_array_type else f"{name}[2]"
        assert parse_shape(text).element_type is pt


def test_memory_space_edit_keeps_other_attributes():
    s = parse_shape("(f32[8]{0:T(128)}, bf16[2,16,16]{2,1,0:T(8,128)(2,1)})")
    assert str(s.with_memory_space(5, (1,))) == "(f32[8]{0:T(128)}, bf16[2,16,16]{2,1,0:T(8,128)(2,1)S(5)})"


@pytest.mark.parametrize("text,col,message", [
    ("f32[2,3]{1}", 9, "Dimensions size is 2, but minor to major size is 1."),
    ("f32[2,3]{1,1}", 9, "layout minor_to_major field has duplicate values: {1, 1}; shape: f32[2,3]{1,1}"),
    ("f32[2,3]{1,2}", 9, "layout minor_to_major field has out-of-bounds value: {1, 2}; shape: f32[2,3]{1,2}"),
    ("foo[2]", 1, "unknown primitive type 'foo'"),
    ("f32[2", 6, "expected ',' or ']' in dimensions, found end of input"),
    ("f32[2]{0:E(4)T(2)}", 14, "layout attribute 'T' is out of order or repeated"),
    ("f32[2]{0:L(0)}", 12, "L(n) tail padding alignment must be positive, got 0"),
    ("f32[10]{0:T()}", 12, "a tile must have at least one dimension"),
    ("f32[10]{0:T(0)}", 13, "tile dimensions must be positive int64 values, got 0"),
    ("f32[10,20]{0,1:P(s32[10,20]{1,0})}", 11, "Layout has physical shape, but is not for a sparse array"),
    ("f32[2] x", 8, "unexpected 'x' after shape"),
    ("f32[-1]", 5, "dimension size must not be negative"),
    ("(f32[2], ", 10, "expected a shape, found end of input"),
    ("f32[2]{0:Q(1)}", 10, "expected a layout attribute"),
    ("token[2]", 1, "token shapes have no dimensions"),
])
def test_errors_carry_line_column_and_xla_wording(text, col, message):
    with pytest.raises(HloParseError) as info:
        parse_shape(text)
    err = info.value
    assert (err.source, err.line, err.col) == ("<shape>", 1, col)
    assert message in err.message
    assert str(err).startswith(f"<shape>:1:{col}: ")


def test_cached_spelling_does_not_hide_a_layout_on_the_next_line():
    assert str(parse_shape("u8[2]")) == "u8[2]{0}"  # warms the cache for "u8[2]"
    assert str(parse_shape("u8[2]\n {0:S(3)}")) == "u8[2]{0:S(3)}"
    assert str(parse_shape("s16[]\n {:E(2)}")) == "s16[]{:E(2)}"


def test_dim_level_types_do_not_block_tiles_as_in_jaxlib():
    assert str(parse_shape("f32[2,3]{1,0:D(D,C)T(8,128)}")) == "f32[2,3]{1,0:T(8,128)}"


@pytest.mark.parametrize("text,message", [
    ("f32[10]{0:#(s32)}", "index_primitive_type must be an unsigned integer type"),
    ("f32[10]{0:*(f32)}", "pointer_primitive_type must be an unsigned integer type"),
    ("f32[2,3]{1,0:SC(0:9)}", "split indices [9] must be increasing and inside physical dimension 0 (size 2)"),
])
def test_checks_xla_applies_when_it_validates(text, message):
    with pytest.raises(HloParseError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")):
        parse_shape(text)
