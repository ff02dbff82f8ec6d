"""Turn a catalogue entry into text for a terminal or a file, in English or Persian.

Kept apart from the data and from the CLI so the same layout serves
``xladoctor explain CODE`` and the per-finding explanations of a scanned log.
Persian prose goes through :mod:`.terminal_bidi`; code-like
material (the coded header, the example log message, URLs) stays
left-to-right in both languages because it is copied into searches and issues.
"""

from __future__ import annotations

import textwrap

from ..base.labels import label

TYPE_CHECKING = False  # not typing's: start-up (issue 36)
if TYPE_CHECKING:  # the model only names an entry here: explain's "no XLA error found" loads no catalogue
    from ..catalogue.model import Entry

# Label keys of the values a heading shows (the phase, the reason there is no openxla.org page).
_PHASE_LABELS = {"compile-time": "entry.compile-time", "runtime": "entry.runtime", "any": "entry.any"}
_NO_PAGE_LABELS = {"xladoctor": "entry.no_page_xladoctor", "xla-draft": "entry.no_page_xla-draft"}


class Writer:
    """Accumulates output lines; prose goes through bidi rendering when the language is RTL."""

    def __init__(self, lang: str, width: int, bidi: str):
        self.lang = lang
        self.width = max(40, width)
        self.bidi = bidi  # 'visual' for terminals, 'logical' for files/pipes
        self.lines: list[str] = []

    @property
    def rtl(self) -> bool:
        return self.lang == "fa"

    def prose(self, text: str, indent: str = "") -> None:
        if self.rtl:
            from .terminal_bidi import render_rtl  # Persian only: its patterns and unicodedata (start-up)

            self.lines.extend(render_rtl(text, self.width, self.bidi, indent))
        else:
            self.lines.extend(textwrap.wrap(text, self.width, initial_indent=indent, subsequent_indent=indent,
                                            break_long_words=False, break_on_hyphens=False) or [""])

    def bullets(self, items: tuple[str, ...] | list[str], indent: str = "  ") -> None:
        for item in items:
            if self.rtl:
                from .terminal_bidi import render_rtl

                # Bullet on the right: it is part of the right-to-left line.
                self.lines.extend(render_rtl("• " + item, self.width, self.bidi, indent))
            else:
                wrapped = textwrap.wrap(item, self.width, initial_indent=indent + "- ",
                                        subsequent_indent=indent + "  ", break_long_words=False,
                                        break_on_hyphens=False)
                self.lines.extend(wrapped)

    def heading(self, text: str) -> None:
        self.lines.append("")
        self.prose(text)

    def code(self, text: str, indent: str = "    ") -> None:
        """Left-to-right material, never reordered or wrapped (copyable as-is)."""
        self.lines.extend(indent + line if line else "" for line in text.splitlines())

    def blank(self) -> None:
        self.lines.append("")


def render_entry(entry: Entry, lang: str = "en", width: int = 80, bidi: str = "visual") -> str:
    """The full explanation of one code, like ``rustc --explain``."""
    w = Writer(lang, width, bidi)
    text = entry.describe(lang)
    w.code(f"{entry.code}: {entry.name}", indent="")
    w.prose(text.title)
    w.blank()
    w.prose(f"{label('entry.category', lang)}: {text.category}")
    w.prose(f"{label('entry.phase', lang)}: {label(_PHASE_LABELS[entry.phase], lang)}")
    w.prose(f"{label('entry.backends', lang)}: {', '.join(entry.backends)}")
    w.prose(f"{label('entry.status', lang)}: {entry.status}")
    if entry.aliases:
        w.prose(f"{label('entry.aliases', lang)}: {', '.join(entry.aliases)}")
    w.heading(label("entry.summary", lang))
    w.prose(text.summary, indent="  ")
    w.heading(label("entry.example", lang))
    w.code(entry.example)
    w.heading(label("entry.causes", lang))
    w.bullets(text.causes)
    w.heading(label("entry.fixes", lang))
    w.bullets(text.fixes)
    w.heading(label("entry.debug", lang))
    w.bullets(text.debug)
    if entry.see_also:
        w.heading(f"{label('entry.see_also', lang)}: {', '.join(entry.see_also)}")
    w.heading(f"{label('entry.link', lang)}:")
    if entry.url:
        w.code(entry.url, indent="  ")
    else:
        w.prose(label(_NO_PAGE_LABELS[entry.origin], lang), indent="  ")
    return "\n".join(w.lines) + "\n"
