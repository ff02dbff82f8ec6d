"""Shared plumbing for subcommands: reading inputs, writing JSON."""

from __future__ import annotations

import os
import sys

from ...base.labels import FALLBACK, label

TYPE_CHECKING = False  # not typing's: `xladoctor shape` imports this module, and neither typing nor argparse
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1


def read_input(path: str) -> tuple[str, str]:
    """Return ``(text, source_name)`` for a path or ``-`` (stdin).

    Unreadable or non-UTF-8 files raise :class:`InputError` naming the file, so the
    CLI prints one line instead of a traceback.
    """
    from ...base.files import decode_text, read_path

    data, name = read_path(path)
    return decode_text(data, name), name


def refuse_stdin_twice(*paths: str | None) -> None:
    """A usage error when two inputs are both ``-``: the second read of stdin finds it empty, and
    was then refused as that input's content ("not StableHLO text", "empty input") (inputs said this)."""
    if sum(1 for p in paths if p == "-") > 1:
        from ...base.errors import UsageError

        raise UsageError("only one input can be read from stdin")


def print_json(obj: dict[str, Any], schema_version: int = SCHEMA_VERSION, schema: str | None = None,
               stream: bool = False) -> None:
    """Write one JSON document to stdout with ``schema_version`` first (each document's own, docs/json.md)
    and then ``$schema``, the ``$id`` of its schema file (``schema``: its name in
    ``xladoctor.findings.schema_files``), so a reader knows which file validates it.  ``stream``:
    written in pieces as it is made (:func:`xladoctor.base.json_plain.plain_stream`; the same bytes),
    for a document whose :class:`~xladoctor.base.json_plain.Streamed` lists are too large to hold
    as text (``hlo --json``'s instructions)."""
    head: dict[str, Any] = {"schema_version": schema_version}
    if schema is not None:
        # Lazy: loads no model or IR (findings/__init__ re-exports on first use).
        from ...findings.schema_files import schema_id

        head["$schema"] = schema_id(schema)
    if isinstance(obj.get("diagnostics"), dict):
        from ...findings.serialise import with_verdict

        obj = with_verdict(obj)
    doc = {**head, **obj}
    # One write, not json.dump's one per token: stdout is the terminal-safe stream (cli.main),
    # which checks each write for characters to escape.
    from ...base.escape import json_text  # a file name's non-UTF-8 bytes as \\xff text: the document stays UTF-8
    from ...base.json_plain import plain_dumps  # json.dumps' text without importing json (start-up, issue 36)

    if stream:
        from ...base.json_plain import plain_stream

        plain_stream(doc, lambda piece: sys.stdout.write(json_text(piece)))
        sys.stdout.write("\n")
        return
    plain = plain_dumps(doc)
    if plain is not None:
        sys.stdout.write(json_text(plain) + "\n")
        return
    spooled = [key for key, value in doc.items() if callable(getattr(value, "write_to", None))]
    if spooled:  # check's ``files``: the rest written as json would write it around the marker (h52s)
        plain = plain_dumps({**doc, spooled[0]: _SPOOLED})
        if plain is not None:
            _write_spooled(json_text(plain), plain_dumps(_SPOOLED) or "", doc[spooled[0]])
            return
    import json  # here: a value plain_dumps leaves to json (or a spool below the top level)

    spools: list[Any] = []
    text = json_text(json.dumps(doc, indent=2, ensure_ascii=False, default=_spooled(spools)))
    if not spools:
        sys.stdout.write(text + "\n")
        return
    _write_spooled(text, json.dumps(_SPOOLED), spools[0])


def _write_spooled(text: str, marker: str, spool: Any) -> None:
    """``text`` with the value held in a spool file (check's ``files``, route/folder_results.py)
    copied in where its ``marker`` (the JSON text of :data:`_SPOOLED`) stands."""
    before, after = text.split(marker, 1)
    sys.stdout.write(before)
    spool.write_to(sys.stdout)
    sys.stdout.write(after + "\n")


_SPOOLED = "\x00xladoctor-spooled\x00"


def _spooled(found: list[Any]) -> Any:
    """``json.dumps``' ``default``: a spool (an object with ``write_to``) stands as a marker string."""
    def default(o: Any) -> Any:
        if callable(getattr(o, "write_to", None)) and not found:
            found.append(o)
            return _SPOOLED
        raise TypeError(type(o).__name__)
    return default


def for_reader(text: str, lang: str, bidi: str, stream: Any = None) -> str:
    """A report of indented lines drawn for its reader: Persian in visual order (shaped, wrapped
    to the terminal's width) on a terminal, isolated in logical order for files (``--bidi``).
    ``stream`` is where it goes (stdout when None): stderr's lines are drawn for stderr's terminal."""
    if lang != "fa":
        return text
    from ...report.terminal_bidi import bidi_text

    tty = (sys.stdout if stream is None else stream).isatty()
    mode = bidi if bidi != "auto" else "visual" if tty else "logical"
    # On a terminal each line is wrapped to its width before it is reordered (explain's rule).
    width = terminal_columns() if mode == "visual" and tty else None
    return bidi_text(text, mode, width)


def terminal_columns(fallback: int = 80) -> int:
    """``shutil.get_terminal_size(fallback=(fallback, 24)).columns``, its rule written out: shutil imports
    bz2, lzma and fnmatch, a tenth of ``explain CODE``'s start-up (issue 36).  COLUMNS when a positive
    integer, else the width of the terminal on stdout, else ``fallback``."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = fallback
    return columns or fallback


def help_text(parser: Any, key: str, **values: Any) -> str:
    """Option help from the labels (``cli.*``), in the language the CLI chose for ``--help``; the
    key itself where the CLI knows no help will be printed (its ``help_lang`` is None)."""
    lang = getattr(parser, "help_lang", FALLBACK)
    return key if lang is None else label(key, lang, **values)


RULE_CHOICES = ("shipped", "unmerged-pr-36525")
"""The names of :data:`xladoctor.offload.rules.RULES`, spelled here so that building the
argument parser does not import the offload package (start-up time); a test keeps the two equal."""


def add_rule_arguments(parser: Any) -> None:
    """``--rule`` for commands that run the host-offload analysis (and the old ``--strict``)."""
    import argparse

    # Hidden from --help (still accepted): the unmerged variant is for XLA developers, and its
    # name cluttered every command's help; docs/json.md and CONTRIBUTING.md describe it.
    parser.add_argument("--rule", choices=RULE_CHOICES, default=RULE_CHOICES[0], help=argparse.SUPPRESS)
    # --strict named the shipped rule when the default was the unmerged one; kept so scripts keep working.
    parser.add_argument("--strict", dest="rule", action="store_const", const=RULE_CHOICES[0],
                        help=argparse.SUPPRESS)
