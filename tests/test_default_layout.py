"""``default_layout`` shares one Layout per rank (frozen): equal to a fresh one, printed as one."""

from __future__ import annotations

import pytest

from xladoctor.ir.shape import Layout, Shape, default_layout


@pytest.mark.parametrize("rank", [0, 1, 2, 5])
def test_the_shared_default_layout_is_a_fresh_ones_equal(rank: int) -> None:
    fresh = Layout(minor_to_major=tuple(range(rank - 1, -1, -1)))
    shared = default_layout(rank)
    assert shared == fresh and hash(shared) == hash(fresh) and str(shared) == str(fresh)
    assert default_layout(rank) is shared  # one per rank
    with pytest.raises(AttributeError):
        shared.minor_to_major = ()  # type: ignore[misc]  # frozen: sharing it is safe
    shape = Shape.array("f32", (2,) * rank, shared)
    assert str(shape) == str(Shape.array("f32", (2,) * rank, fresh))
