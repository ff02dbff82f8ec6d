"""The common shape spellings read by hand, for ``xladoctor shape``'s start-up (issue 36 item 5).

``xladoctor shape bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}`` is over in a few milliseconds, so what it
imports is most of its cost: :mod:`.shape_parser` with :mod:`.reader`, :mod:`.layout_parser` and
:mod:`.layout_warnings` compile a dozen patterns at import and weigh ~2-5 ms.  This reader takes
the spellings almost every shape is written in -- an array type, plain sizes, optionally a
``{minor_to_major}`` permutation with ``T(..)(..)`` tiles, no space anywhere -- with str
methods only, and answers ``None`` for anything else: a tuple, a dynamic size, another layout
attribute, a layout XLA would refuse or warn about, any error at all.  The caller then asks
:func:`.shape_parser.parse_shape_warned`, so every error and warning, with its wording and
location, is the grammar's own.  ``tests/test_shape_plain.py`` checks that whatever this reader
returns is what ``parse_shape_warned`` returns (with no warning), over every shape in the corpora,
hostile strings and generated ones.
"""

from __future__ import annotations

from ..ir.primitive import ARRAY_TYPE_NAMES, primitive_type
from ..ir.shape import COMBINE_DIMENSION, Layout, Shape, Tile, default_layout

_INT64_MAX = 2**63 - 1
_DIGITS = frozenset("0123456789")
_INT64_DIGITS = len(str(_INT64_MAX))


def _size(text: str) -> int | None:
    """A plain decimal size: digits only, no sign and no leading zero (those go to the grammar)."""
    if not text or len(text) > _INT64_DIGITS or not _DIGITS.issuperset(text) or (text[0] == "0" and len(text) > 1):
        return None
    value = int(text)
    return value if value <= _INT64_MAX else None


def plain_shape(text: str) -> Shape | None:
    """``text`` read as an array shape of the plain kind, or ``None``: let the grammar read it."""
    bracket = text.find("[")
    if bracket <= 0 or not text.endswith(("]", "}")):
        return None
    name = text[:bracket]
    if name not in ARRAY_TYPE_NAMES:
        return None
    et = primitive_type(name)
    if not et.is_array_type:
        return None
    close = text.find("]", bracket)
    if close < 0:
        return None
    dims = _sizes(text[bracket + 1:close])
    if dims is None:
        return None
    size = et.byte_width or 0  # XLA's ShapeUtil::ValidateShapeSize, step by step as the grammar's
    for d in dims:
        size *= d
        if size > _INT64_MAX:
            return None
    rest = text[close + 1:]
    layout = _plain_layout(rest, len(dims)) if rest else default_layout(len(dims))
    if layout is None:
        return None
    return Shape(et, tuple(dims), (False,) * len(dims), (), layout)


def _sizes(text: str) -> list[int] | None:
    """``2,3`` as its sizes (an empty text none), or None when one is not a plain size."""
    sizes: list[int] = []
    if text:
        for part in text.split(","):
            d = _size(part)
            if d is None:
                return None
            sizes.append(d)
    return sizes


def _plain_layout(text: str, rank: int) -> Layout | None:
    """``{1,0}`` or ``{1,0:T(8,128)(2,1)}`` whose minor_to_major is a permutation of the dimensions."""
    if text[0] != "{" or text[-1] != "}" or text.count("{") != 1 or text.count("}") != 1:
        return None
    body = text[1:-1]
    m2m_text, colon, attrs = body.partition(":")
    if not m2m_text and not colon:  # '{}' opens no layout in the grammar: trailing text, its error
        return None
    m2m = _sizes(m2m_text)
    if m2m is None or sorted(m2m) != list(range(rank)):
        return None
    if not colon:
        return Layout(minor_to_major=tuple(m2m))
    if not attrs.startswith("T(") or not attrs.endswith(")"):
        return None
    tiles: list[Tile] = []
    for spelled in attrs[2:-1].split(")("):
        tile: list[int] = []
        for part in spelled.split(","):
            if part == "*":
                tile.append(COMBINE_DIMENSION)
                continue
            d = _size(part)
            if not d:  # a zero tile dimension is refused (or warned about) by the grammar
                return None
            tile.append(d)
        tiles.append(Tile(tuple(tile)))
    return Layout(minor_to_major=tuple(m2m), tiles=tuple(tiles))
