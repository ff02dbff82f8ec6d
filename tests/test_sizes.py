"""Byte sizes against the worked examples of layouts.md §7 (XLA ByteSizeOf / ArraySize).

Each row is (shape, logical bytes, physical bytes).  Rows marked [OBS] in the doc are
numbers printed by real TPUs (E0102 message, OOM reports), [TEST] from XLA's tests.
"""

import pytest

from xladoctor.ir.sizes import (
    dimension_padding,
    leaf_sizes,
    logical_bytes,
    physical_bytes,
    tail_padding_elements,
    uses_combine_rule,
)
from xladoctor.syntax.shape_parser import parse_shape

WORKED_EXAMPLES = [
    ('bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}', 1638400, 5242880),
    ('bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}', 1638400, 1638400),
    ('f32[3,5]{1,0:T(2,2)}', 60, 96),
    ('f32[3,5]{1,0}', 60, 60),
    ('f32[123,456]{1,0:T(8,128)}', 224352, 262144),
    ('f32[123,456]{0,1:T(8,128)}', 224352, 233472),
    ('f32[123,456]{0,1:T(2,128)}', 224352, 233472),
    ('f32[123,456]{1,0:T(16,128)M(1024)}', 224352, 262144),
    ('s32[29360128,10]{1,0:T(8,128)}', 1174405120, 15032385536),
    ('f32[128,256,896,18]{0,3,2,1:T(8,128)}', 2113929216, 2818572288),
    ('f32[1,1,8,18]{3,2,1,0:T(8,128)}', 576, 4096),
    ('f32[18]{0:T(256)}', 72, 1024),
    ('f32[1024]{0:T(1024)}', 4096, 4096),
    ('s32[10]{0:T(1024)}', 40, 4096),
    ('s32[16]{0:T(128)}', 64, 512),
    ('s32[]{:T(128)}', 4, 512),
    ('f32[]{:T(256)}', 4, 1024),
    ('pred[]{:T(512)}', 1, 512),
    ('bf16[6144]{0:T(1024)(128)(2,1)}', 12288, 12288),
    ('bf16[128]{0:T(256)(128)(2,1)}', 256, 512),
    ('bf16[37,6144]{1,0:T(8,128)(2,1)}', 454656, 491520),
    ('bf16[3,100]{1,0:T(8,128)(2,1)}', 600, 2048),
    ('bf16[3,100]{1,0:T(16,128)(2,1)}', 600, 4096),
    ('bf16[24,16,32,128]{3,2,1,0:T(8,128)(2,1)}', 3145728, 3145728),
    ('s8[9216,6144]{1,0:T(8,128)(4,1)}', 56623104, 56623104),
    ('s8[2,6144,2,256]{3,1,0,2:T(32,128)(4,1)}', 6291456, 6291456),
    ('u8[327680,327680]{1,0:T(8,128)(4,1)}', 107374182400, 107374182400),
    ('pred[8,8,8]{0,2,1:T(8,128)}', 512, 8192),
    ('pred[8,8,8]{0,2,1:T(8,128)E(32)}', 2048, 32768),
    ('pred[8,8,8]{0,2,1:E(32)}', 2048, 2048),
    ('pred[123,456]{1,0:T(2,128)S(3)}', 56088, 63488),
    ('pred[1,1]{1,0:T(4,128)(4,1)}', 1, 512),
    ('s4[64,128]{1,0}', 8192, 8192),
    ('s4[64,128]{1,0:E(4)}', 4096, 4096),
    ('s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}', 28311552, 28311552),
    ('s4[123,456]{1,0:T(2,128)E(4)}', 28044, 31744),
    ('f32[150,200,100]{0,1,2:T(8,128)SC(0:30)(1:40,130)}', 12000000, 6881280),
    ('f32[150,200,100]{0,1,2:SC(0:30)(1:40,130)}', 12000000, 12000000),
    ('f32[3,3]{1,0:T(8,128)L(2048)}', 36, 8192),
    ('f32[5]{0:L(1024)}', 20, 20),
    ('f32[100]{0:T(8,128)}', 400, 4096),
    ('f64[100,100]{1,0:T(8,128)}', 80000, 106496),
    ('c64[7,9]{1,0:T(8,128)}', 504, 8192),
    ('f8e4m3fn[17,300]{1,0:T(32,128)(4,1)}', 5100, 12288),
    ('f4e2m1fn[64,128]{1,0:E(4)}', 4096, 4096),
    ('f32[123,<=456]{1,0}', 224352, 224352),
    ('f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}', 49280, 49728),
    ('bf16[2,3,1004]{2,1,0:T(2,*,128)}', 12048, 12288),
    ('s32[20,3,256,133]{2,1,0,3:T(4,128)}', 8171520, 10895360),
    ('s32[20,3,256,133]{2,3,1,0:T(8,128)S(5)}', 8171520, 8355840),
    ('bf16[32,256]{1,0:T(8,128)(2,1,1,1)}', 16384, 16384),
    ('f32[1,2]{0,1:T(2,128)}', 8, 1024),
    ('f32[2,3,4]{0,1,2:T(512,1024)}', 96, 8388608),
    ('bf16[2,3,4]{1,2,0:T(16,256)(2,1)}', 48, 16384),
]


@pytest.mark.parametrize("text,logical,physical", WORKED_EXAMPLES, ids=[c[0] for c in WORKED_EXAMPLES])
def test_worked_example(text, logical, physical):
    shape = parse_shape(text)
    assert logical_bytes(shape) == logical
    assert physical_bytes(shape) == physical


def test_example_46_dynamic_dimension_uses_its_bound():
    shape = parse_shape("f32[123,<=456]{1,0}")
    assert logical_bytes(shape) == 224_352 == physical_bytes(shape)


def test_example_47_tuple_counts_index_table_and_leaves_separately():
    shape = parse_shape("(f32[1572864]{0}, s8[5120,1024]{1,0})")
    assert logical_bytes(shape) == 16
    assert [leaf.logical_bytes for leaf in leaf_sizes(shape)] == [6_291_456, 5_242_880]


def test_example_48_token_and_opaque():
    assert logical_bytes(parse_shape("token[]")) == 0
    assert logical_bytes(parse_shape("opaque[]")) == 8


def test_example_57_mnist_entry_layout_per_leaf():
    shape = parse_shape("(f32[784,128]{1,0:T(8,128)},f32[128]{0:T(256)},f32[128,32]{1,0:T(8,128)},"
                        "f32[32]{0:T(256)},f32[32,10]{1,0:T(8,128)},f32[10]{0:T(256)})")
    assert [leaf.physical_bytes for leaf in leaf_sizes(shape)] == [401_408, 1_024, 65_536, 1_024, 16_384, 1_024]
    assert physical_bytes(shape) == 486_400


def test_seed_e0102_padding_names_dimension_2_in_the_lane_slot():
    pads = dimension_padding(parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"))
    assert [(p.dim, p.size, p.padded_size, p.tile_entry, p.physical_position) for p in pads] == [
        (2, 40, 128, 128, 0), (1, 1280, 1280, 8, 1), (0, 16, 16, None, 2)]
    assert pads[0].wasted_bytes == 16 * 1280 * (128 - 40) * 2
    supplied = dimension_padding(parse_shape("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"))
    assert not any(p.is_padded for p in supplied)


def test_tile_longer_than_rank_pads_a_virtual_dimension():
    pads = dimension_padding(parse_shape("f32[100]{0:T(8,128)}"))
    assert [(p.dim, p.size, p.padded_size) for p in pads] == [(0, 100, 128), (None, 1, 8)]


def test_scalar_tile_pads_one_element():
    pads = dimension_padding(parse_shape("f32[]{:T(256)}"))
    assert [(p.dim, p.size, p.padded_size) for p in pads] == [(None, 1, 256)]


def test_tail_padding_alignment():
    assert tail_padding_elements(parse_shape("f32[3,3]{1,0:T(8,128)L(2048)}")) == 1024
    assert tail_padding_elements(parse_shape("f32[5]{0:L(1024)}")) == 0  # untiled: L ignored, as in ArraySize


def test_combine_rule_is_flagged():
    assert uses_combine_rule(parse_shape("bf16[2,3,1004]{2,1,0:T(2,*,128)}"))
    assert not uses_combine_rule(parse_shape("bf16[2,3,1004]{2,1,0:T(2,128)}"))


def test_unbounded_dimension_has_no_size():
    from xladoctor.base.errors import XlaDoctorError
    with pytest.raises(XlaDoctorError, match="unbounded"):
        logical_bytes(parse_shape("f32[?,784]"))


def test_sizes_match_jaxlib_for_untiled_shapes():
    """jaxlib's Shape knows ByteSizeOf-style numbers only for dense layouts; check those agree."""
    xc = pytest.importorskip("jax._src.lib", reason="jax not installed").xla_client
    import numpy as np
    for dtype, dims in [(np.float32, (3, 5)), (np.int8, (7,)), (np.complex64, (2, 2)), (np.float16, (4, 4, 4))]:
        shape = xc.Shape.array_shape(np.dtype(dtype), dims)
        ours = parse_shape(str(shape))
        assert logical_bytes(ours) == int(np.prod(dims)) * np.dtype(dtype).itemsize
