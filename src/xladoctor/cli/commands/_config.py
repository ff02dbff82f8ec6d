"""``[tool.xladoctor]`` in ``pyproject.toml`` (or ``xladoctor.toml``) and ``--select``/``--ignore``, as ruff has them.

The configuration is found the way ruff finds its own: from the first checked path (or the
working directory for stdin) upwards, in each folder ``xladoctor.toml`` (the whole file is the
table) and then ``pyproject.toml`` if it has a ``[tool.xladoctor]`` table; the first found is the
one.  Keys: ``select`` and ``ignore`` (lists of codes or code prefixes, ``"E12"`` selects E1200),
``format`` (the default ``--format``).  The command line wins over the file: ``--select`` or
``--ignore`` there replaces the file's selection as a whole.

Read whole or refuse: a file over :data:`MAX_CONFIG_BYTES` is refused from its size before it is
read; bad TOML, a ``tool`` or ``tool.xladoctor`` that is not a table, an unknown key, a value of
the wrong type and a code no finding can have (``E9999``; on the command line too) are each one
located line and exit 2.  A selection that leaves no code on is said on stderr
(:func:`note_if_all_off`), never silent.
"""

from __future__ import annotations

import os
import sys

from ...base.errors import InputError, UsageError
from ...base.labels import label, language_from_env

TYPE_CHECKING = False  # not typing's: start-up (issue 36)
if TYPE_CHECKING:
    import argparse  # `offload FILE` and `check FILE` are read without it (cli/main.py PLAIN_COMMANDS)
    from typing import Any

KEYS = ("select", "ignore", "format")
FILES = ("xladoctor.toml", "pyproject.toml")
MAX_CONFIG_BYTES = 1 << 20
"""The largest configuration file read (real ones are a few hundred bytes)."""


def find_config(start: str) -> tuple[str, dict[str, Any]] | None:
    """The nearest configuration from ``start`` up: its path and its ``[tool.xladoctor]`` table."""
    here = os.path.abspath(start if start and start != "-" else os.getcwd())
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        for name in FILES:
            candidate = os.path.join(here, name)
            if not os.path.isfile(candidate) and os.path.lexists(candidate):
                # a configuration that cannot be read is refused, not passed over: its `ignore` would
                # be dropped in silence (a symlink to /dev/zero, a dangling one, a FIFO, a folder)
                raise InputError(label("config.unreadable", why=_not_a_file(candidate)), candidate, 1, 1)
            if os.path.isfile(candidate):
                table = _table(candidate)
                if table is not None:
                    return candidate, table
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _not_a_file(path: str) -> str:
    from ...base.files import mode_kind

    try:
        kind = mode_kind(os.stat(path).st_mode)
    except OSError as e:  # a dangling symlink, a symlink loop
        return f"{e.strerror or e}" + (" (a symlink)" if os.path.islink(path) else "")
    return f"is a {kind}, not a file"


def _load(path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    from ...base.files import read_path

    data, _ = read_path(path, MAX_CONFIG_BYTES, label("config.too_big"))
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise InputError(label("config.unreadable", why=f"not UTF-8 text (byte {e.start})"), path, 1, 1) from None
    except RecursionError:  # tomllib recurses per nested array or inline table: `x = [[[[...` 1,000 deep
        raise InputError(label("config.unreadable", why="arrays or inline tables nested too deeply"),
                         path, 1, 1) from None
    except tomllib.TOMLDecodeError as e:
        import re  # here and below: every command with findings imports this module (re: ~25M instructions)

        toml_at = re.compile(r"\(at line (\d+), column (\d+)\)")  # for a bad file only (and kept by re)
        at = toml_at.search(str(e))
        line, col = (int(at.group(1)), int(at.group(2))) if at else (1, 1)
        why = toml_at.sub("", str(e)).strip()
        raise InputError(label("config.unreadable", why=why), path, line, col) from None
    except ValueError as e:  # an integer past int()'s 4,300 digits (`jobs = 999...`): tomllib lets it through
        raise InputError(label("config.unreadable", why=str(e).split(";")[0]), path, 1, 1) from None


def _table(path: str) -> dict[str, Any] | None:
    doc = _load(path)
    if os.path.basename(path) == "xladoctor.toml":
        return doc
    tool = doc.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise InputError(label("config.not_table", key="tool"), path, 1, 1)
    table = tool.get("xladoctor")
    if table is not None and not isinstance(table, dict):
        raise InputError(label("config.not_table", key="tool.xladoctor"), path, 1, 1)
    return table


def known_codes() -> list[str]:
    """Every code a finding can have: the catalogue's files' names (read without parsing them)."""
    from ...catalogue.loader import filed_codes

    return filed_codes()


def unknown_codes(codes: list[str]) -> list[str]:
    """The codes and prefixes in ``codes`` that select no finding (``E9999``, ``X1``).  None given
    (no --select/--ignore, the common run): the catalogue is not imported to list its codes."""
    if not codes:
        return []
    import re

    known = [k.upper() for k in known_codes()]

    def fits(code: str) -> bool:  # a prefix of a code, or a member of a family (E0312 of E03xx)
        return any(k.startswith(code) or (len(code) == len(k) and re.fullmatch(k.replace("X", r"\d"), code))
                   for k in known)
    return [c for c in codes if not fits(c)]


def _codes(value: Any, key: str, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(label("config.not_codes", key=key), path, 1, 1)
    codes = [v.strip().upper() for v in value if v.strip()]
    bad = unknown_codes(codes)
    if bad:
        raise InputError(label("config.unknown_codes", key=key, codes=", ".join(bad)), path, 1, 1)
    return codes


def apply_config(args: argparse.Namespace, first_path: str) -> None:
    """Check ``--select``/``--ignore`` and fill them and ``--format`` from the nearest configuration
    where the command line left them unset; ``args.config_path`` names the file that set them."""
    for key in ("select", "ignore"):
        bad = unknown_codes(getattr(args, key, None) or [])
        if bad:
            raise UsageError(label("config.unknown_option_codes", option=f"--{key}", codes=", ".join(bad)))
    args.config_path = None
    found = find_config(first_path)
    if found is None:
        return
    path, table = found
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise InputError(label("config.unknown_key", keys=", ".join(unknown), known=", ".join(KEYS)), path, 1, 1)
    on_command_line = any(getattr(args, key, None) is not None for key in ("select", "ignore"))
    for key in ("select", "ignore"):  # a selection on the command line replaces the file's whole
        if key in table:
            codes = _codes(table[key], key, path)
            if not on_command_line:
                setattr(args, key, codes)
                args.config_path = path
    if "format" in table and not isinstance(table["format"], str):
        raise InputError(label("config.not_text", key="format"), path, 1, 1)
    from ._format import FORMATS  # lazy: _format imports this module

    if "format" in table and table["format"] not in FORMATS:
        raise InputError(label("config.unknown_format", fmt=table["format"], formats=", ".join(FORMATS)), path, 1, 1)
    if getattr(args, "format", None) is None and not getattr(args, "json", False) and "format" in table:
        args.format = table["format"]


def note_if_all_off(args: argparse.Namespace) -> None:
    """One line on stderr when the selection leaves no XLA error code (``E``) on (``ignore = ["E"]``):
    an empty report would otherwise read as a clean one."""
    sel, ign = getattr(args, "select", None), getattr(args, "ignore", None)
    if sel is None and ign is None:
        return
    left = [code for code in known_codes() if selected(code, sel, ign)]
    if any(code.startswith("E") for code in left):  # XLA's error codes; C0432 is a draft code
        return
    where = getattr(args, "config_path", None)
    on = ", ".join(left) or "-"
    lang = getattr(args, "lang", None) or language_from_env()  # the report's language (it was always English)
    text = label("config.all_off_in", lang, path=where, left=on) if where else label("config.all_off", lang, left=on)
    print(text, file=sys.stderr)


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
