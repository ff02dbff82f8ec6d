"""Issue 35's fifth hostile round (h35h): cases no earlier round listed, attacked as a hostile tester
would.  Each test here failed on the code before its fix; the contract is docs/robustness.md's: read
whole or refuse with one located line and exit 2, the same verdict from every command, never a
traceback, a hang or a damaged file."""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc
from pathlib import Path

import pytest

from xladoctor.cli.main import main

DATA = Path(__file__).resolve().parent / "data"
LOG = DATA / "logs" / "traceback_e1200.log"
MODULE = DATA / "offload" / "01_basic_dus_ds.hlo"


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ a file that starts as a PyTorch/XLA
# tensors file was read whole, unbounded, while check listed a folder's graphs (630 MB of memory for a
# 300 MB file under a 1 MB bound), before the check of that file refused it


def test_listing_a_tensors_file_reads_no_more_than_the_bound(tmp_path, monkeypatch):
    from xladoctor.route.tensors import graph_items

    path = tmp_path / "t.txt"
    path.write_bytes(b"## BEGIN_GRAPH\n" + b"x" * (4 << 20))
    monkeypatch.setenv("XLADOCTOR_MAX_INPUT_BYTES", "100000")
    tracemalloc.start()
    try:
        items = graph_items(str(path), True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(items) == 1 and items[0].graph is None  # one item: its check says it is too big
    assert peak < 1 << 20, peak
    assert main(["check", str(path)]) == 2
