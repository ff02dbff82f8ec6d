"""What XLA's parser takes and refuses, case by case, with jaxlib as the judge (issue 23, item 8).

Each text below was once read differently here and by jaxlib.  REFUSED: xladoctor
must refuse with one located line, and jaxlib must refuse too.  ACCEPTED: xladoctor
must read it as jaxlib reads it (same computations, instructions, operands, shapes).
"""

from __future__ import annotations

import re

import pytest

from hlo_snippets import ADD, BRANCH, entry
from xladoctor.base.errors import HloParseError
from xladoctor.syntax.hlo_parser import parse_module

COND = "cond {\n  x = (f32[2]{0}) parameter(0)\n  ROOT y = pred[] constant(true)\n}\n\n"

REFUSED = {
    # constants: out-of-range and malformed literals
    "s64 over int64": (entry("ROOT c = s64[] constant(99999999999999999999)"), "expects integer"),
    "s8 300": (entry("ROOT c = s8[] constant(300)"), "out of range for literal's primitive type S8"),
    "u8 -1": (entry("ROOT c = u8[] constant(-1)"), "out of range for literal's primitive type U8"),
    "f32 1e999": (entry("ROOT c = f32[] constant(1e999)"), "out of range for double"),
    "f16 65520": (entry("ROOT c = f16[] constant(65520)"), "out of range for literal's primitive type F16"),
    "too many elements": (entry("ROOT c = f32[2]{0} constant({1, 2, 3})"), "elements"),
    "too few elements": (entry("ROOT c = f32[3]{0} constant({1, 2})"), "expects 3 elements"),
    "flat literal for rank 2": (entry("ROOT c = f32[2,2]{1,0} constant({1, 2, 3, 4})"), "nested array in rank 2"),
    "braces for a scalar": (entry("ROOT c = s32[] constant({5})"), "rank 0, but sees larger"),
    "true for s32": (entry("ROOT c = s32[] constant(true)"), "only for pred"),
    # white space XLA's lexer does not skip
    "vertical tab": (entry("ROOT r = f32[2]{0}\vnegate(p)"), "U+000B"),
    "no-break space": (entry("ROOT r = f32[2]{0}\u00a0negate(p)"), "U+00A0"),
    "em space": (entry("ROOT r = f32[2]{0}\u2003negate(p)"), "U+2003"),
    # the HloModule header
    "unknown header attribute": (entry("ROOT r = f32[2]{0} negate(p)", header="HloModule m, zzz=1"),
                                 'unexpected attribute "zzz"'),
    "repeated header attribute": (entry("ROOT r = f32[2]{0} negate(p)",
                                        header="HloModule m, num_partitions=2, num_partitions=2"),
                                  "attribute num_partitions already exists"),
    "header bool as 1": (entry("ROOT r = f32[2]{0} negate(p)", header="HloModule m, is_scheduled=1"),
                         "expects true or false"),
    "bad aliasing": (entry("ROOT r = f32[2]{0} negate(p)", header="HloModule m, input_output_alias={ {0, a}: (0, {}) }"),
                     "expects integer"),
    # 20-digit integers where XLA's lexer takes int64/uint64 only
    "20 digits in dimensions=": (entry("ROOT r = f32[2,2]{1,0} broadcast(p), dimensions={99999999999999999999}"),
                                 "out of XLA's integer range"),
    "20 digits in sharding=": (entry("ROOT r = f32[2]{0} negate(p), sharding={devices=[99999999999999999999]0}"),
                               "out of XLA's integer range"),
    # conditionals
    "f32 branch index": (entry("i = f32[] constant(0)",
                                        "ROOT c = f32[2]{0} conditional(i, p), branch_computations={b0}", before=BRANCH),
                         "scalar of PRED or S32"),
    "both branch forms": (entry("i = pred[] constant(true)", "ROOT c = f32[2]{0} conditional(i, p, p), "
                                         "true_computation=b0, false_computation=b0, branch_computations={b0, b0}", before=BRANCH),
                          'unexpected attribute "branch_computations"'),
    "vector branch index": (entry("i = s32[1]{0} constant({0})",
                                           "ROOT c = f32[2]{0} conditional(i, p), branch_computations={b0}", before=BRANCH),
                            "must be a scalar"),
    # attributes XLA requires
    "while without body=": (entry("t = (f32[2]{0}) tuple(p)", "ROOT w = (f32[2]{0}) while(t), condition=cond",
                                  before=COND), "attribute body"),
    "reduce without to_apply=": (entry("z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z), dimensions={0}"),
                                 "attribute to_apply"),
    # async chains
    "async-done of a non-async op": (entry("ROOT d = f32[2]{0} async-done(p), calls=b0", before=BRANCH),
                                     "single async op"),
    "signature result differs from the root": (
        "HloModule m\n\nENTRY e (p: f32[2]) -> f32[3] {\n  p = f32[2]{0} parameter(0)\n  ROOT r = f32[2]{0} negate(p)\n}\n",
        "Shape of computation e"),
}

ACCEPTED = {
    # no space between the keyword and a %-name or a comment (found by the campaign, seed 24242)
    "HloModule%name": entry("ROOT r = f32[2]{0} negate(p)", header="HloModule%TRY"),
    "HloModule/*comment*/name": entry("ROOT r = f32[2]{0} negate(p)", header="HloModule/*c*/m"),
    "leading zeros in a dimension": entry("q = u8[0000000000000000000000000000005]{0} parameter(1)",
                                          "ROOT r = f32[2]{0} negate(p)"),
    "backend_config read as XLA's JSON lexer reads it": entry(
        'ROOT r = f32[2]{0} custom-call(p), custom_call_target="x", backend_config={/*x}'),
    "unbalanced brackets inside backend_config braces": entry('ROOT r = f32[2]{0} negate(p), backend_config={"a": [1, 2}'),
    "entry layout parameter shape differs": entry(
        "ROOT r = f32[2]{0} negate(p)", header="HloModule m, entry_computation_layout={(f32[3]{0})->f32[2]{0}}"),
    "entry layout result differs": entry(
        "ROOT r = f32[2]{0} negate(p)", header="HloModule m, entry_computation_layout={(f32[2]{0})->s32[7]{0}}"),
    "a scalar for an array constant (XLA records and reads past)": entry("ROOT c = f32[4]{0} constant(1)"),
    "u64 -1 (XLA compares as uint64)": entry("ROOT c = u64[] constant(-1)"),
    "f16 65519 rounds to the largest finite": entry("ROOT c = f16[] constant(65519)"),
    "comments inside a literal": entry("ROOT c = f32[2]{0} constant({ /*i=0*/ 1, 2 })"),
    "same name in two computations (renamed)": entry("a = f32[] constant(1)", "ROOT r = f32[] add(a, a)", before=ADD),
    "numeric suffix normalised": entry("r.012 = f32[2]{0} negate(p)", "ROOT r.12 = f32[2]{0} negate(r.012)"),
    "shape inferred": entry("n = negate(p)", "t = tuple(n, p)", "ROOT g = get-tuple-element(t), index=1"),
    "nested instruction operands": entry("ROOT r = f32[2]{0} add(negate(p), f32[2]{0} negate(negate(p)))"),
    "async sugar": entry("s = ((f32[2]{0}), f32[2]{0}, s32[]) call-start(p), to_apply=b0",
                         "ROOT d = f32[2]{0} call-done(s)", before=BRANCH),
    "inline computation": entry("z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={\n"
                                "    a = f32[] parameter(0)\n    b = f32[] parameter(1)\n    ROOT s = f32[] add(a, b)\n  }"),
    "pred conditional": entry("i = pred[] constant(true)",
                                       "ROOT c = f32[2]{0} conditional(i, p, p), true_computation=b0, "
                                       "false_computation=b0", before=BRANCH),
}


@pytest.fixture(scope="module")
def jaxlib_says():
    """jaxlib's answer for every text, from a child process (XLA dies on some refused ones)."""
    pytest.importorskip("jaxlib")
    from xla_corpus import jaxlib_views
    texts = [t for t, _ in REFUSED.values()] + list(ACCEPTED.values())
    return dict(zip(texts, jaxlib_views(texts)))


JAXLIB_DIES = {"true for s32"}  # SetValueInLiteral(bool) on a non-pred type: LOG(FATAL) in XLA


@pytest.mark.parametrize("case", REFUSED)
def test_what_xla_refuses_is_refused(case, jaxlib_says):
    text, message = REFUSED[case]
    with pytest.raises(HloParseError, match=re.escape(message)) as e:
        parse_module(text, "t.hlo")
    assert str(e.value).startswith("t.hlo:") and "\n" not in str(e.value)
    assert jaxlib_says[text]["status"] == ("crashed" if case in JAXLIB_DIES else "rejected"), jaxlib_says[text]


@pytest.mark.parametrize("case", ACCEPTED)
def test_what_xla_accepts_is_read_as_xla_reads_it(case, jaxlib_says):
    from xla_corpus import our_view
    text = ACCEPTED[case]
    assert jaxlib_says[text]["status"] == "ok", jaxlib_says[text]
    assert our_view(text) == jaxlib_says[text]
