"""The one place that switches Python's cyclic garbage collector: :func:`paused`, :func:`collect`.

Why: parsing and analysing a module allocate a few objects per instruction and free next to
nothing until the module is dropped; each collection those allocations trigger rescans the
growing, cyclic IR (parent pointers) for nothing, which made a parse superlinear and was 10-15%
of ``offload``'s time at 100k instructions.  The parse, the offload analysis and each module's
pipeline run pause the collector for their length (nested pauses are one pause); a walk over
many files collects between them, so the last module is not still in memory, as garbage, while
the next one is parsed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block and back as it was after (on, unless a caller paused it).

    >>> with paused():
    ...     gc.isenabled()
    False
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def collect() -> None:
    """Free the cycles of what the last pause left (a module dropped between two files)."""
    gc.collect()
