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
its heap (:func:`own_heap`), so two more collections are left out there (issue 36, h43x):

* the first automatic collection after a pause scanned everything the pause allocated (the whole
  IR, ~0.2 of 2.3 CPU-s of ``offload`` at 100k instructions): the outermost pause ends with
  ``gc.freeze()``, which moves what is alive to the permanent generation in O(1), so later
  collections scan only what was allocated since;
* :func:`collect` after a file is deferred to the start of the next pause (the next module's
  parse): a run over one file never collects; a walk over many files still frees each module
  before the next one is built (it unfreezes first), so memory stays flat in the number of files.

Freezing in a library call would pin the caller's own garbage cycles for the life of their
process, hence only the console script does it.
"""

from __future__ import annotations

import gc

TYPE_CHECKING = False  # not typing's: the console script imports this module on every start
if TYPE_CHECKING:
    from types import TracebackType


class _Heap:
    """Whether this process owns its heap (the console script), and whether a dropped module waits
    for the next pause to be collected."""

    owned = False
    pending = False


def own_heap() -> None:
    """Declare the heap this process's own (the console script, before the command runs): pauses end
    frozen and :func:`collect` waits for the next pause.  Never undone (the process then ends)."""
    _Heap.owned = True


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
        if self._collecting and _Heap.pending:  # the last file's module, freed before this one is built
            _Heap.pending = False
            gc.unfreeze()
            gc.collect()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._collecting:
            if _Heap.owned:
                gc.freeze()  # what the pause built is not rescanned by every later full collection
            gc.enable()


def collect() -> None:
    """Free the cycles of what the last pause left (a module dropped between two files); in the
    console script (:func:`own_heap`), at the start of the next pause instead, so the last file's
    module is never collected (the process ends without tearing its heap down: cli/console.py)."""
    if _Heap.owned:
        _Heap.pending = True
        return
    gc.collect()
