"""Printing a parsed shape gives XLA's canonical text, as jaxlib prints it.

For every shape string below, jaxlib reads it as the shape of a parameter and
prints it back (see :func:`jaxlib_oracle.jaxlib_canonical_shape`); we require
``str(parse_shape(s))`` to be exactly that text.  Strings jaxlib rejects must
raise our :class:`InputError`; strings that make XLA abort on a CHECK must be
rejected by us too (a crash is never the right answer for a user).

jaxlib is asked once per session, in a child process, because some inputs kill
the process that parses them.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jaxlib")

from jaxlib_oracle import jaxlib_canonical_shapes_isolated
from xladoctor.base.errors import InputError
from xladoctor.syntax.shape_parser import parse_shape

_TWELVE = ", ".join(f"f32[{i}]" for i in range(1, 13))

# Shapes jaxlib accepts and prints back; one group per feature of the notation.
ACCEPTED = [
    # every primitive type
    "pred[3]", "s1[8]", "u1[8]", "s2[4]", "u2[4]", "s4[16]", "u4[16]", "s8[2]", "u8[2]",
    "s16[2]", "u16[2]", "s32[2,3]", "u32[2,3]", "s64[5]", "u64[5]", "f16[4]", "bf16[4,4]",
    "f32[7]", "f64[1,1,1]", "f8e5m2[8]", "f8e4m3fn[8]", "f8e4m3b11fnuz[8]", "f8e5m2fnuz[8]",
    "f8e4m3fnuz[8]", "f8e4m3[8]", "f8e3m4[8]", "f8e8m0fnu[8]", "f4e2m1fn[8]", "f6e2m3fn[8]",
    "f6e3m2fn[8]", "c64[3]", "c128[3]",
    # scalars, token, opaque, empty dims
    "pred[]", "f32[]", "token[]", "opaque[]", "f32[0]", "f32[0,5]",
    # dynamic dims
    "f32[<=4]", "f32[?]", "s32[<=10,3,<=2]", "f32[?,4]",
    # explicit minor_to_major
    "f32[2,3]{0,1}", "f32[2,3,4]{0,2,1}", "f32[2,3]{1,0}",
    # tiles, including the combine dimension '*'
    "f32[1024,1024]{1,0:T(8,128)}", "bf16[256,256]{1,0:T(8,128)(2,1)}",
    "s8[64,128]{1,0:T(8,128)(4,1)}", "pred[128]{0:T(1024)}", "f32[8,128]{1,0:T(2,*)}",
    "f32[8,8]{1,0:T(2,*,4)}",
    # memory space, element size, tail padding, index/pointer types, split configs, M
    "f32[16,16]{1,0:T(8,128)S(1)}", "f32[4,8]{1,0:S(5)}", "f32[4]{0:S(0)}",
    "s4[64]{0:E(4)}", "s4[64]{0:T(128)(4,1)E(4)}", "u8[4]{0:E(8)}", "f32[4,8]{1,0:L(2)}",
    "f32[4]{0:M(64)}", "f32[8,16]{1,0:SC(0:2,4)}", "f32[3]{0:L(4)E(32)S(1)}",
    "f32[2,3]{1,0:T(2,128)(2,1)S(5)}", "f32[2,3]{1,0:T(8,128)M(16)}",
    # scalar layouts
    "f32[]{:T(256)}", "f32[]{:S(5)}",
    # dim level types: parsed, but jaxlib 0.10.2 does not print them
    "f32[2,3]{1,0:D(D,D)}", "f32[10]{0:D(C+~)}", "f32[2,3]{1,0:D(D,C)T(8,128)}",
    # tuples: empty, nested, > 10 elements (/*index=N*/ comments), buffers b(...)
    "()", "(())", "(f32[2], s32[])", "(f32[2]{0}, (bf16[3,4]{0,1}, pred[]), token[])",
    f"({_TWELVE})",
    "(f32[1], (f32[1], f32[2], f32[3], f32[4], f32[5], f32[6]), f32[3], f32[4], f32[5], f32[6])",
    "b(f32[4])", "b(s32[2,3]{1,0})", "(b(f32[4]), f32[2])",
    # whitespace and comments anywhere a token may be separated
    "( f32[2] ,s32[3]  )", "f32[ 2 , 3 ]", "f32[2,3] {1,0}", "f32[2,3]{ 1 , 0 }",
    "f32[2,3]/*c*/", "(f32[2], /*index=1*/s32[3])", "(f32[2] /*x*/, s32[3])",
    "(f32[2],\n  s32[3])", "f32[2,3]{1,0:T(8,128)}  ", "s8[1099511627776,1024]",
    "(f32[2]{0:T(128)S(5)}, (s4[8]{0:E(4)}, u32[<=7]{0}), b(c64[]), opaque[])",
    "u8[2]\n {0:S(3)}", "s16[]\n {:E(2)}", "f32[2]  /*c*/ {0}",
    # '#'/'*' with any of '(', type, ')' missing: XLA ignores each step's result (fuzz campaign)
    "u8[4]{0:*()}", "u8[4]{0:*)}", "u8[4]{0:*}", "u8[4]{0:#()}", "u8[256]{0:T(2,*)*)}", "u8[4]{0:*E(8)}",
    # S(n) is stored in an int8: wraps (fuzz campaign: S(9223375807) prints S(-65))
    "f32[2]{0:S(261)}", "f32[2]{0:S(256)}", "s8[3,256,128]{2,1,0:S(9223375807)}",
    # a bare letter attribute is dropped; a space ends it ('E S(5)' is S(5)); ParseLayout ignores
    # what ParseSplitConfigs returns, so SC keeps what it read before a failing step
    "u8[4]{0:E}", "u8[4]{0:E S(5)}", "u8[4]{0:M}", "u8[4]{0:#E(8)}", "f32[8,128]{1,0:T(8,128)L}",
    "f32[8,16]{1,0:SC}", "f32[8,16]{1,0:SC(0}", "f32[8,16]{1,0:SC(0:}", "f32[8,16]{1,0:SC(0:4,}",
    "f32[8,16]{1,0:SC(}", "f32[8,16]{1,0:SC(0:4)(}", "f32[8,16]{1,0:SC M(2)}",
]

# jaxlib rejects these with a parse error.
REJECTED = [
    "F32[2]", "f32[-1]", "f32[2,3]{0}", "f32[2]{0,0}", "f32[2", "f33[2]",
    "f32[99999999999999999999]", "f32[9223372036854775808]", "s32[<=?]", "f32[2,3]{:T(8)}",
    "f32[8,16]{1,0:SC(0:2)SC(1:4,8)}", "f32[4]{0:P(s32[4]{0})}", "u8[4]{0:*(8)}", "u8[4]{0:*((u32)}",
    # XLA's lexer reads the whole identifier before ParseLayout compares it with 'E', 'T'...:
    # a letter glued to the next one (campaign disagree-4: 'ES(5)'), to digits, '.', '-', '_',
    # ':' or '=' names no attribute
    "u8[4]{0:ES(5)}", "f32[8,128]{1,0:TL(2)}", "f32[8,128]{1,0:T8}", "f32[8,128]{1,0:L2}", "u8[4]{0:M1}",
    "f32[8,16]{1,0:SCS(1)}", "u8[4]{0:S5}", "u8[4]{0:S.(5)}", "u8[4]{0:S-(5)}", "u8[4]{0:S_(5)}",
    "u8[4]{0:S:(5)}", "u8[4]{0:S=(5)}", "u8[4]{0:DT(4)}", "u8[4]{0:s(5)}", "f32[8,16]{1,0:SC P(f32[2])}",
]

# XLA aborts the process on these (CHECK failure); we must reject them instead.
CRASHING = ["f32[4,8]{1,0:L(0)}"]

# jaxlib reads these as a plain array parameter, but most are refused where it
# validates layouts (see ShapeVerdict.validated): we may either print exactly
# what jaxlib prints or reject with InputError.
LENIENT = [
    "f32[2]{1}", "f32[2]{0:S(-1)}", "f32[2]{0:T()}", "f32[2]{0:E(4)}", "pred[2]{0:E(1)}",
    "f32[4,8]{1,0:#(s32)}", "f32[4,8]{1,0:*(u32)}", "f32[4,8]{1,0:#(u16)*(u32)}",
    "bf16[4,8]{1,0:T(8,128)(2,1)#(s32)*(u32)S(3)}", "f32[9223372036854775807]", "u8[4]{0:*u32)}",
    "u8[4]{0:*(u32}", "u8[4]{0:*(f32)}",
]

ALL = ACCEPTED + REJECTED + CRASHING + LENIENT


@pytest.fixture(scope="module")
def verdicts():
    return jaxlib_canonical_shapes_isolated(ALL)


def test_shape_list_is_broad():
    assert len(ACCEPTED) >= 80
    assert len(set(ALL)) == len(ALL)


@pytest.mark.parametrize("text", ACCEPTED)
def test_print_matches_jaxlib(text, verdicts):
    v = verdicts[text]
    assert v.status == "ok" and v.validated, f"oracle no longer accepts {text!r}: {v}"
    assert str(parse_shape(text)) == v.printed


@pytest.mark.parametrize("text", REJECTED + CRASHING)
def test_rejected_like_jaxlib(text, verdicts):
    v = verdicts[text]
    assert v.status == ("crashed" if text in CRASHING else "rejected"), v
    with pytest.raises(InputError):
        parse_shape(text)


def test_parse_does_not_depend_on_what_was_parsed_before():
    """A shape read earlier (and cached) must not change how a later one reads."""
    for plain, spaced in [("u8[2]", "u8[2]\n {0:S(3)}"), ("s16[]", "s16[]\n {:E(2)}"),
                          ("f32[2,3]", "f32[2,3] {0,1}")]:
        fresh = str(parse_shape(spaced))
        parse_shape(plain)
        assert str(parse_shape(spaced)) == fresh


@pytest.mark.parametrize("text", LENIENT)
def test_invalid_layouts_jaxlib_reads(text, verdicts):
    v = verdicts[text]
    assert v.status == "ok", v
    try:
        ours = str(parse_shape(text))
    except InputError:
        return
    assert ours == v.printed
