"""Right-to-left (Persian) text for terminals, which do not implement bidi.

A terminal draws characters left to right in the order it receives them, and
most terminals neither reorder right-to-left scripts nor join Arabic-script
letters.  Persian printed as-is therefore reads backwards, with isolated letter
forms.  This module produces what a reader should *see*:

* :func:`visual_line` takes one logical line and returns it in visual order:
  Persian runs reversed (after choosing each letter's joined form), left-to-right
  runs such as ``jax.device_put(x, sharding)`` or ``bf16[16,1280,40]`` kept
  intact and in their own order, the runs laid out from right to left, mirrored
  brackets inside Persian runs, and the line right-aligned to the width.
* :func:`logical_line` is for output that is not a terminal (files, pipes,
  bidi-aware viewers): the text stays in logical order, each left-to-right run
  is wrapped in LEFT-TO-RIGHT ISOLATE ... POP DIRECTIONAL ISOLATE, and the line
  starts with RIGHT-TO-LEFT MARK so a viewer picks right-to-left as the
  paragraph direction even when the line begins with a code name.
* :func:`wrap_rtl` wraps logical text to a width *before* reordering, as the
  Unicode bidi algorithm prescribes (reordering is per displayed line).

This is a deliberately small subset of UAX #9 (one right-to-left paragraph,
two levels) plus Arabic joining from Unicode's presentation forms; enough for
catalogue prose that mixes Persian with code, not a general bidi engine.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from functools import lru_cache

ZWNJ = "\u200c"
ZWJ = "\u200d"
RLM = "\u200f"
LRI = "\u2066"
PDI = "\u2069"
_MIRROR = {"(": ")", ")": "(", "[": "]", "]": "[", "{": "}", "}": "{", "<": ">", ">": "<",
           "«": "»", "»": "«"}


def is_rtl_char(ch: str) -> bool:
    """Strong right-to-left: Arabic-script letters (Persian included) and Hebrew."""
    return unicodedata.bidirectional(ch) in ("R", "AL")


def is_ltr_char(ch: str) -> bool:
    """Strong left-to-right or a European/Arabic-Indic digit (numbers read left to right)."""
    return unicodedata.bidirectional(ch) in ("L", "EN", "AN")


def is_zero_width(ch: str) -> bool:
    return ch in (ZWNJ, ZWJ) or unicodedata.combining(ch) != 0


@lru_cache(maxsize=1)
def _forms() -> dict[str, dict[str, str]]:
    """letter -> {'isolated'|'final'|'initial'|'medial': presentation form}, from Unicode data.

    Read from the decompositions of the Arabic Presentation Forms blocks rather
    than a hand-typed table, so Persian letters (پ چ ژ گ ک ی) come for free.
    """
    forms: dict[str, dict[str, str]] = {}
    for block in (range(0xFB50, 0xFDFF + 1), range(0xFE70, 0xFEFF + 1)):
        for cp in block:
            ch = chr(cp)
            parts = unicodedata.decomposition(ch).split()
            if len(parts) == 2 and parts[0] in ("<isolated>", "<final>", "<initial>", "<medial>"):
                base = chr(int(parts[1], 16))
                forms.setdefault(base, {}).setdefault(parts[0][1:-1], ch)
    return forms


def _joins_left(ch: str) -> bool:
    """Can this letter connect to the *following* letter (dual-joining)?"""
    return "initial" in _forms().get(ch, {}) or "medial" in _forms().get(ch, {})


def _joins_right(ch: str) -> bool:
    """Can this letter connect to the *preceding* letter?"""
    return "final" in _forms().get(ch, {})


def shape(text: str) -> str:
    """Replace Arabic-script letters by their contextual presentation forms; drop ZWNJ/ZWJ.

    Needed because terminals draw each code point on its own; without this,
    Persian shows every letter in its isolated form.  Combining marks are
    transparent for joining.
    """
    forms = _forms()
    chars = list(text)
    out = []
    n = len(chars)
    for i, ch in enumerate(chars):
        if ch in (ZWNJ, ZWJ):
            continue
        f = forms.get(ch)
        if not f:
            out.append(ch)
            continue
        # Neighbours, skipping combining marks (they do not break joining).
        j = i - 1
        while j >= 0 and unicodedata.combining(chars[j]):
            j -= 1
        k = i + 1
        while k < n and unicodedata.combining(chars[k]):
            k += 1
        prev_joins = j >= 0 and _joins_left(chars[j]) and _joins_right(ch)
        next_joins = k < n and _joins_left(ch) and _joins_right(chars[k])
        if prev_joins and next_joins:
            form = "medial"
        elif prev_joins:
            form = "final"
        elif next_joins:
            form = "initial"
        else:
            form = "isolated"
        out.append(f.get(form) or f.get("isolated") or ch)
    return "".join(out)


def _runs(line: str) -> list[tuple[str, str]]:
    """Split a logical line into ('L'|'R', text) runs for a right-to-left paragraph.

    Neutrals (spaces, punctuation) between two left-to-right characters belong
    to the left-to-right run (``jax.device_put(x, s)`` stays one run); all other
    neutrals take the paragraph direction, right-to-left.
    """
    kinds = []
    for ch in line:
        if is_rtl_char(ch):
            kinds.append("R")
        elif is_ltr_char(ch):
            kinds.append("L")
        else:
            kinds.append("N")
    n = len(kinds)
    resolved = kinds[:]
    i = 0
    while i < n:
        if kinds[i] != "N":
            i += 1
            continue
        j = i
        while j < n and kinds[j] == "N":
            j += 1
        before = kinds[i - 1] if i > 0 else "R"
        after = kinds[j] if j < n else "R"
        fill = "L" if before == "L" and after == "L" else "R"
        for k in range(i, j):
            resolved[k] = fill
        i = j
    _attach_closers(line, kinds, resolved)
    runs: list[tuple[str, str]] = []
    for ch, d in zip(line, resolved):
        if runs and runs[-1][0] == d:
            runs[-1] = (d, runs[-1][1] + ch)
        else:
            runs.append((d, ch))
    return runs


def _attach_closers(line: str, kinds: list[str], resolved: list[str]) -> None:
    """Keep a closing bracket or quote with the left-to-right run that opened it.

    ``f(x, s)`` or ``kind="pinned_host"`` followed by Persian would otherwise
    lose its last character to the right-to-left side.  Brackets are paired
    with a stack (so ``(مثلاً f(x))`` keeps its outer pair right-to-left);
    straight quotes pair with the previous unmatched quote.
    """
    closers = {")": "(", "]": "[", "}": "{", ">": "<"}
    stack: list[int] = []
    open_quote: int | None = None
    for k, ch in enumerate(line):
        if ch in "([{<":
            stack.append(k)
        elif ch in closers:
            while stack and line[stack[-1]] != closers[ch]:
                stack.pop()
            if stack:
                start = stack.pop()
                if start > 0 and resolved[start - 1] == "L" and resolved[start] == "L" and kinds[k] == "N":
                    resolved[k] = "L"
        elif ch in "\"'`":
            if open_quote is None:
                open_quote = k
            else:
                start, open_quote = open_quote, None
                if start > 0 and resolved[start - 1] == "L" and resolved[start] == "L" and kinds[k] == "N":
                    resolved[k] = "L"


def display_width(text: str) -> int:
    """Columns a string takes: zero-width joiners and combining marks take none."""
    width = 0
    for ch in text:
        if is_zero_width(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _clusters(text: str) -> list[str]:
    """Base characters with their combining marks, so reversal keeps marks on their letter."""
    out: list[str] = []
    for ch in text:
        if out and unicodedata.combining(ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def visual_line(line: str, width: int | None = None) -> str:
    """One logical right-to-left line as a terminal must draw it (see module doc).

    With ``width``, the result is right-aligned to that many columns.
    """
    pieces = []
    for direction, text in reversed(_runs(line)):
        if direction == "L":
            pieces.append(text)
        else:
            clusters = _clusters(shape(text))
            pieces.append("".join(_MIRROR.get(c, c) for c in reversed(clusters)))
    out = "".join(pieces)
    if width is not None:
        pad = width - display_width(out)
        if pad > 0:
            out = " " * pad + out
    return out


def logical_line(line: str) -> str:
    """Logical order for bidi-aware viewers: RLM, then each LTR run isolated with LRI...PDI."""
    parts = []
    for direction, text in _runs(line):
        if direction == "L":
            parts.append(f"{LRI}{text}{PDI}")
        else:
            parts.append(text)
    return RLM + "".join(parts)


def wrap_rtl(text: str, width: int, indent: str = "") -> list[str]:
    """Wrap logical text into lines of at most ``width`` display columns.

    Wrapping happens on logical text and only at spaces, so a left-to-right run
    with no spaces (a shape, a flag) is never split.
    """
    width = max(10, width)
    # A short bracketed list ("[0, 2, 1]") is one left-to-right unit: a break inside it would
    # leave its halves isolated separately and reorder them.  NBSP is not a break point for
    # textwrap; it is turned back into a space afterwards.
    text = _SHORT_LIST.sub(lambda m: m.group(0).replace(" ", "\u00a0"), text)
    lines = []
    for paragraph in text.split("\n"):
        wrapped = textwrap.wrap(paragraph, width=width, initial_indent=indent, subsequent_indent=indent,
                                break_long_words=False, break_on_hyphens=False)
        lines.extend(line.replace("\u00a0", " ") for line in wrapped or [""])
    return lines


_SHORT_LIST = re.compile(r"\[[^\[\]\n]{0,40}\]")


def render_rtl(text: str, width: int, mode: str, indent: str = "") -> list[str]:
    """Wrap and render right-to-left text: ``mode`` is 'visual' (terminals) or 'logical' (files)."""
    lines = wrap_rtl(text, width - len(indent))
    if mode == "visual":
        return [visual_line(line, width - len(indent)) + indent for line in lines]
    return [logical_line(line) for line in lines]
