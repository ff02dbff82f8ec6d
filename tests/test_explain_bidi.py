"""Persian rendering for terminals without bidi: visual order, joining forms, isolated LTR runs."""

from __future__ import annotations

import unicodedata

from xladoctor.report.terminal_bidi import (
    LRI,
    PDI,
    RLM,
    display_width,
    logical_line,
    render_rtl,
    shape,
    visual_line,
    wrap_rtl,
)


def names(s):
    return [unicodedata.name(c) for c in s]


def test_shape_uses_contextual_forms_and_zwnj_breaks_joining():
    # "می‌دهد": meem initial + farsi yeh final | ZWNJ | dal isolated, heh initial, dal final.
    shaped = shape("می\u200cدهد")
    assert names(shaped) == [
        "ARABIC LETTER MEEM INITIAL FORM", "ARABIC LETTER FARSI YEH FINAL FORM",
        "ARABIC LETTER DAL ISOLATED FORM", "ARABIC LETTER HEH INITIAL FORM", "ARABIC LETTER DAL FINAL FORM"]


def test_shape_persian_letters_and_non_joining_letters():
    # گ (gaf) and پ (peh) are Persian-only letters; ا does not join to the left.
    assert names(shape("گپ")) == ["ARABIC LETTER GAF INITIAL FORM", "ARABIC LETTER PEH FINAL FORM"]
    assert names(shape("اب")) == ["ARABIC LETTER ALEF ISOLATED FORM", "ARABIC LETTER BEH ISOLATED FORM"]


def test_lam_alef_is_the_required_ligature():
    # «بالا» ("up"): beh initial, alef final, then lam+alef as one isolated ligature, never
    # three separate letters (issue 11's report).
    assert names(shape("بالا")) == ["ARABIC LETTER BEH INITIAL FORM", "ARABIC LETTER ALEF FINAL FORM",
                                    "ARABIC LIGATURE LAM WITH ALEF ISOLATED FORM"]
    assert names(shape("کلاس")) == ["ARABIC LETTER KEHEH INITIAL FORM", "ARABIC LIGATURE LAM WITH ALEF FINAL FORM",
                                    "ARABIC LETTER SEEN ISOLATED FORM"]
    assert "ARABIC LIGATURE LAM WITH ALEF WITH MADDA ABOVE ISOLATED FORM" in names(shape("لآ"))


def test_optional_ligatures_and_harakat_are_left_alone():
    # Ligatures beyond lam-alef are styling, not required: الله stays four letters.
    assert len(shape("الله")) == 4
    # The tanween of «مثلاً» is kept (arabic-reshaper deletes harakat by default).
    assert "\u064b" in shape("مثلاً")
    assert shape("jax.device_put") == "jax.device_put"


def test_visual_line_reverses_persian_and_keeps_ltr_runs():
    line = "شکل bf16[16,1280,40]{2,1,0:T(8,128)(2,1)} است"
    out = visual_line(line)
    # The shape is intact and in its own order, with "است" (reversed) on its left.
    assert "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}" in out
    left, right = out.split("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}")
    assert [unicodedata.name(c).split()[2] for c in left.strip()] == ["TEH", "SEEN", "ALEF"]
    assert [unicodedata.name(c).split()[2] for c in right.strip()] == ["LAM", "KEHEH", "SHEEN"]


def test_visual_line_keeps_calls_and_quotes_whole_and_mirrors_persian_brackets():
    line = 'با memory_kind="pinned_host" (مثلاً f(x, s)).'
    out = visual_line(line)
    assert 'memory_kind="pinned_host"' in out
    assert "f(x, s)" in out
    # Logical "(" of the Persian parenthesis is drawn mirrored on the right of its content.
    assert out.startswith(".(f(x, s) ")
    assert out.endswith(" ﺎﺑ")


def test_call_with_only_neutrals_inside_stays_one_run():
    # jax.device_put(x, sharding.with_memory_kind(...)) followed by Persian drew its last
    # call as ")(...)...with_memory_kind".
    line = "جابه‌جا کنید: jax.device_put(x, sharding.with_memory_kind(...)) به نوع حافظه"
    assert "jax.device_put(x, sharding.with_memory_kind(...))" in visual_line(line)


def test_visual_line_right_aligns_to_width():
    out = visual_line("سلام", 10)
    # lam + alef is one glyph (the final lam-alef ligature), so three cells, right-aligned.
    assert len(out) == 10 and out.endswith("ﻡﻼﺳ") and out.startswith("       ")
    assert display_width("a\u200cb\u064b") == 2


def test_combining_marks_stay_after_their_letter():
    out = visual_line("مثلاً")
    assert unicodedata.combining(out[0]) == 0
    assert unicodedata.combining(out[1]) != 0


def test_logical_line_isolates_ltr_runs():
    out = logical_line("از jax.device_put(x, s) استفاده کنید")
    assert out.startswith(RLM)
    assert f"{LRI}jax.device_put(x, s){PDI}" in out
    assert out.replace(RLM, "").replace(LRI, "").replace(PDI, "") == "از jax.device_put(x, s) استفاده کنید"


def test_wrap_never_splits_ltr_tokens_and_render_widths():
    text = "این یک متن طولانی است که شکل bf16[16,1280,40]{2,1,0:T(8,128)(2,1)} را دارد و باید شکسته شود"
    lines = wrap_rtl(text, 30)
    assert any("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}" in line for line in lines)
    for line in render_rtl(text, 50, "visual"):
        assert display_width(line) <= 50 or "bf16" in line


def test_wrapping_never_splits_a_short_bracketed_list():
    from xladoctor.report.terminal_bidi import wrap_rtl
    text = "بافر " * 8 + "minor_to_major [1, 2, 0] دارد"
    for width in range(20, 60):
        lines = wrap_rtl(text, width)
        assert any("[1, 2, 0]" in line for line in lines), (width, lines)


def test_wrapping_never_splits_a_latin_list_at_its_commas():
    # explain --lang fa on the bundled tpu_job.log: the buffer note wrapped after "v4," and each
    # row isolated its half, "(⁦v2, v3, v4⁩," then "⁦v5e, v5p, v6e⁩؛" (issue 38).
    text = ("بافر: این طرح‌بندی، طرح‌بندی پیش‌فرض TPU برای این شکل است (v2, v3, v4, v5e, v5p, v6e؛ "
            "get_default_layout در libtpu)، همان که بافری که بدون طرح‌بندی ساخته شود (device_put یا "
            "بازیابی checkpoint) می‌گیرد")
    gens = "v2, v3, v4, v5e, v5p, v6e"
    for width in range(40, 100):
        assert any(gens in line for line in wrap_rtl(text, width)), width
        assert any(f"{LRI}{gens}{PDI}" in line for line in render_rtl(text, width, "logical")), width
        assert any(gens in line for line in render_rtl(text, width, "visual")), width


def test_a_long_latin_sentence_with_commas_still_wraps():
    sentence = "Check failed: a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w"
    lines = wrap_rtl("خطا: " + sentence + " رخ داد", 40)
    assert all(display_width(line) <= 40 for line in lines), lines


def test_a_bracket_pair_holding_persian_is_the_paragraphs():
    # UAX #9's N0: "]" closes "[چیدمان ...]", so it is not part of the code after it.
    out = logical_line("هشدار [چیدمان minor-to-major]: layout minor_to_major field")
    assert f"{LRI}minor-to-major{PDI}]: {LRI}layout minor_to_major field{PDI}" in out


def test_an_angle_bracketed_name_stays_with_its_location():
    assert logical_line("<stdin>:2:11: هشدار").startswith(f"{RLM}{LRI}<stdin>:2:11{PDI}:")


def test_a_parenthesis_opened_after_code_around_persian_is_the_paragraphs():
    # check --lang fa's offload hint: "(" was drawn inside the command's isolate and ")" alone.
    out = logical_line("جزئیات: xladoctor offload a.hlo  (--fix host|device همان فایل را ویرایش می‌کند)")
    assert f"{LRI}xladoctor offload a.hlo{PDI}  ({LRI}--fix host|device{PDI} همان" in out
    assert out.endswith("می‌کند)")
