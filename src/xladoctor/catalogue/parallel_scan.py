"""A big log scanned on every core (:func:`~.fastscan.scan_path` above ``PARALLEL_MIN_BYTES``):
worker processes plan one chunk each (:func:`plan_chunk`, the same regions and offsets as the
one-pass planner) and count newlines up to their last region, the parent has the rest of a chunk
counted only where a later chunk has a region (:func:`count_range`), merges the regions
(:func:`merge_regions`), and workers scan batches of consecutive regions with fresh scanners whose
findings the parent folds together in file order (:meth:`~.scanner.LogScanner.absorb`).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .fastscan import ALIGN, BACK, BATCH_BYTES, BLOCK, Region, _mapped, _RegionFeeder, plan_mapped
from .newlines import count_newlines
from .prefilter import AnchorFinder
from .scanner import LogScanner, ScanPart

if TYPE_CHECKING:
    from concurrent.futures import Executor


def plan_chunk(path: str, lo: int, hi: int, anchors: list[str]) -> tuple[list[Region], int, int]:
    """Regions whose first anchor lies in bytes ``[lo, hi)`` of ``path``; ``upto`` and the newlines in
    ``[lo, upto)``, which is as far as they were needed (the last region's start, at least ``lo``).

    ``Region.newlines_before`` counts newlines from ``lo`` (negative for a start before ``lo``).
    Runs in a worker process: only offsets and counts travel back.  The parent counts the rest of
    a chunk (:func:`count_range`) only when a later chunk has a region.
    """
    finder = AnchorFinder(anchors)
    origin = max(0, lo - BACK - ALIGN)
    with _mapped(path) as data:
        before_lo = count_newlines(data, origin, lo)
        regions, counter = plan_mapped(data, lo, hi, finder, origin)
    for r in regions:
        r.newlines_before -= before_lo
    if counter.at < lo:
        return regions, lo, 0
    return regions, counter.at, counter.count - before_lo


def count_range(path: str, lo: int, hi: int) -> int:
    """Newlines in bytes ``[lo, hi)`` of ``path`` (in a worker: the rest of a chunk planned lazily)."""
    with _mapped(path) as data:
        return count_newlines(data, lo, hi)


def merge_regions(chunks: Iterator[tuple[list[Region], int]]) -> Iterator[Region]:
    """Regions of consecutive chunks (from :func:`plan_chunk`) with absolute newline counts, merged
    by the same rule the one-pass planner applies."""
    newlines_before_chunk = 0
    current: Region | None = None
    for regions, chunk_newlines in chunks:
        for r in regions:
            r.newlines_before += newlines_before_chunk
            if current is not None and r.first_hit - BACK - ALIGN <= current.end:
                current.end = max(current.end, r.end)
                continue
            if current is not None:
                yield current
            current = r
        newlines_before_chunk += chunk_newlines
    if current is not None:
        yield current


def scan_regions(path: str, regions: Iterator[Region], scanner: LogScanner, block: int = BLOCK) -> LogScanner:
    feeder = _RegionFeeder(scanner)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        for region in regions:
            feeder.start(region)
            f.seek(region.start)
            left = min(region.end, size) - region.start
            while left > 0:
                data = f.read(min(block, left))
                if not data:
                    break
                feeder.feed(data)
                left -= len(data)
            feeder.end(region)
    return scanner


def chunk_bounds(size: int, workers: int, min_chunk: int = 16 << 20) -> list[tuple[int, int]]:
    """About four chunks per worker (so a slow chunk does not leave a core idle), at least ``min_chunk``."""
    n = max(1, min(workers * 4, size // max(1, min_chunk)))
    step = -(-size // n)
    return [(lo, min(size, lo + step)) for lo in range(0, size, step)] or [(0, 0)]


def scan_batch(path: str, regions: list[Region]) -> ScanPart:
    """Scan some consecutive regions with a fresh scanner (in a worker); the parent absorbs the result."""
    scanner = LogScanner()
    scan_regions(path, iter(regions), scanner)
    return scanner.part()


def batches(regions: Iterator[Region], batch_bytes: int) -> Iterator[list[Region]]:
    """Consecutive regions, about ``batch_bytes`` of them at a time."""
    batch: list[Region] = []
    size = 0
    for r in regions:
        batch.append(r)
        size += r.end - r.start
        if size >= batch_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def scan_file_parallel(path: str, scanner: LogScanner, executor: Executor, workers: int,
                       min_chunk: int = 16 << 20, batch_bytes: int = BATCH_BYTES) -> LogScanner:
    """Plan the chunks of a regular file and scan its regions in ``executor``'s processes; fold the
    results into ``scanner`` in file order (:meth:`LogScanner.absorb`), so the findings are those of
    one pass.  A batch that met more distinct errors than the scanner keeps is rescanned here."""
    size = os.path.getsize(path)
    anchors = scanner.anchors
    bounds = chunk_bounds(size, workers, min_chunk)
    plans = list(executor.map(plan_chunk, [path] * len(bounds), [lo for lo, _ in bounds],
                              [hi for _, hi in bounds], [anchors] * len(bounds)))
    # A chunk's newlines were counted up to its last region; the rest is needed only before a later region.
    last = max((i for i, (regions, _, _) in enumerate(plans) if regions), default=-1)
    rest = [(i, upto, bounds[i][1]) for i, (_, upto, _) in enumerate(plans) if i < last and upto < bounds[i][1]]
    counted = dict(zip([i for i, _, _ in rest], executor.map(count_range, [path] * len(rest),
                                                             [lo for _, lo, _ in rest], [hi for _, _, hi in rest])))
    chunks = ((regions, newlines + counted.get(i, 0)) for i, (regions, _, newlines) in enumerate(plans))
    pending: deque = deque()

    def absorb_one() -> None:
        regions, future = pending.popleft()
        part = future.result()
        if part.not_shown:
            scan_regions(path, iter(regions), scanner)
        else:
            scanner.absorb(part)

    for n, batch in enumerate(batches(merge_regions(chunks), batch_bytes)):
        if n == 0:  # here: this process has its catalogue loaded, a worker would load it again
            scan_regions(path, iter(batch), scanner)
            continue
        pending.append((batch, executor.submit(scan_batch, path, batch)))
        while len(pending) > 2 * workers:
            absorb_one()
    while pending:
        absorb_one()
    return scanner
