"""``--format text|json|sarif|github|concise``, ``--statistics``, ``--select``/``--ignore`` for the
commands that report findings (check, offload, explain, inputs).

Why built on the JSON document: every machine format must say the same findings, so SARIF,
GitHub annotations and the concise list are rendered from the document's ``diagnostics`` (the
typed report the one serialiser wrote it from, carried with it in-process: findings/wire.py),
never from the text report or a second walk of the analysis.  ``--json`` stays the alias of ``--format json``; after
:func:`resolve_format` ``args.json`` is true for every format but the full text report, so a
command builds its document (and shows no progress bar) exactly as for ``--json``, and
:func:`emit_document` writes it in the format asked.  A selection (``--select``/``--ignore``, or
``[tool.xladoctor]`` in pyproject.toml, :mod:`._config`) filters the findings of every format
and the exit code; the full text report has no per-code filter, so with a selection the text
format prints the concise list.
"""

from __future__ import annotations

import sys

from ...base.errors import UsageError
from ...base.labels import label
from ._common import SCHEMA_VERSION, help_text, print_json, terminal_columns
from ._config import (
    apply_config,
    note_if_all_off,
    selected,
    split_codes,
)

TYPE_CHECKING = False  # not typing's: start-up (issue 36)
if TYPE_CHECKING:
    import argparse  # `offload FILE` and `check FILE` are read without it (cli/main.py PLAIN_COMMANDS)
    from typing import Any

FORMATS = ("text", "json", "sarif", "github", "concise")


def _codes(text: str) -> list[str]:
    return split_codes(text)


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help=help_text(parser, "cli.format"))
    parser.add_argument("--statistics", action="store_true", help=help_text(parser, "cli.statistics"))
    parser.add_argument("--color", "--colour", choices=("auto", "always", "never"), default="auto",
                        help=help_text(parser, "cli.color"))
    parser.add_argument("--select", type=_codes, action="extend", default=None, metavar="CODES",
                        help=help_text(parser, "cli.select"))
    parser.add_argument("--ignore", type=_codes, action="extend", default=None, metavar="CODES",
                        help=help_text(parser, "cli.ignore"))


def _first_path(args: argparse.Namespace) -> str:
    for name in ("paths", "file", "target", "expected"):
        value = getattr(args, name, None)
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, str):
            return value
    return "-"


def resolve_format(args: argparse.Namespace) -> None:
    """One format from ``--json``, ``--format`` and pyproject.toml (refusing two different ones)."""
    apply_config(args, _first_path(args))
    note_if_all_off(args)
    fmt = getattr(args, "format", None)
    if getattr(args, "json", False) and fmt not in (None, "json"):
        raise UsageError(label("status.two_formats", fmt=fmt))
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(label("status.unknown_format", fmt=fmt, formats=", ".join(FORMATS)))
    args.format = "json" if getattr(args, "json", False) else (fmt or "text")
    if args.format == "text" and (getattr(args, "statistics", False) or selecting(args)):
        args.format = "concise"
    args.json = args.format != "text"


def selecting(args: argparse.Namespace) -> bool:
    return getattr(args, "select", None) is not None or getattr(args, "ignore", None) is not None


def emit_document(doc: dict[str, Any], args: argparse.Namespace, schema_version: int = SCHEMA_VERSION,
                  schema: str | None = None) -> int | None:
    """Write the command's document as JSON (with its own ``schema_version``, docs/json.md), or its
    findings as SARIF, annotations, the concise list or statistics.  Returns the exit code the
    selected findings give when a selection is active (None: the command's own code stands)."""
    fmt = getattr(args, "format", "json")
    sel, ign = getattr(args, "select", None), getattr(args, "ignore", None)
    active = selecting(args)
    from ...base.plain_dataclass import fields_with  # a Report; lazy: `--help` builds arguments only
    from ...findings.wire import Diagnostics, load_document, report_of

    doc = load_document(doc)  # typed already when the command built it (this process)
    if active and isinstance(doc.get("diagnostics"), dict):
        diagnostics = doc["diagnostics"]
        keep = [selected(str(f.get("code")), sel, ign) for f in diagnostics.get("findings") or []]
        kept = [f for f, k in zip(diagnostics.get("findings") or [], keep) if k]
        aligned = tuple(x for x, k in zip(getattr(diagnostics, "aligned", ()), keep) if k)
        base = report_of(diagnostics)
        if base is not None:
            narrowed = type(base)(**fields_with(base, {"findings": tuple(x for x in aligned if x is not None)}))
            doc = {**doc, "diagnostics": Diagnostics({**diagnostics, "findings": kept}, narrowed, aligned)}
        else:
            doc = {**doc, "diagnostics": {**diagnostics, "findings": kept}}
        doc.pop("verdict", None)
    if fmt == "json" and not getattr(args, "statistics", False):
        print_json(doc, schema_version, schema)
        return _exit_code(doc) if active else None
    report = report_of(doc["diagnostics"])
    if report is None:
        raise ValueError("the document's diagnostics do not read as findings")
    if fmt == "sarif":
        import json  # here: text output never needs it

        from ...base.escape import json_text
        from ...report.sarif import render_sarif

        sys.stdout.write(json_text(json.dumps(render_sarif(report), indent=2, ensure_ascii=False)) + "\n")
    elif fmt == "github":
        from ...report.github import render_github

        sys.stdout.write(render_github(report))
    else:
        _write_painted(report, bool(getattr(args, "statistics", False)), getattr(args, "bidi", "auto"),
                       getattr(args, "color", "auto"))
    return _exit_code(doc) if active else None


def _write_painted(report: Any, statistics: bool, bidi: str = "auto", colour: str = "auto") -> None:
    """The concise list or the statistics, coloured on a terminal (NO_COLOR/FORCE_COLOR honoured),
    Persian drawn for its reader as the text report is (``--bidi``: visual on a terminal, wrapped
    to its width, else logical); the renderers escape every input-derived piece, so the text may
    bypass the escaping stream."""
    from ...report.colour import Painter, colour_enabled
    from ...report.concise import render_concise, render_statistics

    stream = getattr(sys.stdout, "controls", sys.stdout)
    paint = Painter(colour_enabled(stream, mode=colour))
    tty = sys.stdout.isatty()
    mode = bidi if bidi != "auto" else "visual" if tty else "logical"
    width = terminal_columns() if mode == "visual" and tty else None
    stream.write((render_statistics if statistics else render_concise)(report, paint, mode, width))
    stream.flush()


def _exit_code(doc: dict[str, Any]) -> int:
    """The selected findings' exit code: the typed report's own rule (``Report.exit_code``)."""
    from ...findings.wire import report_of

    report = report_of(doc.get("diagnostics"))
    if report is None:  # typed by load_document whenever the document has findings
        return 0
    return report.exit_code

