"""The words xladoctor shows people, kept as data: one TOML file per language (``en.toml``, ``fa.toml``).

Why data and not Python: a translator edits one file per language and never opens code, and a
test can see every key, every placeholder and every use at once (tests/test_labels.py).  Keys
are stable dotted ids (``html.summary``, ``e0102.note.order``); the top-level table is the area
of the code that shows the text.  Values are ``str.format_map`` templates: ``{name}`` is a value
filled in by the code, ``{{`` and ``}}`` are literal braces.

A key missing in a language falls back to English, so a half-translated language still renders;
a key missing in English is a bug and raises ``KeyError``.

XLA's own messages (what the compiler and runtime print, matched byte for byte) are not labels:
they stay with the code that models them.

This module is data at the bottom of the layers: it imports nothing of xladoctor (``reader``, which
reads and checks a label file, imports ``errors``).  It looks words up; the files are read by
:mod:`.reader`, and the areas the fastest commands show (``shape``) come already read from
:mod:`.precomputed`, generated from the files (tests/test_labels.py checks it equals them).
"""

from __future__ import annotations

import os
from _operator import itemgetter  # operator's own: ``operator`` (Python) only re-exports it (start-up)
from _string import formatter_parser  # type: ignore[import-not-found]  # string.Formatter().parse, without string

TYPE_CHECKING = False  # not typing's: a third of a bare interpreter's start-up (issue 36)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, NamedTuple

    class _TextFields(NamedTuple):
        key: str
        values: tuple[tuple[str, Any], ...] = ()
else:  # the same fields, without typing, and written out: collections.namedtuple execs a class's code, ~0.13 ms
    # of every command's start-up (issue 36 item 5).  tests/test_startup.py checks the fields agree with the
    # NamedTuple above, and tests/test_labels.py that it behaves as namedtuple's (repr, pickle, defaults).
    class _TextTuple(tuple):
        __slots__ = ()
        _fields = ("key", "values")
        _field_defaults = {"values": ()}  # noqa: RUF012  # a dict, as namedtuple's
        __match_args__ = ("key", "values")

        def __new__(cls, key, values=()):
            return tuple.__new__(cls, (key, values))

        def __getnewargs__(self):
            return tuple(self)

        def __repr__(self):
            return f"{self.__class__.__name__}(key={self[0]!r}, values={self[1]!r})"

        key = property(itemgetter(0), doc="Alias for field number 0")
        values = property(itemgetter(1), doc="Alias for field number 1")

    _TextTuple.__name__ = _TextTuple.__qualname__ = "Text"
    _TextFields = _TextTuple

LANGUAGES = ("en", "fa")
FALLBACK = "en"


class Text(_TextFields):
    """A label not yet put into words: the ``key`` and its ``values`` (name and value pairs), rendered
    later in the reader's language.

    Analyses run before anyone knows the language (a scanned log is rendered as text, JSON or HTML,
    in English or Persian); they return ``Text`` values, and each renderer calls :meth:`render`.
    A value may itself be a ``Text`` (a word that is translated too, e.g. which side of a mismatch).
    """

    __slots__ = ()

    def render(self, lang: str) -> str:
        return label(self.key, lang, **dict(self.values))


def text(key: str, **values: Any) -> Text:
    """A :class:`Text` for ``key`` with ``values`` (kept in call order, so equal calls are equal)."""
    return Text(key, tuple(values.items()))


def render(value: Any, lang: str) -> Any:
    """``value`` in words if it is a :class:`Text`, else unchanged."""
    return value.render(lang) if isinstance(value, Text) else value


def localize(value: Any, lang: str) -> Any:
    """``value`` with every :class:`Text` inside dicts, lists and tuples put into words in ``lang``."""
    if isinstance(value, Text):
        return value.render(lang)
    if isinstance(value, dict):
        return {k: localize(v, lang) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [localize(v, lang) for v in value]
    return value


class Said(str):
    """A label put into English words that remembers its key and values, so that a renderer
    which knows its reader's language can say it again in that language (:func:`in_lang`).

    Why: an analysis that runs before anyone knows the language (a module's warnings, the
    failures predicted for passes after HostOffloader) returns sentences, and they stayed
    English under ``--lang fa``.  A ``Said`` is a ``str`` in every other respect (JSON,
    comparison, pickling to a worker and back), so the documents do not change."""

    key: str
    values: dict[str, Any]


_SAYABLE = (str, int, float, bool, type(None), Text)


def label(key: str, lang: str = FALLBACK, /, **values: Any) -> str:
    """The text for ``key`` in ``lang`` (else English), with ``values`` filled in.

    Values that are :class:`Text` or :class:`Said` are put in the same language first.  English text is a
    :class:`Said` (when its values are plain), which :func:`in_lang` can translate later.
    """
    area = key.partition(".")[0]
    template = area_labels(lang, area).get(key)
    if template is None:
        template = area_labels(FALLBACK, area)[key]  # KeyError: a key used in code but defined nowhere
    # A value that is itself an English label is said again in ``lang`` (a dropped offload's reason).
    filled = {k: render(in_lang(v, lang), lang) for k, v in values.items()}
    words = template.format_map(filled)
    if lang != FALLBACK or not all(isinstance(v, _SAYABLE) for v in values.values()):
        return words
    said = Said(words)
    said.key, said.values = key, values
    return said


def in_lang(value: Any, lang: str) -> Any:
    """``value`` said in ``lang`` when it is an English label (:class:`Said`, its values too), else
    unchanged: XLA's own messages, read from its output, stay as XLA wrote them."""
    if lang == FALLBACK or not isinstance(value, Said):
        return value
    return label(value.key, lang, **{k: in_lang(v, lang) for k, v in value.values.items()})


def plural(n: int, one: str, other: str, lang: str = FALLBACK, /, **values: Any) -> str:
    """``label(one)`` when ``n`` is 1, else ``label(other)``, with ``{n}`` filled in as ``1,024``.

    Two keys, not a rule: a language without a plural noun (Persian) gives both the same words.
    """
    return label(one if n == 1 else other, lang, n=f"{n:,}", **values)


def language_from_env(environ: Mapping[str, str] | None = None) -> str:
    """'fa' when the POSIX locale (LC_ALL, then LC_MESSAGES, then LANG) is Persian, else 'en'.

    The reader's language when no ``--lang`` names it: the same rule for a command's output and
    for its ``--help`` (the CLI asks before any command is imported, so it lives here, at the bottom).
    """
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            return "fa" if value.lower().startswith("fa") else "en"
    return FALLBACK


# What was read, kept for the process: dicts, not ``functools.cache`` (functools imports collections,
# operator, reprlib...: `xladoctor shape` imports neither it nor ``re``; issue 36 item 5).
_LABELS: dict[str, dict[str, str]] = {}
_AREAS: dict[tuple[str, str], dict[str, str]] = {}


def labels(lang: str) -> dict[str, str]:
    """Every label of one language, flat dotted keys; read once per process.  Unknown language: empty."""
    if lang not in LANGUAGES:
        return {}
    table = _LABELS.get(lang)
    if table is None:
        from .reader import read_labels

        table = _LABELS[lang] = read_labels(lang)
    return table


def area_labels(lang: str, area: str) -> dict[str, str]:
    """The labels of one area (``cli``, ``shape``...) of one language: only its tables are parsed.

    Why: a command shows the words of one or two areas, and parsing a whole label file with the
    pure-Python ``tomllib`` was a tenth of ``xladoctor shape``'s start-up.  The file is cut at its
    table headers as it is read (:func:`.reader.read_area`); the ``shape`` area is not read at all
    but imported from :mod:`.precomputed` (reading it was ~0.65 ms of ~10 over a bare start).
    Unknown language: empty.
    """
    table = _AREAS.get((lang, area))
    if table is None:
        table = _AREAS[lang, area] = _area_table(lang, area)
    return table


def _area_table(lang: str, area: str) -> dict[str, str]:
    if lang not in LANGUAGES:
        return {}
    from . import precomputed

    if area in precomputed.AREAS:
        return dict(precomputed.TABLES[lang, area])  # a copy: a caller may not change the generated module
    from .reader import read_area

    return read_area(lang, area)


def placeholders(template: str) -> frozenset[str]:
    """The ``{names}`` a template fills in (what every language's version of a key must agree on)."""
    return frozenset(field for _, field, _, _ in formatter_parser(template) if field is not None)


__all__ = ["FALLBACK", "LANGUAGES", "Text", "area_labels", "label", "labels", "language_from_env", "localize", "placeholders", "plural", "render",
           "text"]
