"""glibc's mmap threshold held at its default in the console script's heap once a large input is
read (:func:`hold_for`; issue 36 item 3: peak memory <= 4x the text).

Why: glibc serves a request of at least its mmap threshold (128 KiB) with a mapping of its own,
unmapped when freed; but freeing such a mapping under 32 MiB raises the threshold to its size
(the "dynamic threshold").  Reading a module frees one at once (the file's bytes once decoded;
at 1M instructions, the name table's old array when it grows), and from then on every table
the parse and the analysis grow and free (dict arrays, list growths of up to that size) comes
from the heap, where a freed one stays resident as a hole until something fits in it: 3.6 MiB
free in the heap after the parse of a 10 MB module, 18 MiB after a 105 MB one (``mallinfo2``),
0.2-0.4x of the text in the peak.  ``mallopt(M_MMAP_THRESHOLD, 128 KiB)`` sets the default
value and turns the dynamic threshold off, so such tables are mapped and given back when freed.

Only in the console script (:func:`~xladoctor.base.collector.own_heap`): the setting is the
process's, and a library caller's (a JAX program's, with its own large buffers freed and
allocated again) is not ours to change.  Only for an input of :data:`HOLD_FROM` bytes or more:
``ctypes`` costs ~2.5 ms to import, nothing a small module's run should pay.  Where there is no
glibc (``gnu_get_libc_version`` absent: musl, macOS, Windows) nothing is done, and the run is
the same but for its memory.
"""

from __future__ import annotations

from .collector import owns_heap

HOLD_FROM = 4 << 20
"""Inputs from this size on hold the threshold: the holes scale with the module, the call's cost
(~2.5 ms, once a process) does not."""

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter number (malloc.h)."""

DEFAULT_MMAP_THRESHOLD = 128 * 1024
"""glibc's default value of the threshold (``DEFAULT_MMAP_THRESHOLD_MIN``)."""


class _State:
    asked = False
    """Whether this process has asked already (held or not): once is enough."""


def hold_for(size: int) -> bool:
    """An input of ``size`` bytes was read: in the console script's heap, hold glibc's mmap
    threshold at its default from now on (once a process).  Whether it holds it now."""
    if size < HOLD_FROM or _State.asked or not owns_heap():
        return False
    _State.asked = True
    return hold()


def hold() -> bool:
    """Set glibc's mmap threshold to its default and turn its dynamic growth off; False where
    the C library is not glibc (nothing done)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc's mallopt numbers, and no other's)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):  # no C library by that name, or not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, DEFAULT_MMAP_THRESHOLD))
