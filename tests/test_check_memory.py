"""``check`` on a log streams it exactly as ``explain`` does: no copy of the log in memory.

Measured with tracemalloc (allocations, not time) against the ``explain`` scanner on the same
log, for a file and for stdin.  The scanner itself holds one 8 MiB block at most
(``fastscan.BLOCK``), so the log here is just past it.  The 1 GB figures (peak RSS 57 MB for both
commands) are measured with ``/usr/bin/time -v`` and recorded in bench/README.md, not asserted.
"""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import pytest

from log_corpus import write_log
from xladoctor.catalogue.fastscan import BLOCK, scan_stream
from xladoctor.catalogue.logscan import scan_file
from xladoctor.catalogue.scanner import LogScanner
from xladoctor.report.check_json import file_entry
from xladoctor.route.dispatch import check_path, check_stream
from xladoctor.route.options import Options

OPTS = Options()
SLACK = 1 << 20
"""What check may add to the scan: its document and the findings model, not the log."""


def _peak(fn, keep: list | None = None) -> int:
    tracemalloc.start()
    try:
        result = fn()
        if keep is not None:
            keep.append(result)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("logs")
    chunk = write_log(d / "chunk.log", 20_000, 3).read_bytes()
    path = d / "big.log"
    path.write_bytes(chunk * (BLOCK // len(chunk) + 2))
    check_path(str(d / "chunk.log"), True, OPTS)  # warm: the catalogue and lazy imports are not the log's
    return path


def test_check_log_needs_no_more_memory_than_explain(log):
    explain = _peak(lambda: scan_file(str(log), parallel=False))
    kept: list = []
    check = _peak(lambda: check_path(str(log), True, OPTS), kept)
    assert check < explain + SLACK, (check, explain, log.stat().st_size)
    entry = file_entry(kept[0])
    assert entry["kind"] == "log" and entry["findings"] == len(entry["explain"]["diagnostics"]["findings"]) > 0


def test_check_stdin_log_is_streamed_too(log):
    data = log.read_bytes()
    explain = _peak(lambda: scan_stream(io.BytesIO(data), LogScanner()).finish())
    check = _peak(lambda: check_stream(io.BytesIO(data), "<stdin>", OPTS))
    assert check < explain + SLACK, (check, explain, len(data))
