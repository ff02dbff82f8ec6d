"""Many entries into a set at once, its table sized as a dict would size it (issue 36 item 3).

Why: a set grown one entry at a time quadruples its table below 50k entries, so 26k entries
take 2 MiB where 1 MiB holds them (``jax_entry`` at 100k instructions: the names the inliner
gives back), and :meth:`set.update` from a list grows it that way too.  From a dict it is sized
once for the dict's keys -- but a dict of a long list is itself as large as the set (10 MiB for
260k names).  Dicts of a few thousand keys at a time give the sized table with no large
temporary.  For strings: objects hashed by address (instructions) probe more in the fuller table
(a set of the entry's dead code so sized cost the analysis 0.7% more instructions).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `offload FILE` imports this module (issue 36, start-up)
if TYPE_CHECKING:
    from collections.abc import Hashable, Sequence
    from typing import Final, TypeVar

    T = TypeVar("T", bound=Hashable)

CHUNK: Final = 4096
"""Keys per temporary dict: ~150 KiB, small beside the sets it is for."""


def add_sized(target: set[T], items: Sequence[T]) -> None:
    """Add each of ``items`` to ``target`` (as :meth:`set.update`), ``CHUNK`` at a time through a dict."""
    for start in range(0, len(items), CHUNK):
        target.update(dict.fromkeys(items[start:start + CHUNK]))
