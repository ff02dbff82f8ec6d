"""base/malloc_threshold: the console script (``own_heap``) holds glibc's mmap threshold at its default
once a large input is read, so a table freed later is given back, not left as a hole in the heap;
a library call leaves the process's allocator as the caller had it.

The setting is the process's for good, so each case runs in a child; where the C library is not
glibc there is nothing to observe (skipped).
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

import pytest

from xladoctor.base import files, malloc_threshold

_GLIBC = hasattr(ctypes.CDLL(None), "gnu_get_libc_version") if sys.platform.startswith("linux") else False

# After the input is read and freed (glibc then raises a dynamic threshold to its size), a 3 MiB
# block: mapped on its own when the threshold held (``mallinfo2``'s hblks grows), else in the heap.
_CHILD = """
import ctypes, json, sys
from xladoctor.base.collector import own_heap
if sys.argv[2] == "owned":
    own_heap()
from xladoctor.base.files import read_path
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
data, _ = read_path(sys.argv[1])
del data
before = libc.mallinfo2().hblks
block = bytearray(3 << 20)  # more than the heap holds free
print(json.dumps({"mapped": libc.mallinfo2().hblks - before}))
"""


def _mapped(path: str, mode: str) -> int:
    # glibc's malloc settings from the environment turn its dynamic threshold off: dask's Nanny
    # leaks MALLOC_TRIM_THRESHOLD_=65536 into its own process (test_fleet's cluster, this one), and
    # the whole suite's children then never raised it (CI, stop 46).  The child starts without them.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", _CHILD, path, mode], capture_output=True, text=True, check=True,
                         env=env)
    return int(json.loads(out.stdout)["mapped"])


@pytest.mark.skipif(not _GLIBC, reason="glibc's malloc only")
def test_the_console_heap_maps_a_large_block_after_a_large_input(tmp_path):
    big = tmp_path / "big.hlo"
    big.write_bytes(b"x" * (malloc_threshold.HOLD_FROM + 4096))
    assert _mapped(str(big), "owned") == 1
    assert _mapped(str(big), "library") == 0  # the dynamic threshold, raised by the freed input


@pytest.mark.skipif(not _GLIBC, reason="glibc's malloc only")
def test_a_small_input_leaves_the_threshold(tmp_path):
    small = tmp_path / "small.hlo"
    small.write_bytes(b"x" * (malloc_threshold.HOLD_FROM - 4096))
    assert _mapped(str(small), "owned") == 0  # the 4 MiB read raised it: nothing held for a small input


def test_a_library_call_holds_nothing():
    assert not malloc_threshold.hold_for(1 << 30)  # no owned heap in the test process


def test_the_reader_asks_from_the_same_size():
    assert files._HOLD_FROM == malloc_threshold.HOLD_FROM
