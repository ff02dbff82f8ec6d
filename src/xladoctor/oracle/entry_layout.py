"""Read ``entry_computation_layout`` from XLA-printed HLO text (header line only).

Uses xladoctor's own shape parser on the header that jaxlib printed, so the text is already
XLA's canonical spelling.  Only the memory space of each leaf matters to the oracle.
"""

from __future__ import annotations

from ..ir.shape import HOST_MEMORY_SPACE, Shape
from ..syntax.reader import Reader
from ..syntax.shape_parser import read_shape

_KEY = "entry_computation_layout="


def entry_layout_text(printed_hlo: str) -> str | None:
    """The ``{(...)->...}`` value of the header, without the braces; ``None`` if absent."""
    header = printed_hlo.split("\n", 1)[0]
    at = header.find(_KEY)
    if at < 0:
        return None
    start = at + len(_KEY)
    depth = 0
    for i in range(start, len(header)):
        c = header[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return header[start + 1:i]
    return None


def parse_program_shape(layout: str) -> tuple[list[Shape], Shape]:
    r = Reader(layout, "<entry_computation_layout>")
    r.expect("(", "to open the entry parameter list")
    params: list[Shape] = []
    if not r.accept(")"):
        while True:
            params.append(read_shape(r))
            if r.accept(")"):
                break
            r.expect(",", "or ')' in entry_computation_layout parameters")
    r.expect("->", "in entry_computation_layout")
    return params, read_shape(r)


def _on_host(shape: Shape) -> bool | None:
    """S(5)?  ``None`` for a tuple holding host leaves: one memory kind cannot describe it."""
    if shape.is_tuple:
        return None if any(_on_host(s) is not False for s in shape.tuple_shapes) else False
    return shape.memory_space == HOST_MEMORY_SPACE


def host_flags(printed_hlo: str) -> tuple[list[bool | None], list[bool | None]] | None:
    """Per entry parameter and per top-level result element: is it (or a leaf of it) in S(5)?

    A tuple result is split into its elements, as XLA's converter flattens the ROOT tuple
    into ``@main``'s results; ``None`` when the header has no entry layout.
    """
    text = entry_layout_text(printed_hlo)
    if text is None:
        return None
    params, result = parse_program_shape(text)
    results = list(result.tuple_shapes) if result.is_tuple else [result]
    return [_on_host(p) for p in params], [_on_host(r) for r in results]
