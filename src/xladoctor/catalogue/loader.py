"""Read and validate ``catalogue/data/*.toml``; the index is the directory itself.

Why validate at load time: the data files are edited by hand in two languages,
and a missing key or a bad regex should fail loudly in tests and at start-up,
not show up as a blank line in front of a user.  A file whose bytes are those the
shipped :mod:`.catalogue_data` was made from was validated when it was made
(:mod:`.generate`) and is taken from there; any other is read and validated here.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from functools import lru_cache

from ..base.errors import InputError
from . import plain_toml
from .data_files import DATA, _data_files, file_crc, read_bytes
from .model import LANGUAGES, LIST_TEXT_FIELDS, ORIGINS, PHASES, TEXT_FIELDS, Entry, EntryText

TYPE_CHECKING = False  # not typing's: `explain CODE` imports this module (issue 36, start-up)
if TYPE_CHECKING:
    from types import ModuleType

REQUIRED = ("code", "name", "status", "phase", "backends", "url", "patterns", "example")
OPTIONAL = ("see_also", "aliases", "family", "generic", "origin")
_CODE_RE = r"^[EC]\d{4}$|^E\d{2}xx$|^E\dxxx$"  # compiled (and kept by re) when a file is read


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Compile a catalogue pattern: each literal space matches any whitespace run.

    Messages are wrapped by terminals, tracebacks and log viewers at arbitrary
    spaces; writing patterns with plain spaces keeps the data readable.
    """
    return re.compile(re.sub(r"(?<!\\) ", r"\\s+", pattern))


def _entry_from_toml(doc: dict, source: str, compile_now: bool = True) -> Entry:
    missing = [k for k in REQUIRED if k not in doc]
    if missing:
        raise InputError(f"missing field(s): {', '.join(missing)}", source)
    unknown = set(doc) - set(REQUIRED) - set(OPTIONAL) - set(LANGUAGES)
    if unknown:
        raise InputError(f"unknown field(s): {', '.join(sorted(unknown))}", source)
    if doc["phase"] not in PHASES:
        raise InputError(f"phase must be one of {PHASES}, got {doc['phase']!r}", source)
    origin = doc.get("origin", "xla")
    if origin not in ORIGINS:
        raise InputError(f"origin must be one of {ORIGINS}, got {origin!r}", source)
    # Only XLA's own codes link to openxla.org; a draft or our own family has no page there.
    if origin == "xla" and not str(doc["url"]).startswith("https://openxla.org/xla/errors/"):
        raise InputError("an XLA code needs its openxla.org page as url", source)
    if origin != "xla" and doc["url"]:
        raise InputError(f"url must be empty: openxla.org has no page for a code of origin {origin!r}", source)
    text: dict[str, EntryText] = {}
    for lang in LANGUAGES:
        table = doc.get(lang)
        if not isinstance(table, dict):
            raise InputError(f"missing [{lang}] table", source)
        keys = set(table)
        if keys != set(TEXT_FIELDS):
            raise InputError(
                f"[{lang}] keys differ from {sorted(TEXT_FIELDS)}: "
                f"missing {sorted(set(TEXT_FIELDS) - keys)}, extra {sorted(keys - set(TEXT_FIELDS))}", source)
        for key in TEXT_FIELDS:
            value = table[key]
            if key in LIST_TEXT_FIELDS:
                if not (isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value)):
                    raise InputError(f"[{lang}].{key} must be a non-empty list of strings", source)
            elif not (isinstance(value, str) and value.strip()):
                raise InputError(f"[{lang}].{key} must be a non-empty string", source)
        text[lang] = EntryText(
            title=table["title"], category=table["category"], summary=table["summary"],
            causes=tuple(table["causes"]), fixes=tuple(table["fixes"]), debug=tuple(table["debug"]))
    entry = Entry(
        code=doc["code"], name=doc["name"], status=doc["status"], phase=doc["phase"],
        backends=tuple(doc["backends"]), url=doc["url"], patterns=tuple(doc["patterns"]),
        example=doc["example"].strip("\n"), text=text, see_also=tuple(doc.get("see_also", ())),
        aliases=tuple(doc.get("aliases", ())), family=bool(doc.get("family", False)),
        generic=bool(doc.get("generic", False)), origin=origin)
    if compile_now:
        try:
            entry.matchers  # noqa: B018 - compiled here, so a bad pattern is refused with its file
        except re.error as e:
            raise InputError(f"bad pattern: {e}", source) from None
    return entry


class Catalogue:
    """All entries, keyed by code, in code order."""

    __slots__ = ("entries",)

    def __init__(self, entries: dict[str, Entry]) -> None:
        self.entries = entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, code: object) -> bool:
        return code in self.entries

    def get(self, code: str) -> Entry | None:
        """Entry for a code written any way users write it (``E1200``, ``1200``, ``e1200``, aliases)."""
        norm = normalize_code(code)
        if norm is None:
            return None
        if norm in self.entries:
            return self.entries[norm]
        for entry in self.entries.values():
            if norm in entry.aliases:
                return entry
        # A concrete member of a family: E0312 -> E03xx, E2105 -> E2xxx.
        for entry in self.entries.values():
            if entry.family and re.fullmatch(entry.code.replace("x", r"\d"), norm):
                return entry
        return None

    def nearest(self, code: str, n: int = 3) -> list[str]:
        """Codes closest to a mistyped one, for the one-line 'unknown code' error."""
        norm = normalize_code(code)
        if norm is None:
            import difflib

            return difflib.get_close_matches(code.strip().upper(), list(self.entries), n=n, cutoff=0.0)
        target = _code_value(norm)
        return sorted(self.entries, key=lambda c: (abs(_code_value(c) - target), c))[:n]


def normalize_code(text: str) -> str | None:
    """``'e1200'``, ``'1200'``, ``' E1200 '`` -> ``'E1200'``; ``'e03XX'`` -> ``'E03xx'``; else None."""
    t = text.strip()
    if re.fullmatch(r"[cC]\d{4}", t):  # XLA's draft C-codes (C0432) keep their letter
        return "C" + t[1:]
    if t[:1] in ("e", "E"):
        t = t[1:]
    t = t.lower()
    if re.fullmatch(r"\d{4}|\d{2}xx|\dxxx", t):
        return "E" + t
    return None


def _code_value(code: str) -> int:
    """Numeric value of a code for 'nearest' ranking; family digits count as 0."""
    return int(code[1:].replace("x", "0")) + (100_000 if code.startswith("C") else 0)


def filed_codes() -> list[str]:
    """Every code the catalogue files, from its files' names (none is read)."""
    return sorted(name[:-5] for name in os.listdir(DATA) if name.endswith(".toml"))


def _toml() -> ModuleType:
    """tomllib, imported when a catalogue file is read (not by a command that reads none)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib


def load_entries_from(files: list[tuple[str, bytes]], packaged: bool = False) -> Catalogue:
    """Build a catalogue from ``(file name, bytes)`` pairs; the name must be ``<CODE>.toml``.

    ``packaged``: a file whose bytes are those :mod:`.catalogue_data` was made from (its CRC-32) is
    taken from there, parsed and validated when it was made (no TOML to read, ~10 ms of a start-up
    that reads the catalogue), its patterns compiled when first used; any other file is read and
    validated here, patterns and all."""
    known = _packaged_docs() if packaged else {}
    entries: dict[str, Entry] = {}
    for name, data in files:
        source = f"catalogue/data/{name}"
        found = known.get(name)
        if found is not None and found[0] == file_crc(data):
            doc, checked = found[1], True
        else:
            doc, checked = _read_toml(data, source), False
        entry = _entry_from_toml(doc, source, compile_now=not checked)
        if not re.match(_CODE_RE, entry.code):
            raise InputError(f"bad code {entry.code!r}", source)
        if name != f"{entry.code}.toml":
            raise InputError(f"file name must be {entry.code}.toml", source)
        entries[entry.code] = entry
    return Catalogue(dict(sorted(entries.items())))


def _read_toml(data: bytes, source: str) -> dict:
    """One file's TOML: the catalogue's part of it read by :mod:`plain_toml`, anything else (and every
    error's message) by tomllib, imported only then."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not valid TOML: {e}", source) from None
    doc = plain_toml.loads(text)
    if doc is not None:
        return doc
    tomllib = _toml()
    try:
        parsed: dict = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML: {e}", source) from None
    return parsed


def _packaged_docs() -> dict[str, tuple[int, dict]]:
    from .catalogue_data import FILES

    return FILES


@lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    """The packaged catalogue, read once per process."""
    return load_entries_from(_data_files(), packaged=True)


def find_entry(code: str) -> tuple[Entry | None, Catalogue | None]:
    """The entry :meth:`Catalogue.get` gives for ``code``, and the whole catalogue where it had to be read.

    A code written as it is filed (``E1200``, ``e1200``, ``1200``) is the one file ``data/E1200.toml``,
    read and validated alone (``explain E1200`` need not read 31 files); an alias, a family member
    (``E0312`` -> ``E03xx``) or an unknown code reads the whole catalogue, as before."""
    norm = normalize_code(code)
    if norm is not None and load_catalogue.cache_info().currsize == 0:
        name = f"{norm}.toml"
        try:
            data = read_bytes(os.path.join(DATA, name))
        except OSError:
            pass
        else:
            return load_entries_from([(name, data)], packaged=True).entries[norm], None
    cat = load_catalogue()
    return cat.get(code), cat
