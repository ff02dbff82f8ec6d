"""XLA's own test modules parse here as jaxlib's parser parses them.

The corpus (tests/data/xla_tests, cut out of XLA's C++ tests by
bench/extract_xla_tests.py) is read by xladoctor and by jaxlib; for each module
both must accept or both refuse, and when both accept the structure must be the
same (module and computation names, entry, instructions in order with opcode,
operands and printed shape, entry layout).  The modules where they differ are
named below, each with its reason; they must stay at most 1% of the corpus, and
each named one must still differ (a fixed divergence is taken off the list).
Modules on which jaxlib itself dies (a CHECK failure in XLA 0.10.2's parser) are
not judged.
"""

from __future__ import annotations

import collections

import pytest

pytest.importorskip("jaxlib")

from xla_corpus import jaxlib_views, judge, modules, our_view

_SHARDING = "xladoctor keeps sharding= as text; jaxlib reads the mesh form and refuses this one"
_CUSTOM_CALL = "custom-call attributes xladoctor keeps as text (jaxlib validates them)"
_CONVOLUTION = "convolution window=/dim_labels= are kept as text; jaxlib checks them against the shapes"

DIVERGENCES: dict[str, tuple[str, str]] = {
    "xla/hlo/parser/hlo_parser_test.cc:643": ("we-refuse", "custom-call literal=<shape> <value> is not read"),
    "xla/hlo/parser/hlo_parser_test.cc:3407": ("we-accept", _SHARDING),
    "xla/hlo/parser/hlo_parser_test.cc:3425": ("we-accept", _SHARDING + " (with an internal range error)"),
    "xla/hlo/parser/hlo_parser_test.cc:3435": ("we-accept", _SHARDING + " (with an internal range error)"),
    "xla/service/spmd/spmd_partitioner_test.cc:317": ("we-accept", _SHARDING + " (unreduced=, newer than it)"),
    "xla/service/spmd/spmd_partitioner_test.cc:18964": ("we-accept", _SHARDING + " (unreduced=, newer than it)"),
    "xla/hlo/parser/hlo_parser_test.cc:3569": ("we-accept", _CONVOLUTION),
    "xla/hlo/parser/hlo_parser_test.cc:4073": ("we-accept", _CONVOLUTION),
    "xla/hlo/parser/hlo_parser_test.cc:5501": ("we-accept", _CUSTOM_CALL + ": operand_layout_constraints count"),
    "xla/hlo/parser/hlo_parser_test.cc:5516": ("we-accept", _CUSTOM_CALL + ": operand_layout_constraints shapes"),
    "xla/hlo/parser/hlo_parser_test.cc:5543": ("we-accept", "api_version=API_VERSION_UNSPECIFIED is read: torch_xla "
                                                            "writes it on every custom call (--confirm normalises it)"),
    "xla/hlo/parser/hlo_parser_test.cc:5033": ("we-accept", "dynamic-reshape without operands is not refused"),
    "xla/hlo/parser/hlo_parser_test.cc:5151": ("we-accept", "infeed's shape is not checked to be a tuple"),
    "xla/hlo/parser/hlo_parser_test.cc:6217": ("we-accept", "a nested broadcast of a non-scalar without dimensions= "
                                                            "is not refused"),
    "xla/hlo/parser/hlo_parser_test.cc:6713": ("we-accept", "one async computation called by two async ops is a "
                                                            "module check jaxlib makes after parsing"),
    "xla/hlo/transforms/simplifiers/algebraic_simplifier_test.cc:1346": ("we-accept", "compare direction= is kept "
                                                                         "as text ('%s', a printf placeholder)"),
    "xla/hlo/transforms/simplifiers/algebraic_simplifier_test.cc:1366": ("we-accept", "compare direction= is kept "
                                                                         "as text ('%s', a printf placeholder)"),
    "xla/service/hlo_verifier_test.cc:3587": ("we-accept", "all-reduce use_global_device_ids=true without "
                                                           "channel_id is not refused"),
}


@pytest.fixture(scope="module")
def verdicts():
    corpus = modules()
    theirs = jaxlib_views([m.text for m in corpus])
    return [(m, judge(our_view(m.text), t)) for m, t in zip(corpus, theirs)]


def test_corpus_is_xla_tests(verdicts):
    """The corpus holds thousands of XLA's modules, from the parser's own tests and host offloading's."""
    files = {m.where.rsplit(":", 1)[0] for m, _ in verdicts}
    assert len(verdicts) > 3000 and len(files) > 50
    assert {"xla/hlo/parser/hlo_parser_test.cc", "xla/hlo/transforms/host_offloader_test.cc"} <= files


@pytest.mark.slow
def test_xla_modules_read_as_jaxlib_reads_them(verdicts):
    counts = collections.Counter(v for _, v in verdicts)
    unexplained = [f"{m.where}: {v}" for m, v in verdicts
                   if v not in ("same", "both-refuse", "jaxlib-crashes") and DIVERGENCES.get(m.where, ("",))[0] != v]
    assert not unexplained, f"{len(unexplained)} modules read otherwise than jaxlib reads them ({dict(counts)}):\n" \
        + "\n".join(unexplained[:40])
    stale = [w for w, (v, _) in DIVERGENCES.items() if (w, v) not in {(m.where, c) for m, c in verdicts}]
    assert not stale, f"named divergences that no longer differ (take them off the list): {stale}"
    judged = len(verdicts) - counts["jaxlib-crashes"]
    assert len(DIVERGENCES) <= judged // 100, f"{len(DIVERGENCES)} named divergences in {judged} modules: over 1%"
    assert counts["same"] > 3400
