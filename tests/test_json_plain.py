"""base/json_plain.py against ``json.dumps(doc, indent=2, ensure_ascii=False)``: the same text on
every ``shape`` document of the corpora's shape spellings (with and without ``--tpu``), on
generated documents, and ``None`` (json's turn) for what it does not write."""

from __future__ import annotations

import enum
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_shape_plain import _corpus_spellings
from xladoctor.base.errors import XlaDoctorError
from xladoctor.base.json_plain import Streamed, plain_dumps, plain_stream
from xladoctor.cli.commands import shape as shape_command
from xladoctor.ir.tpu_layouts import TPU_GENERATIONS
from xladoctor.syntax.shape_parser import parse_shape_warned


def _same(doc: object) -> None:
    assert plain_dumps(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def _shape_documents(generation: str | None):
    for text in sorted(_corpus_spellings()):
        try:
            shape, _ = parse_shape_warned(text)
            report = shape_command._with_tpu(shape, text, generation)
        except (XlaDoctorError, ValueError):  # what the command refuses: no document
            continue
        yield {"schema_version": 1, "$schema": "https://xladoctor.invalid/schema/shape.schema.json",
               "command": "shape", **report}


def test_every_corpus_shape_document_is_written_as_json_writes_it():
    count = 0
    for doc in _shape_documents(None):
        _same(doc)
        count += 1
    assert count > 1000, count  # the corpora were read


@pytest.mark.parametrize("generation", sorted(TPU_GENERATIONS)[:2])
def test_tpu_shape_documents_are_written_as_json_writes_them(generation):
    docs = list(_shape_documents(generation))
    assert len(docs) > 1000 and any("tpu" in d for d in docs)
    for doc in docs:
        _same(doc)


@pytest.mark.parametrize("doc", [
    {}, [], {"a": {}}, {"a": []}, [[], {}], "", "\x00\x1f\x7f\u2028\ud800\"\\/\b\f\n\r\t é 中",
    {"k\n\"": [1, -2, 2 ** 70, 0.1, -0.0, 1e300, 1e-7, math.inf, -math.inf, True, False, None]},
    (1, (2, [3])), {"": ""}, 5, 1.5, None, True,
])
def test_edge_values(doc):
    _same(doc)


class _Mapping(dict):
    """A dict subclass with its own attributes (as findings/wire.Diagnostics)."""

    __slots__ = ("extra",)


class _Ordered(dict):
    def items(self):  # json's indented encoder asks items(): so does plain_dumps
        return sorted(super().items(), reverse=True)


def test_a_dict_subclass_is_written_as_json_writes_it():
    inner = _Mapping({"findings": [{"code": "E1000"}], "n": 2})
    inner.extra = object()
    for doc in ({"diagnostics": inner, "z": _Ordered(a=1, b={"c": None})}, _Mapping(), [_Ordered(x=[])]):
        assert plain_dumps(doc) is not None
        _same(doc)
    assert plain_dumps({"d": _Mapping({1: "a"})}) is None


def test_nan_is_written_as_json_writes_it():
    assert plain_dumps({"x": math.nan}) == json.dumps({"x": math.nan}, indent=2, ensure_ascii=False)


class _Kind(enum.IntEnum):
    A = 1


@pytest.mark.parametrize("doc", [{1: "a"}, {"a": _Kind.A}, {"a": object()}, [{None: 1}], {"a": {"b": {1.5}}}])
def test_what_it_does_not_write_is_left_to_json(doc):
    assert plain_dumps(doc) is None


_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text())
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=25)


@settings(max_examples=600, deadline=None)
@given(_VALUES)
def test_generated_documents(doc):
    _same(doc)


def _streamed(doc: object) -> str:
    pieces: list[str] = []
    plain_stream(doc, pieces.append)
    return "".join(pieces)


def _lazy(doc: object) -> object:
    """``doc`` with every list a Streamed of its items (made again on each writing)."""
    if type(doc) is list:
        items = [_lazy(v) for v in doc]
        return Streamed(lambda: iter(items))
    if type(doc) is dict:
        return {k: _lazy(v) for k, v in doc.items()}
    return doc


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_streamed_documents_are_json_text_in_pieces(doc):
    """Lists made as they are written give json's text of the lists, and plain_dumps' too."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    assert _streamed(_lazy(doc)) == text == _streamed(doc)
    assert plain_dumps(_lazy(doc)) == text


@pytest.mark.parametrize("doc", [{1: "a"}, {"a": _Kind.A}, [{None: 1}], {"a": [{"b": {2: [1, {"c": 3}]}}, 4]},
                                 {"x": [1, {"d": {5: _Kind.A}}, 2]}, {"a": [{"b": _Kind.A}], "z": {"y": (1.5, [])}}])
def test_streaming_writes_what_plain_leaves_to_json_as_json_would_in_place(doc):
    """Nothing can be taken back once written: a value plain_dumps refuses is json's text, indented where it stands."""
    assert plain_dumps(doc) is None
    assert _streamed(doc) == _streamed(_lazy(doc)) == json.dumps(doc, indent=2, ensure_ascii=False)


def test_streaming_hands_pieces_over_as_it_goes(monkeypatch):
    """Held pieces go to the writer after list items: the document is never held whole."""
    import xladoctor.base.json_plain as json_plain

    monkeypatch.setattr(json_plain, "_FLUSH", 8)
    made: list[int] = []
    pieces: list[str] = []

    def items():
        for i in range(200):
            made.append(len(pieces))  # what was written before item i was made
            yield {"i": i, "name": f"n{i}", "nested": [i, [i]]}

    plain_stream({"head": 1, "items": Streamed(items), "tail": None}, pieces.append)
    written_before_last = made[-1]
    assert len(pieces) > 50 and written_before_last > 50
    assert "".join(pieces) == json.dumps({"head": 1, "items": list(items()), "tail": None}, indent=2, ensure_ascii=False)
