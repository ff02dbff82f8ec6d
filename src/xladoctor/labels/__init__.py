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

This module is data at the bottom of the layers: it imports nothing of xladoctor but ``errors``.
"""

from __future__ import annotations

import os
import string
import sys
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from ..errors import InputError

LANGUAGES = ("en", "fa")
FALLBACK = "en"


class Text(NamedTuple):
    """A label not yet put into words: the key and its values, rendered later in the reader's language.

    Analyses run before anyone knows the language (a scanned log is rendered as text, JSON or HTML,
    in English or Persian); they return ``Text`` values, and each renderer calls :meth:`render`.
    A value may itself be a ``Text`` (a word that is translated too, e.g. which side of a mismatch).
    """

    key: str
    values: tuple[tuple[str, Any], ...] = ()

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


def label(key: str, lang: str = FALLBACK, /, **values: Any) -> str:
    """The text for ``key`` in ``lang`` (else English), with ``values`` filled in.

    Values that are :class:`Text` are rendered in the same language first.
    """
    table = labels(lang)
    template = table.get(key)
    if template is None:
        template = labels(FALLBACK)[key]  # KeyError: a key used in code but defined nowhere
    filled = {k: render(v, lang) for k, v in values.items()}
    return template.format_map(filled)


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


@cache
def labels(lang: str) -> dict[str, str]:
    """Every label of one language, flat dotted keys; read once per process.  Unknown language: empty."""
    if lang not in LANGUAGES:
        return {}
    name = f"{lang}.toml"
    data = (resources.files(__package__) / name).read_bytes()
    return parse_labels(data, f"labels/{name}")


def parse_labels(data: bytes, source: str) -> dict[str, str]:
    """Flatten one label file (nested tables -> ``a.b.c`` keys); every leaf must be a string template."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"not valid TOML: {e}", source) from None
    flat: dict[str, str] = {}
    _flatten(doc, "", flat, source)
    return flat


def _flatten(table: dict[str, Any], prefix: str, out: dict[str, str], source: str) -> None:
    for key, value in table.items():
        full = prefix + key
        if isinstance(value, dict):
            _flatten(value, full + ".", out, source)
        elif isinstance(value, str):
            try:
                placeholders(value)
            except ValueError as e:
                raise InputError(f"{full}: bad template: {e}", source) from None
            out[full] = value
        else:
            raise InputError(f"{full}: must be a string, got {type(value).__name__}", source)


def placeholders(template: str) -> frozenset[str]:
    """The ``{names}`` a template fills in (what every language's version of a key must agree on)."""
    return frozenset(field for _, field, _, _ in string.Formatter().parse(template) if field is not None)


__all__ = ["FALLBACK", "LANGUAGES", "Text", "label", "labels", "language_from_env", "localize", "parse_labels", "placeholders", "plural", "render",
           "text"]
