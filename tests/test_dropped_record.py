"""A dropped MoveToHost's record built without ``DroppedOffload.__init__`` (branch h51c) is the class's own."""

from __future__ import annotations

import pickle

import pytest

from xladoctor.ir.metadata import SourceLocation
from xladoctor.offload.passes.host_offloader.verdict import new_dropped
from xladoctor.offload.result import DroppedOffload


@pytest.mark.parametrize("location", [None, SourceLocation("f.py", 3)])
def test_new_dropped_is_what_the_class_builds(location: SourceLocation | None) -> None:
    made = new_dropped("mth.1", "dead code", location)
    expected = DroppedOffload("mth.1", "dead code", (), location)
    assert type(made) is DroppedOffload and made == expected and hash(made) == hash(expected)
    assert repr(made) == repr(expected) and pickle.loads(pickle.dumps(made)) == expected
    with pytest.raises(AttributeError):
        made.reason = "x"  # type: ignore[misc]  # still frozen
