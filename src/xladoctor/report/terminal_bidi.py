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

The reordering is a deliberately small subset of UAX #9 (one right-to-left
paragraph, two levels), kept here because general bidi libraries take the
paragraph direction from the first strong character (a line starting with
``jax.device_put`` would turn left-to-right) and split brackets of code from
their run; shaping (contextual forms, lam-alef) is arabic-reshaper's.
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


# Ligatures Arabic script *requires*: lam followed by an alef is always written as one glyph
# («بالا», «لازم»), and fonts have no way to draw the pair from two separate presentation forms.
# arabic-reshaper's other ligatures (Allah, Bismillah, BEH WITH MEEM, ...) are optional or
# Arabic-only styling and would change the look of technical Persian prose, so they stay off.
_REQUIRED_LIGATURES = (
    "ARABIC LIGATURE LAM WITH ALEF",
    "ARABIC LIGATURE LAM WITH ALEF WITH HAMZA ABOVE",
    "ARABIC LIGATURE LAM WITH ALEF WITH HAMZA BELOW",
    "ARABIC LIGATURE LAM WITH ALEF WITH MADDA ABOVE",
)


@lru_cache(maxsize=1)
def _reshaper():
    """arabic-reshaper configured for Persian terminal output (imported on first Persian line).

    It does contextual forms and the lam-alef ligatures from Unicode's presentation forms;
    harakat (e.g. the tanween of «مثلاً») are kept, not deleted.
    """
    from arabic_reshaper import ArabicReshaper
    from arabic_reshaper.reshaper_config import default_config

    config = {key: False for key in default_config if key.startswith("ARABIC LIGATURE")}
    config.update({key: True for key in _REQUIRED_LIGATURES})
    config.update(language="Arabic", delete_harakat=False, delete_tatweel=False, support_zwj=True,
                  support_ligatures=True, use_unshaped_instead_of_isolated=False)
    return ArabicReshaper(configuration=config)


def shape(text: str) -> str:
    """Replace Arabic-script letters by their contextual presentation forms and required
    ligatures (arabic-reshaper), then drop ZWNJ/ZWJ.

    Needed because terminals draw each code point on its own; without this,
    Persian shows every letter in its isolated form and «بالا» as three letters.
    The joiners have done their work once the forms are chosen; many terminals
    would draw them as a visible cell.
    """
    if not any(is_rtl_char(ch) for ch in text):
        return text
    shaped = _reshaper().reshape(text)
    return shaped.replace(ZWNJ, "").replace(ZWJ, "")


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
    _attach_prefixes(line, kinds, resolved)
    runs: list[tuple[str, str]] = []
    for ch, d in zip(line, resolved):
        if runs and runs[-1][0] == d:
            runs[-1] = (d, runs[-1][1] + ch)
        else:
            runs.append((d, ch))
    return runs


_PAIRED = "\"'`()[]{}<>"


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
                if start > 0 and kinds[start - 1] == "L":
                    # Call syntax, name(...): the brackets and the neutrals between them
                    # (``with_memory_kind(...)``) read left to right with the name.
                    for i in range(start, k + 1):
                        if kinds[i] == "N":
                            resolved[i] = "L"
                elif "R" in kinds[start + 1:k]:
                    # A pair that holds right-to-left text is the paragraph's (UAX #9's N0), and so
                    # are the neutrals now between it and the code around it: "[چیدمان minor-to-major]:
                    # layout" kept "]" in the code's isolate, "OUT  (--fix host|device ... می‌کند)" its "(".
                    for end, step in ((start, -1), (k, 1)):
                        resolved[end] = "R"
                        i = end + step
                        while 0 <= i < len(line) and kinds[i] == "N" and line[i] not in _PAIRED:
                            resolved[i] = "R"  # not a quote or bracket: the code's own pair keeps it
                            i += step
                elif start > 0 and resolved[start - 1] == "L" and resolved[start] == "L" and kinds[k] == "N":
                    resolved[k] = "L"
        elif ch in "\"'`":
            if open_quote is None:
                open_quote = k
            else:
                start, open_quote = open_quote, None
                if start > 0 and resolved[start - 1] == "L" and resolved[start] == "L" and kinds[k] == "N":
                    resolved[k] = "L"


_CODE_PREFIX = "-+/.`'\"$%@~#=:\\>([{<"
_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
"""An opener joins the code after it only with its closer (``<stdin>:2:11``, ``(a)``)."""


def _attach_prefixes(line: str, kinds: list[str], resolved: list[str]) -> None:
    """Keep the punctuation a code token starts with on its left-to-right run: ``--vmodule=...``
    drew as ``vmodule=...--`` (the dashes took the paragraph's direction), a backquote went to
    the other end of its command."""
    for k, kind in enumerate(kinds):
        if kind != "L" or (k > 0 and resolved[k - 1] == "L"):
            continue
        j = k - 1
        while j >= 0 and kinds[j] == "N" and line[j] in _CODE_PREFIX:
            if line[j] in _OPENERS or line[j] in "`'\"":
                # An opening quote or bracket joins only with its closer, when what it holds is
                # all left to right ("(a)", "{0}"); "(XLA ... Persian)" keeps both to the paragraph.
                close = _closer(line, j, k)
                if close is None or resolved[close - 1] != "L" or "R" in kinds[j + 1:close]:
                    break
                resolved[close] = "L"
            resolved[j] = "L"
            j -= 1


def _closer(line: str, at: int, start: int) -> int | None:
    """Where the quote or bracket opened at ``at`` closes (searching from ``start``), if it does."""
    ch = line[at]
    if ch in "`'\"":
        close = line.find(ch, start)
        return close if close > 0 else None
    if ch not in _OPENERS:
        return None
    depth = 0
    for i in range(at, len(line)):
        depth += 1 if line[i] == ch else -1 if line[i] == _OPENERS[ch] else 0
        if depth == 0:
            return i
    return None


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
    # So is a call (``jax.device_put(x, compiled.input_formats[...])``) or a backquoted command:
    # split across lines, each half was reordered on its own line.
    text = _CODE_UNIT.sub(lambda m: m.group(0).replace(" ", "\u00a0"), text)
    # And a list of Latin names ("v2, v3, v4, v5e, v5p, v6e"): broken after a comma, each row
    # isolated its half, and a terminal drew "v4," at one end of the row and "v5e" at the other.
    text = _LATIN_LIST.sub(_unbroken_list, text)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        wrapped = textwrap.wrap(paragraph, width=width, initial_indent=indent, subsequent_indent=indent,
                                break_long_words=False, break_on_hyphens=False)
        lines.extend(line.replace("\u00a0", " ") for line in wrapped or [""])
    return lines


_SHORT_LIST = re.compile(r"\[[^\[\]\n]{0,40}\]")
_CODE_UNIT = re.compile(r"(?:\b\w+ = )?[A-Za-z_][\w.]*\((?:[^()\n]|\([^()\n]*\)){0,80}\)|`[^`\n]{1,80}`"
                        # a command line to paste (``xladoctor offload PATH``) and an option with its
                        # values (``--fix host|device -o OUT``): split across rows, each half was
                        # reordered on its own row
                        r"|\bxladoctor [a-z]+(?: (?!\()[^\s\u0590-\u08ff]+)+"
                        r"|--[a-z][\w=.-]*(?: (?:-[a-z]\b|[A-Za-z][\w|]*(?![^\s)])))+")


_LATIN_LIST = re.compile(r"(?<![\w.])[A-Za-z0-9_][A-Za-z0-9_.]*(?:[,\u060c] [A-Za-z0-9_][A-Za-z0-9_.]*)+(?![\w.])")
_LONGEST_LIST = 60
"""Longer comma-separated Latin text is prose (an English sentence quoted), which may wrap."""


def _unbroken_list(m: re.Match[str]) -> str:
    """A short Latin list with its spaces made non-breaking (wrapping never splits it)."""
    found = m.group(0)
    return found.replace(" ", "\u00a0") if len(found) <= _LONGEST_LIST else found


def render_rtl(text: str, width: int, mode: str, indent: str = "") -> list[str]:
    """Wrap and render right-to-left text: ``mode`` is 'visual' (terminals) or 'logical' (files)."""
    lines = wrap_rtl(text, width - len(indent))
    if mode == "visual":
        # The indent of a right-to-left line is on its right: right-aligning to the narrower
        # width draws it, so no trailing spaces are printed for it.
        return [visual_line(line, width - len(indent)).rstrip() for line in lines]
    return [logical_line(line) for line in lines]


def bidi_text(text: str, mode: str, width: int | None = None) -> str:
    """A report of indented lines (``check``'s) for a right-to-left reader: each line holding
    Persian is drawn in ``mode`` ('visual' for a terminal, 'logical' for files) after its
    indent; lines with no right-to-left letter (XLA's own English, paths) stay as they are.

    ``width`` (visual mode: the terminal's columns) wraps each such line *before* it is
    reordered: a visual line longer than the terminal was wrapped by the terminal, which put
    the end of the sentence first and cut code (``jax.device_put(x, ...)``) across rows."""
    out = []
    for line in text.split("\n"):
        if not any(is_rtl_char(ch) for ch in line):
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[:len(line) - len(body)]
        if mode == "visual" and width is not None and display_width(line) > width:
            out.extend(indent + part for part in render_rtl(body, width - len(indent), "visual"))
            continue
        out.append(indent + (visual_line(body) if mode == "visual" else logical_line(body)))
    return "\n".join(out)
