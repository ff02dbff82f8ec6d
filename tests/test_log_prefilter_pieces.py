"""AnchorFinder.find_thinned (one automaton call per piece, spans probed only where hits are dense) plans
exactly the regions that every hit would: what a kept hit decides, a dropped one could not change."""

from __future__ import annotations

import random

from xladoctor.catalogue import fastscan, prefilter
from xladoctor.catalogue.prefilter import AnchorFinder
from xladoctor.catalogue.scanner import LogScanner


def _regions(finder: AnchorFinder, data: bytes, hits: list[int]) -> list[tuple[int, int, int]]:
    """The planner's merge rule (fastscan._Planner._hit) over ``hits``: (start hit, end) of each region."""
    out: list[list[int]] = []
    for h in hits:
        if out and h - fastscan.BACK - fastscan.ALIGN <= out[-1][1]:
            out[-1][1] = max(out[-1][1], h + fastscan.FORWARD)
        else:
            out.append([h, h + fastscan.FORWARD])
    return [(a, b, i) for i, (a, b) in enumerate(out)]


def _log(seed: int) -> bytes:
    """Noise, sparse errors, and stretches made of one anchor word (dense), in random order."""
    rng = random.Random(seed)
    parts = []
    for _ in range(24):
        kind = rng.choice(("noise", "noise", "sparse", "dense", "got"))
        if kind == "noise":
            parts.append(b"I1031 step 12 loss=0.5 throughput=1234.5\n" * rng.randint(10, 4000))
        elif kind == "sparse":
            parts.append(b"x" * rng.randint(0, 70000) + b"RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
        elif kind == "dense":
            parts.append(b"Invalid Tensor got One\n" * rng.randint(1, 8000))
        else:
            parts.append(b"got" * rng.randint(1, 120000))
    return b"".join(parts)


def test_pieces_plan_the_regions_every_hit_plans():
    finder = AnchorFinder(LogScanner().anchors)
    thinned_some = False
    for seed in range(4):
        data = _log(seed)
        every = finder.find(data, 0, len(data))
        thinned = finder.find_thinned(data, 0, len(data), fastscan.FORWARD)
        assert set(thinned) <= set(every) and thinned == sorted(thinned), seed
        assert _regions(finder, data, thinned) == _regions(finder, data, every), seed
        thinned_some |= len(thinned) < len(every)
    assert thinned_some  # the dense stretches were probed, not searched whole


def test_a_log_of_one_anchor_word_switches_to_probing(monkeypatch):
    """'got' repeated: after the first piece, each span is probed at its ends (two hits kept per span)."""
    finder = AnchorFinder(LogScanner().anchors)
    data = b"got" * (4 * prefilter.PIECE // 3)
    calls: list[int] = []
    real = finder.find

    def counting(buf, start, stop):
        calls.append(stop - start)
        return real(buf, start, stop)

    monkeypatch.setattr(finder, "find", counting)
    thinned = finder.find_thinned(data, 0, len(data), fastscan.FORWARD)
    spans = -(-len(data) // fastscan.FORWARD)
    assert len(thinned) <= 2 * spans + 2 * (prefilter.PIECE // fastscan.FORWARD)
    assert sum(1 for n in calls if n >= prefilter.PIECE) == 1  # one whole piece searched, the rest probed
