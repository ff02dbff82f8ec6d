"""``[tool.xladoctor]`` in ``pyproject.toml`` and ``--select``/``--ignore``, as ruff has them.

The configuration is found the way ruff finds its own: from the first checked path (or the
working directory for stdin) upwards, the first ``pyproject.toml`` that has a
``[tool.xladoctor]`` table.  Keys: ``select`` and ``ignore`` (lists of codes or code prefixes,
``"E12"`` selects E1200), ``format`` (the default ``--format``).  The command line wins over
the file: ``--select`` or ``--ignore`` there replaces the file's selection as a whole.  A bad file is one located line and exit 2, like any bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import InputError
from ..labels import label

KEYS = ("select", "ignore", "format")


def find_pyproject(start: str) -> str | None:
    """The nearest ``pyproject.toml`` with a ``[tool.xladoctor]`` table, from ``start`` up."""
    here = os.path.abspath(start if start and start != "-" else os.getcwd())
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate) and _table(candidate) is not None:
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _table(path: str) -> dict[str, Any] | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InputError(label("config.unreadable", why=str(e)), path, 1, 1) from None
    table = doc.get("tool", {}).get("xladoctor")
    return table if isinstance(table, dict) else None


def _codes(value: Any, key: str, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(label("config.not_codes", key=key), path, 1, 1)
    return [v.strip().upper() for v in value if v.strip()]


def apply_config(args: argparse.Namespace, first_path: str) -> None:
    """Fill ``args.select``/``ignore``/``format`` from the nearest ``[tool.xladoctor]`` where the
    command line left them unset."""
    path = find_pyproject(first_path)
    table = _table(path) if path else None
    if not table or path is None:
        return
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise InputError(label("config.unknown_key", keys=", ".join(unknown), known=", ".join(KEYS)), path, 1, 1)
    on_command_line = any(getattr(args, key, None) is not None for key in ("select", "ignore"))
    for key in ("select", "ignore"):  # a selection on the command line replaces the file's whole
        if key in table:
            codes = _codes(table[key], key, path)
            if not on_command_line:
                setattr(args, key, codes)
    if getattr(args, "format", None) is None and not getattr(args, "json", False) and "format" in table:
        args.format = str(table["format"])


def selected(code: str, select: list[str] | None, ignore: list[str] | None) -> bool:
    """Whether a finding with ``code`` is reported: a prefix in ``select`` (all when None) and none
    in ``ignore``; the longer matching prefix wins, ``ignore`` on a tie, as ruff decides."""
    code = code.upper()
    chosen = max((len(p) for p in select if code.startswith(p)), default=-1) if select is not None else 0
    dropped = max((len(p) for p in (ignore or ()) if code.startswith(p)), default=-1)
    return chosen >= 0 and chosen > dropped  # an ignore as specific as the select wins


def split_codes(text: str) -> list[str]:
    """``--select E1200,E01`` (commas or repeats)."""
    return [c.strip().upper() for c in text.split(",") if c.strip()]
