"""The one place that switches Python's cyclic garbage collector: :func:`paused`, :func:`collect`,
and :func:`own_heap` for the command-line process.

Why: parsing and analysing a module allocate a few objects per instruction and free next to
nothing until the module is dropped; each collection those allocations trigger rescans the
growing, cyclic IR (parent pointers) for nothing, which made a parse superlinear and was 10-15%
of ``offload``'s time at 100k instructions.  The parse, the offload analysis and each module's
pipeline run pause the collector for their length (nested pauses are one pause); a walk over
many files collects between them, so the last module is not still in memory, as garbage, while
the next one is parsed.

In a library call that is all: the heap is the caller's.  The ``xladoctor`` console script owns
its heap (:func:`own_heap`), and there the outermost pause ends with ``gc.freeze()`` (issue 36,
h43x): the first automatic collection after a pause scanned everything the pause allocated (the
whole IR, ~0.2 of 2.3 CPU-s of ``offload`` at 100k instructions) and later full collections
rescanned it; frozen (moved to the permanent generation, in O(1)), it is scanned by none, and the
interpreter's last collections at the exit have nothing to find.  :func:`collect` between files
unfreezes first, so each module is still freed before the next one is built.  Deferring that
collection to the next parse (none for one file) saved ~0.2 CPU-s more at 100k but kept the
analysis' copy alive while ``check --json`` drew the file's entry: peak 224 -> 268 MiB, not taken.

The last module of a ``check`` run (h43g): :func:`collect` ``last=True`` skips the collection in
the console script, where only the file's entry is drawn after it and the process ends with
``os._exit`` (``cli/console.py``): the dropped module stays frozen, scanned by no collection and
never torn down (1.7 of 16.6 CPU-s of ``check`` at 1M instructions).  Something large still to be
allocated (a snippet's file read whole, :func:`settle`) collects first, so the peak stays the
analysis'.  With ``--json`` too since h44q: the entry's JSON is streamed to the spool in batches
(``route/folder_results.JsonSpool``), no longer joined whole (a 100k-instruction module's summary
was ~120 MiB of pieces and copies, above the module's own peak).  ``check -j N``'s workers cannot
tell their last file and still collect after each (``route/folder.check_path_wire`` says why).

Freezing in a library call would pin the caller's own garbage cycles for the life of their
process, hence only the console script does it.
"""

from __future__ import annotations

import gc

TYPE_CHECKING = False  # not typing's: the console script imports this module on every start
if TYPE_CHECKING:
    from types import TracebackType


class _Heap:
    """Whether this process owns its heap (the console script)."""

    owned = False
    pending = False
    """A collection :func:`collect` skipped after the run's last module (``last=True``)."""


def own_heap() -> None:
    """Declare the heap this process's own (the console script, before the command runs): pauses end
    frozen.  Undone only by :func:`disown_heap`."""
    _Heap.owned = True


def owns_heap() -> bool:
    """Whether the console script declared the heap its own (:func:`own_heap`): its process-wide
    settings are then ours to choose (``base/malloc_threshold``)."""
    return _Heap.owned


def disown_heap() -> None:
    """Undo :func:`own_heap` where the console script leaves the exit to Python after all (a thread
    still running): nothing stays frozen, so the interpreter's last collections see every cycle."""
    _Heap.owned = _Heap.pending = False
    gc.unfreeze()


class paused:
    """The collector off inside the block and back as it was after (on, unless a caller paused it).

    >>> with paused():
    ...     gc.isenabled()
    False
    """

    __slots__ = ("_collecting",)

    def __enter__(self) -> None:
        self._collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._collecting:
            if _Heap.owned:
                gc.freeze()  # what the pause built is not rescanned by every later full collection
            gc.enable()


class building(paused):
    """:class:`paused` for a block that builds something its caller keeps and leaves no garbage (the
    parse: a module, nothing dropped, measured on jax_entry and the train steps): in a library call
    the outermost such pause ends with what it allocated moved to the oldest generation, unscanned
    (``gc.freeze()`` then ``gc.unfreeze()``: two list splices).

    Why: a pause ends with the young generation's count in the hundreds of thousands, so the first
    allocation after it ran a young collection over the whole module (jax_entry at 100k: 196k
    tracked objects, 20-60 ms of the compiled core's ~0.6 s ``offload``) that found nothing, and the
    next middle one rescanned it; promoted, it is scanned by the full collections alone, as any
    object that outlives the young ones is.  Nothing is pinned (it is unfrozen at once): unlike
    ``own_heap``'s freeze this keeps the caller's collector whole.  The caller's own young objects of
    the moment (a few hundred) are promoted with it, so a garbage cycle among them waits for the next
    full collection.  Not done when the block raised (a half-built module is garbage), in the console
    script (which freezes: :class:`paused`), nor where the caller froze objects of its own
    (``gc.unfreeze()`` would release them): then the pause ends as :class:`paused` ends."""

    __slots__ = ()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._collecting and kind is None and not _Heap.owned and not gc.get_freeze_count():
            gc.freeze()  # every generation into the permanent one, the young count reset
            gc.unfreeze()  # and all of it into the oldest generation
        super().__exit__(kind, value, trace)


def collect(last: bool = False) -> None:
    """Free the cycles of what the last pause left (a module dropped between two files), frozen ones
    included in the console script (:func:`own_heap`).  ``last``: the run's last module, after which
    little is allocated; the console script leaves it frozen for its exit (:func:`settle` collects
    it if something large comes after all)."""
    if last and _Heap.owned:
        _Heap.pending = True
        return
    _Heap.pending = False
    if _Heap.owned:
        gc.unfreeze()
    gc.collect()


def settle() -> None:
    """The collection :func:`collect` skipped after the last module, now: something large is about
    to be allocated (a file read whole for its snippets), and the garbage is freed first, so the peak
    is not the two together.  Nothing when none was skipped."""
    if _Heap.pending:
        collect()
