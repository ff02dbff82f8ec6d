"""Turn a catalogue entry into text for a terminal or a file, in English or Persian.

Kept apart from the data and from the CLI so the same layout serves
``xladoctor explain CODE`` and the per-finding explanations of a scanned log.
Persian prose goes through :mod:`.terminal_bidi`; code-like
material (the coded header, the example log message, URLs) stays
left-to-right in both languages because it is copied into searches and issues.
"""

from __future__ import annotations

import os
import textwrap

from ..catalogue.model import Entry
from .terminal_bidi import render_rtl

LABELS = {
    "en": {
        "category": "Category", "phase": "Phase", "backends": "Backends", "status": "Status",
        "summary": "What happened", "example": "Example message", "causes": "Causes",
        "fixes": "Fixes", "debug": "How to debug", "see_also": "See also", "link": "Documentation",
        "compile-time": "compile time", "runtime": "runtime", "any": "compile time or runtime",
        "aliases": "Also documented as",
        "no_page_xladoctor": "xladoctor's own grouping: XLA defines no such code and openxla.org has no page for it",
        "no_page_xla-draft": "only in an unmerged draft of XLA's error pages: XLA does not print this code and openxla.org has no page for it",
    },
    "fa": {
        "category": "دسته", "phase": "زمان", "backends": "بک‌اندها", "status": "وضعیت",
        "summary": "چه اتفاقی افتاد", "example": "نمونه پیام", "causes": "علت‌ها",
        "fixes": "راه‌حل‌ها", "debug": "اشکال‌زدایی", "see_also": "همچنین ببینید", "link": "مستندات",
        "compile-time": "زمان کامپایل", "runtime": "زمان اجرا", "any": "زمان کامپایل یا اجرا",
        "aliases": "نام دیگر در مستندات",
        "no_page_xladoctor": "دسته‌بندی خود xladoctor: XLA چنین کدی تعریف نکرده و openxla.org صفحه‌ای برای آن ندارد",
        "no_page_xla-draft": "فقط در پیش‌نویسی ادغام‌نشده از صفحه‌های خطای XLA: XLA این کد را چاپ نمی‌کند و openxla.org صفحه‌ای برای آن ندارد",
    },
}


def language_from_env(environ: os._Environ[str] | dict[str, str] | None = None) -> str:
    """'fa' when the POSIX locale (LC_ALL, then LC_MESSAGES, then LANG) is Persian, else 'en'."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            return "fa" if value.lower().startswith("fa") else "en"
    return "en"


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
            self.lines.extend(render_rtl(text, self.width, self.bidi, indent))
        else:
            self.lines.extend(textwrap.wrap(text, self.width, initial_indent=indent, subsequent_indent=indent,
                                            break_long_words=False, break_on_hyphens=False) or [""])

    def bullets(self, items: tuple[str, ...] | list[str], indent: str = "  ") -> None:
        for item in items:
            if self.rtl:
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
    label = LABELS[lang]
    text = entry.describe(lang)
    w.code(f"{entry.code}: {entry.name}", indent="")
    w.prose(text.title)
    w.blank()
    w.prose(f"{label['category']}: {text.category}")
    w.prose(f"{label['phase']}: {label[entry.phase]}")
    w.prose(f"{label['backends']}: {', '.join(entry.backends)}")
    w.prose(f"{label['status']}: {entry.status}")
    if entry.aliases:
        w.prose(f"{label['aliases']}: {', '.join(entry.aliases)}")
    w.heading(label["summary"])
    w.prose(text.summary, indent="  ")
    w.heading(label["example"])
    w.code(entry.example)
    w.heading(label["causes"])
    w.bullets(text.causes)
    w.heading(label["fixes"])
    w.bullets(text.fixes)
    w.heading(label["debug"])
    w.bullets(text.debug)
    if entry.see_also:
        w.heading(f"{label['see_also']}: {', '.join(entry.see_also)}")
    w.heading(f"{label['link']}:")
    if entry.url:
        w.code(entry.url, indent="  ")
    else:
        w.prose(label[f"no_page_{entry.origin}"], indent="  ")
    return "\n".join(w.lines) + "\n"
