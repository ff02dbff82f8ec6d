"""base/sized_sets.add_sized: the same set as ``update``, its table no larger than one entry at a time makes."""

import sys

from xladoctor.base.sized_sets import CHUNK, add_sized


class _Item:
    """Hashed by identity, as instructions are."""


def test_same_entries_as_update():
    items = [_Item() for _ in range(3 * CHUNK + 5)] + [None, 1, "a"]
    items += items[:100]  # repeats: entered once
    grown: set = {"kept"}
    add_sized(grown, items)
    assert grown == {"kept", *items}
    empty: set = set()
    add_sized(empty, [])
    assert empty == set()


def test_table_sized_as_a_dict_sizes_it():
    """21k entries (jax_entry's dead code at 100k instructions): one at a time the table quadruples to
    2 MiB; sized, 1 MiB."""
    items = [_Item() for _ in range(21_000)]
    one_by_one: set = set()
    for item in items:
        one_by_one.add(item)
    sized: set = set()
    add_sized(sized, items)
    assert sized == one_by_one
    assert sys.getsizeof(sized) < 0.6 * sys.getsizeof(one_by_one)  # (both with the set object itself)
