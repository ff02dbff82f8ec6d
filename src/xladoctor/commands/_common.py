"""Shared plumbing for subcommands: reading inputs, writing JSON."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import InputError, UnboundedSizeError

SCHEMA_VERSION = 1


def read_input(path: str) -> tuple[str, str]:
    """Return ``(text, source_name)`` for a path or ``-`` (stdin).

    Unreadable or non-UTF-8 files raise :class:`InputError` naming the file, so the
    CLI prints one line instead of a traceback.
    """
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        name = path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except IsADirectoryError:
            raise InputError("is a directory, expected a file", name, 1, 1) from None
        except OSError as e:
            raise InputError(f"cannot read file: {e.strerror or e}", name, 1, 1) from None
    return decode_text(data, name), name


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text, or :class:`InputError` at the line and column of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data[: e.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x})", name, line, col) from None


_UNBOUNDED_DIM = re.compile(r"\[[^\]\n]*?(\?)")


@contextmanager
def located(text: str, source: str) -> Iterator[None]:
    """Errors about a shape of ``text`` (an unbounded ``?`` dimension has no byte size)
    become ``source:line:col:`` errors at the first ``?`` dimension, like parse errors."""
    try:
        yield
    except UnboundedSizeError as e:
        m = _UNBOUNDED_DIM.search(text)
        raise InputError.at(str(e), text, m.start(1) if m else 0, source) from None


def print_json(obj: dict[str, Any], schema_version: int = SCHEMA_VERSION) -> None:
    """Write one JSON document to stdout with ``schema_version`` first (each document's own, docs/json.md)."""
    doc = {"schema_version": schema_version, **obj}
    # One write, not json.dump's one per token: stdout is the terminal-safe stream (cli.main),
    # which checks each write for characters to escape.
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


RULE_CHOICES = ("shipped", "unmerged-pr-36525")
"""The names of :data:`xladoctor.offload.rules.RULES`, spelled here so that building the
argument parser does not import the offload package (start-up time); a test keeps the two equal."""


def add_rule_arguments(parser: Any) -> None:
    """``--rule`` for commands that run the host-offload analysis (and the old ``--strict``)."""
    parser.add_argument("--rule", choices=RULE_CHOICES, default=RULE_CHOICES[0],
                        help="host-offload rule: 'shipped' (default) is released XLA (libtpu 0.0.42.1, jaxlib "
                             "0.10.2): a host tensor reaching any non-host output is E1200; 'unmerged-pr-36525' is "
                             "the never-merged variant that moves an untiled output to host instead")
    # --strict named the shipped rule when the default was the unmerged one; kept so scripts keep working.
    parser.add_argument("--strict", dest="rule", action="store_const", const=RULE_CHOICES[0],
                        help=argparse.SUPPRESS)
