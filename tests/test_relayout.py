"""Relayout between dense arrays and the stored bytes of XLA layouts.

Fixed cases: the two worked examples of XLA's docs/tiled_layout.md, the 57 worked
layouts of layouts.md §7 (byte count must equal the documented ArraySize), and
XLA:CPU's real buffers as an oracle for dimension order and s4 packing.
Properties (hypothesis): untile(tile(x)) == x, A -> B -> A restores the bytes, the
byte count equals physical_bytes, padding is zero, and linear_index agrees with tile.
"""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from xladoctor.inputs.relayout import numpy_dtype, relayout, stored_size, tile, untile  # noqa: E402
from xladoctor.inputs.tiling_plan import RelayoutError, SubtilePaddingError, linear_index, plan_for  # noqa: E402
from xladoctor.ir.sizes import physical_bytes  # noqa: E402
from xladoctor.syntax.shape_parser import parse_shape  # noqa: E402

DATA = Path(__file__).parent / "data" / "inputs"
ROUND_TRIP_LIMIT = 9 << 20  # bytes: larger worked examples are checked by size only


def _random_elements(shape, rng):
    """Random logical data for ``shape``: raw bytes; sub-byte types hold only their low bits."""
    plan = plan_for(shape)
    raw = rng.integers(0, 256, tuple(shape.dimensions) + (plan.element_bytes,), dtype=np.uint8)
    if shape.element_type.bits < 8 and shape.element_type.name != "pred":
        raw &= (1 << shape.element_type.bits) - 1
    return raw.view(f"V{plan.element_bytes}").reshape(shape.dimensions)


def _section7_rows():
    rows = []
    for line in (DATA / "layouts_section7.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        num, text, tiled = line.split("\t")
        rows.append(pytest.param(text, int(tiled) if tiled else None, id=f"#{num}:{text[:40]}"))
    return rows


# -- XLA's documented worked examples ---------------------------------------------

def test_tiled_layout_doc_figure1_element_2_3_is_at_17():
    shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
    assert linear_index(shape, (2, 3)) == 17
    data = tile(np.arange(15, dtype=np.float32).reshape(3, 5), shape)
    assert np.frombuffer(data, np.float32)[17] == 2 * 5 + 3
    assert len(data) == 96


def test_tiled_layout_doc_alternative_bf16_packing_element_6_5_is_at_51():
    assert linear_index(parse_shape("f32[8,8]{1,0:T(2,4)(2,1,1,1)}"), (6, 5)) == 51


def test_tiled_layout_doc_figure2_bf16_packing_pairs_rows():
    # (2,4)(2,1) on 4x8: within each 2x4 tile, (r,c) and (r+1,c) are adjacent.
    shape = parse_shape("bf16[4,8]{1,0:T(2,4)(2,1)}")
    assert [linear_index(shape, (0, c)) for c in range(4)] == [0, 2, 4, 6]
    assert [linear_index(shape, (1, c)) for c in range(4)] == [1, 3, 5, 7]
    assert linear_index(shape, (0, 4)) == 8


def test_linear_index_without_tiles_matches_layout_util():
    # LayoutUtil::LinearIndex: strides follow minor_to_major.
    shape = parse_shape("f32[2,3,4]{0,2,1}")  # physical major->minor: d1, d2, d0
    for i in range(2):
        for j in range(3):
            for k in range(4):
                assert linear_index(shape, (i, j, k)) == (j * 4 + k) * 2 + i


def test_e0102_seed_both_layouts_hold_the_same_array():
    rng = np.random.default_rng(1)
    expected = parse_shape("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}")
    supplied = parse_shape("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}")
    x = _random_elements(expected, rng)
    a = tile(x, supplied)
    assert len(a) == 1_638_400
    b = relayout(a, supplied, expected)
    assert len(b) == 5_242_880
    assert untile(b, expected, dtype=x.dtype).tobytes() == x.tobytes()


@pytest.mark.parametrize("text,tiled", _section7_rows())
def test_section7_worked_layouts(text, tiled):
    shape = parse_shape(text)
    if tiled is None:
        with pytest.raises(RelayoutError):
            plan_for(shape)
        return
    leaves = [s for _, s in shape.leaves()]
    if any(s.effective_layout.split_configs for s in leaves):
        with pytest.raises(RelayoutError, match="SC"):
            plan_for(shape)
        assert physical_bytes(shape) == tiled
        return
    assert sum(stored_size(s) for s in leaves) == tiled == physical_bytes(shape)
    rng = np.random.default_rng(7)
    for leaf in leaves:
        if stored_size(leaf) > ROUND_TRIP_LIMIT or plan_for(leaf).element_bytes * \
                int(np.prod(leaf.dimensions)) > ROUND_TRIP_LIMIT:
            continue
        x = _random_elements(leaf, rng)
        data = tile(x, leaf)
        assert len(data) == physical_bytes(leaf)
        assert untile(data, leaf, dtype=x.dtype).tobytes() == x.tobytes()


# -- decisions and refusals --------------------------------------------------------

def test_subtile_padding_is_refused_unless_allowed():
    shape = parse_shape("bf16[128]{0:T(128)(2,1)}")  # one tile row; (2,1) needs a second
    with pytest.raises(SubtilePaddingError, match="ArraySize counts 256"):
        tile(np.zeros(128, np.uint16), shape)
    x = np.arange(128, dtype=np.uint16)
    data = tile(x, shape, allow_subtile_padding=True)
    assert len(data) == 512 > physical_bytes(shape)
    assert np.array_equal(untile(data, shape, dtype=np.uint16, allow_subtile_padding=True), x)


def test_refuses_wrong_buffer_size_and_mismatched_arrays():
    shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
    with pytest.raises(RelayoutError, match=r"95 bytes but .* stores 96"):
        untile(bytes(95), shape)
    with pytest.raises(RelayoutError, match="dimensions"):
        tile(np.zeros((5, 3), np.float32), shape)
    with pytest.raises(RelayoutError, match="element types differ"):
        relayout(bytes(96), shape, parse_shape("s32[3,5]"))
    with pytest.raises(RelayoutError, match="logical dimensions differ"):
        relayout(bytes(96), shape, parse_shape("f32[5,3]"))
    with pytest.raises(RelayoutError, match="without losing bits"):
        plan_for(parse_shape("f32[4]{0:E(16)}"))


def test_padding_is_zero_and_untile_ignores_it():
    shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
    data = bytearray(tile(np.ones((3, 5), np.float32), shape))
    values = np.frombuffer(bytes(data), np.float32)
    assert (values == 1).sum() == 15 and (values == 0).sum() == 24 - 15
    data[-4:] = b"\xff\xff\xff\xff"  # a padding element (row 3 does not exist)
    assert np.array_equal(untile(bytes(data), shape), np.ones((3, 5), np.float32))


def test_numpy_dtype_prefers_ml_dtypes_for_bf16():
    ml = pytest.importorskip("ml_dtypes")
    assert numpy_dtype(parse_shape("bf16[2]")) == np.dtype(ml.bfloat16)
    assert numpy_dtype(parse_shape("pred[2]")) == np.dtype(bool)


# -- properties ---------------------------------------------------------------------

_TYPES = ["f32", "bf16", "s8", "pred", "f64", "c64", "s4", "u2", "f4e2m1fn", "u8", "s16"]


@st.composite
def layouts(draw, etype=None, dims=None):
    """A shape string with a random valid layout the size code supports (no SC)."""
    etype = draw(st.sampled_from(_TYPES)) if etype is None else etype
    if dims is None:
        rank = draw(st.integers(0, 4))
        dims = draw(st.lists(st.integers(0, 9) if draw(st.booleans()) else st.integers(1, 9),
                             min_size=rank, max_size=rank))
    rank = len(dims)
    m2m = draw(st.permutations(range(rank)))
    attrs = ""
    n_tiles = draw(st.integers(0, 3))
    tiles = []
    for i in range(n_tiles):
        k = draw(st.integers(1, rank + 2))
        entries = draw(st.lists(st.sampled_from([1, 1, 2, 3, 4, 8]), min_size=k, max_size=k))
        if i == 0 and k > 1 and draw(st.integers(0, 5)) == 0:
            j = draw(st.integers(0, k - 2))
            entries[j] = "*"
        tiles.append("(" + ",".join(str(e) for e in entries) + ")")
    if tiles:
        attrs += "T" + "".join(tiles)
        if draw(st.integers(0, 3)) == 0:
            attrs += f"L({draw(st.integers(2, 40))})"
    bits = {"s4": 4, "u2": 2, "f4e2m1fn": 4}.get(etype)
    if bits and draw(st.booleans()):
        attrs += f"E({bits})"
    if etype == "pred" and draw(st.integers(0, 3)) == 0:
        attrs += "E(32)"
    if draw(st.integers(0, 4)) == 0:
        attrs += f"S({draw(st.sampled_from([1, 5]))})"
    layout = ",".join(str(d) for d in m2m) + (":" + attrs if attrs else "")
    text = f"{etype}[{','.join(map(str, dims))}]"
    return text + f"{{{layout}}}" if layout else text


PROPERTY = settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(layouts(), st.integers(0, 2**32 - 1))
def test_untile_tile_round_trip(text, seed):
    shape = parse_shape(text)
    x = _random_elements(shape, np.random.default_rng(seed))
    plan = plan_for(shape)
    event("tiled" if shape.effective_layout.tiles else "untiled")
    if plan.stored_bytes != physical_bytes(shape):
        event("refused: sub-tile padding")
        assert plan.subtile_padding_elements
        with pytest.raises(SubtilePaddingError):
            tile(x, shape)
        data = tile(x, shape, allow_subtile_padding=True)
        assert len(data) == plan.stored_bytes > physical_bytes(shape)
        back = untile(data, shape, dtype=x.dtype, allow_subtile_padding=True)
    else:
        data = tile(x, shape)
        assert len(data) == physical_bytes(shape)
        back = untile(data, shape, dtype=x.dtype)
    assert back.tobytes() == x.tobytes()
    # Padding is zero: only the logical elements' bits can be set.
    ones = np.full(tuple(shape.dimensions) + (plan.element_bytes,), (1 << min(plan.element_bits, 8)) - 1,
                   np.uint8).view(x.dtype).reshape(shape.dimensions)
    set_bits = int(np.unpackbits(np.frombuffer(tile(ones, shape, allow_subtile_padding=True), np.uint8)).sum())
    assert set_bits == x.size * min(plan.element_bits, 8 * plan.element_bytes)


@st.composite
def layout_pairs(draw):
    """Two layouts of the same logical array (same element type and dimensions)."""
    a = parse_shape(draw(layouts()))
    b = parse_shape(draw(layouts(etype=a.element_type.name, dims=list(a.dimensions))))
    return a, b


@PROPERTY
@given(layout_pairs(), st.integers(0, 2**32 - 1))
def test_relayout_a_to_b_to_a_restores_the_bytes(pair, seed):
    a, b = pair
    if plan_for(a).stored_bytes != physical_bytes(a) or plan_for(b).stored_bytes != physical_bytes(b):
        return
    x = _random_elements(a, np.random.default_rng(seed))
    data_a = tile(x, a)
    data_b = relayout(data_a, a, b)
    assert len(data_b) == physical_bytes(b)
    assert relayout(data_b, b, a) == data_a


@settings(max_examples=500, deadline=None)
@given(layouts())
def test_linear_index_agrees_with_tile(text):
    shape = parse_shape(text)
    plan = plan_for(shape)
    if plan.element_bits % 8 or plan.element_bits != 8 * plan.element_bytes or not all(shape.dimensions):
        return
    n = int(np.prod(shape.dimensions))
    ids = np.arange(1, n + 1, dtype=np.uint64)  # 0 marks padding
    x = np.zeros(tuple(shape.dimensions) + (plan.element_bytes,), np.uint8)
    flat_ids = ids.view(np.uint8).reshape(n, 8)
    x.reshape(n, -1)[:, : min(8, plan.element_bytes)] = flat_ids[:, : min(8, plan.element_bytes)]
    if plan.element_bytes < 8 and n >= 256 ** plan.element_bytes:
        return
    data = tile(x.view(f"V{plan.element_bytes}").reshape(shape.dimensions), shape, allow_subtile_padding=True)
    stored = np.frombuffer(data, np.uint8).reshape(-1, plan.element_bytes)
    for flat in {0, n - 1, n // 2}:
        index = tuple(int(i) for i in np.unravel_index(flat, shape.dimensions))
        pos = linear_index(shape, index)
        assert stored[pos].tobytes()[: min(8, plan.element_bytes)] == \
            flat_ids[flat].tobytes()[: min(8, plan.element_bytes)]


# -- XLA:CPU as an oracle -------------------------------------------------------------

def _cpu_buffer_bytes(array, nbytes):
    import ctypes
    array.block_until_ready()
    return bytes((ctypes.c_ubyte * nbytes).from_address(array.unsafe_buffer_pointer()))


def test_cpu_buffers_match_tile_for_dimension_orders():
    jax = pytest.importorskip("jax")
    from jax.experimental.layout import Format, Layout
    from jax.sharding import SingleDeviceSharding
    dev = jax.devices("cpu")[0]
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    for major_to_minor in [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1)]:
        y = jax.device_put(x, Format(Layout(major_to_minor=major_to_minor), SingleDeviceSharding(dev)))
        m2m = ",".join(str(d) for d in reversed(major_to_minor))
        shape = parse_shape(f"f32[2,3,4]{{{m2m}}}")
        assert _cpu_buffer_bytes(y, x.nbytes) == tile(x, shape), major_to_minor


def test_cpu_s4_packing_is_least_significant_nibble_first():
    jax = pytest.importorskip("jax")
    ml = pytest.importorskip("ml_dtypes")
    x = np.array([1, 2, 3, 4, -1, 7], dtype=ml.int4)
    y = jax.jit(lambda v: v)(jax.device_put(x))
    shape = parse_shape("s4[6]{0:E(4)}")
    assert _cpu_buffer_bytes(y, 3) == tile(x, shape)
    assert untile(tile(x, shape), shape).tobytes() == x.tobytes()
