"""What one catalogue entry holds, independent of the file format it is stored in.

An entry mirrors one line of XLA's ``xla/error/error_codes.h`` (code, name,
absl status) plus what a reader needs to act on the error, written once per
language with identical keys so no language can silently fall behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LANGUAGES = ("en", "fa")
PHASES = ("compile-time", "runtime", "any")
ORIGINS = ("xla", "xla-draft", "xladoctor")
"""Where a code comes from: ``xla`` is a line of XLA's ``error_codes.h`` with a page on
openxla.org; ``xla-draft`` a page that existed only in an unmerged draft of XLA's error
docs (no code XLA prints, no page to link); ``xladoctor`` a grouping of our own (a family
such as ``E03xx``) that XLA does not define.  See ``catalogue/data/UPSTREAM.md``."""
TEXT_FIELDS = ("title", "category", "summary", "causes", "fixes", "debug")
LIST_TEXT_FIELDS = ("causes", "fixes", "debug")


@dataclass(frozen=True)
class EntryText:
    """The prose of one entry in one language."""

    title: str
    category: str
    summary: str
    causes: tuple[str, ...]
    fixes: tuple[str, ...]
    debug: tuple[str, ...]


@dataclass(frozen=True)
class Entry:
    """One XLA error code.

    ``patterns`` are the regular expressions (as written in the data file) that
    recognise the error's message without its code; ``matchers`` are those
    compiled, plus the coded header ``EXXXX: Name`` that XLA prefixes since
    error codes exist.  A space in a pattern matches any whitespace run, line
    breaks included, because logs and tracebacks wrap long messages.
    """

    code: str
    name: str
    status: str
    phase: str
    backends: tuple[str, ...]
    url: str
    patterns: tuple[str, ...]
    example: str
    text: dict[str, EntryText]
    see_also: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    family: bool = False
    generic: bool = False
    origin: str = "xla"
    matchers: tuple[re.Pattern[str], ...] = field(default=(), compare=False, repr=False)

    @property
    def number(self) -> str:
        """The code without its ``E``: what the openxla.org page is named after."""
        return self.code[1:]

    def header_regex(self) -> str:
        """Regex for the coded header XLA prints: ``E1200: CompileTimeHost...``.

        Family entries (``E03xx``) accept any digits where the code has ``x``.
        """
        code = re.escape(self.code).replace("x", r"\d")
        if self.family:
            return rf"\b{code}: \w+"
        return rf"\b{code}: {re.escape(self.name)}\b"

    def describe(self, lang: str) -> EntryText:
        return self.text[lang]
