"""The needle prefilter (catalogue/prefilter.py) returns exactly what the anchors' own automaton
returns, on every corpus log and on haystacks built to trip it: words straddling, overlapping and
repeated, needles without their anchor, more hits than it searches span by span."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from log_corpus import write_log
from xladoctor.catalogue.prefilter import MAX_SEGMENTS, MIN_NEEDLE, Prefiltered, needles
from xladoctor.catalogue.scanner import LogScanner

ahocorasick_rs = pytest.importorskip("ahocorasick_rs")
MatchKind = ahocorasick_rs.MatchKind

LOGS = Path(__file__).parent / "data" / "logs"
WORDS = [a.encode("ascii") for a in LogScanner().anchors]
SEARCHES = [(MatchKind.LeftmostFirst, False), (MatchKind.Standard, False), (MatchKind.Standard, True)]


def test_every_anchor_holds_a_needle_and_there_are_fewer():
    long_words = tuple(w for w in WORDS if len(w) >= MIN_NEEDLE)
    found = needles(long_words)
    assert all(any(n in w for n in found) for w in long_words)
    assert all(len(n) >= MIN_NEEDLE and any(n in w for w in long_words) for n in found)
    assert len(found) <= 32 < len(WORDS)  # one SIMD vector's worth (Teddy's slim form), the point of it
    assert needles(tuple(reversed(long_words))) == found  # every process derives the same set
    assert needles((b"Sharding", b"sharding", b"layout")) == [b"harding", b"layout"]
    assert needles((b"Layout", b"layouts", b"with_layout_constraint")) == [b"ayout"]  # "layout" first, then it


def _haystacks(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    pieces = (WORDS + [w[:k] for w in WORDS for k in (2, 3, 4)] + [w[k:] for w in WORDS for k in (1, 3)]
              + [b" ", b"\n", b"x", b"ation error ", b"shardingsharding", b"gotgot", b"\xd8\xaf"])
    return [b"".join(rng.choice(pieces) for _ in range(rng.choice((1, 3, 10, 40, 200)))) for _ in range(count)]


@pytest.mark.parametrize("kind, overlapping", SEARCHES)
def test_same_matches_as_the_exact_automaton(kind, overlapping, tmp_path):
    pre = Prefiltered(WORDS, kind)
    generated = [write_log(tmp_path / f"g{seed}.log", 3000, seed, error_every=120) for seed in range(2)]
    texts = [p.read_bytes() for p in [*sorted(LOGS.glob("*.log")), *generated]]
    assert texts
    for hay in _haystacks(kind == MatchKind.Standard, 1500) + texts:
        assert pre.find(hay, overlapping) == pre.exact.find_matches_as_indexes(hay, overlapping=overlapping), hay[:200]
    for text in texts:  # in windows, as the planner and the scanner search: words cut at both ends
        for size in (64, 1000, 1 << 16):
            for a in range(0, len(text), size):
                view = memoryview(text)[a:a + size]
                assert pre.find(view, overlapping) == pre.exact.find_matches_as_indexes(view, overlapping=overlapping)


def test_no_needle_no_automaton_and_many_hits_search_the_whole_buffer():
    pre = Prefiltered(WORDS, MatchKind.LeftmostFirst)
    calls = []

    class Spy:
        def find_matches_as_indexes(self, haystack, overlapping=False):
            calls.append(bytes(haystack))
            return exact.find_matches_as_indexes(haystack, overlapping=overlapping)

    exact, pre.exact = pre.exact, Spy()
    assert pre.find(b"step 1 loss=0.5 throughput=1234.5 examples/s\n" * 100) == [] and calls == []
    assert pre.find(b"an ation, an error, no anchor\n") == [] and len(calls) == 1  # a needle alone: searched around it
    calls.clear()
    hay = b"x" * 5000 + b" Sharding " + b"y" * 5000
    assert pre.find(hay) == [(WORDS.index(b"Sharding"), 5001, 5009)]
    assert len(calls) == 1 and len(calls[0]) < 100  # only around the needle
    calls.clear()
    dense = b"got Ran " * (MAX_SEGMENTS + 1)
    assert pre.find(dense) == exact.find_matches_as_indexes(dense)
    assert calls == [dense]  # past MAX_SEGMENTS hits: one search of the whole buffer
