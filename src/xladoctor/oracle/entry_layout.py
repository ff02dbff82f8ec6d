"""Read ``entry_computation_layout`` from XLA-printed HLO text (header line only).

Uses xladoctor's own shape parser on the header that jaxlib printed, so the text is already
XLA's canonical spelling.  Only the memory space of each leaf matters to the oracle.
"""

from __future__ import annotations

from ..ir.shape import HOST_MEMORY_SPACE, Shape
from ..syntax.attributes import scan_value
from ..syntax.reader import Reader
from ..syntax.shape_parser import read_shape

_KEY = "entry_computation_layout="


def entry_layout_text(printed_hlo: str) -> str | None:
    """The ``{(...)->...}`` value of the header, without the braces; ``None`` if absent."""
    header = printed_hlo.split("\n", 1)[0]
    at = header.find(_KEY)
    if at < 0 or header[at + len(_KEY):at + len(_KEY) + 1] != "{":
        return None
    start = at + len(_KEY)
    return header[start + 1:scan_value(header, start, "<hlo header>") - 1]


def parse_program_shape(layout: str) -> tuple[list[Shape], Shape]:
    """``(P0, P1, ...)->R``: the parameter list reads as a tuple shape, then the result."""
    r = Reader(layout, "<entry_computation_layout>")
    if r.peek() != "(":
        raise r.error(f"expected '(' to open the entry parameter list, found {r.describe_here()}")
    params = read_shape(r)
    r.expect("->", "in entry_computation_layout")
    return list(params.tuple_shapes), read_shape(r)


UNPINNED_HOST_MEMORY_SPACE = 6
"""``unpinned_host`` in an entry layout, ``S(6)``, as libtpu's dumps print it."""
KINDS = {HOST_MEMORY_SPACE: "pinned_host", UNPINNED_HOST_MEMORY_SPACE: "unpinned_host"}


def _kind(shape: Shape) -> str | None:
    """JAX's memory kind of ``shape``: ``pinned_host`` for S(5), ``unpinned_host`` for S(6),
    ``device`` otherwise; ``None`` for a tuple holding host leaves (one kind cannot describe it)."""
    if shape.is_tuple:
        return None if any(_kind(s) != "device" for s in shape.tuple_shapes) else "device"
    return KINDS.get(shape.memory_space, "device")


def memory_kinds(printed_hlo: str) -> tuple[list[str | None], list[str | None]] | None:
    """Per entry parameter and per top-level result element: its memory kind (:func:`_kind`).

    A tuple result is split into its elements, as XLA's converter flattens the ROOT tuple
    into ``@main``'s results; ``None`` when the header has no entry layout.  ``unpinned_host``
    is kept too: dropped, a dump's ``S(6)`` argument that libtpu rejects when computed on
    compiled as a device one (``host_params`` seed 15's fixed module)."""
    text = entry_layout_text(printed_hlo)
    if text is None:
        return None
    params, result = parse_program_shape(text)
    results = list(result.tuple_shapes) if result.is_tuple else [result]
    return [_kind(p) for p in params], [_kind(r) for r in results]
