"""Shared plumbing for subcommands: reading inputs, writing JSON."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..errors import InputError

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
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as e:
        text = data[: e.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[e.start]:02x})", name, line, col) from None


def print_json(obj: dict[str, Any]) -> None:
    """Write one JSON document to stdout with ``schema_version`` first."""
    doc = {"schema_version": SCHEMA_VERSION, **obj}
    # One write, not json.dump's one per token: stdout is the terminal-safe stream (cli.main),
    # which checks each write for characters to escape.
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
