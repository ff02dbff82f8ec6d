"""``--format text|json|sarif|github`` for the commands that report findings (check, offload, explain).

Why built on the JSON document: every machine format must say the same findings, so SARIF and
GitHub annotations are rendered from the document's ``diagnostics`` (the one serialiser's
output, read back with ``findings.from_json``), never from the text report or a second walk of
the analysis.  ``--json`` stays the alias of ``--format json``; after :func:`resolve_format`
``args.json`` is true for every machine format, so a command builds its document (and shows no
progress bar) exactly as for ``--json``, and :func:`emit_document` writes it in the format asked.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import UsageError
from ._common import SCHEMA_VERSION, help_text, print_json

FORMATS = ("text", "json", "sarif", "github")


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help=help_text(parser, "cli.format"))


def resolve_format(args: argparse.Namespace) -> None:
    """One format from ``--json`` and ``--format`` (refusing two different ones)."""
    fmt = getattr(args, "format", None)
    if getattr(args, "json", False) and fmt not in (None, "json"):
        raise UsageError(f"--json and --format {fmt} ask for two output formats; give one")
    args.format = "json" if getattr(args, "json", False) else (fmt or "text")
    args.json = args.format != "text"


def emit_document(doc: dict[str, Any], args: argparse.Namespace, schema_version: int = SCHEMA_VERSION,
                  schema: str | None = None) -> None:
    """Write the command's document as JSON (with its own ``schema_version``, docs/json.md), or its
    findings as SARIF or annotations."""
    fmt = getattr(args, "format", "json")
    if fmt not in ("sarif", "github"):
        print_json(doc, schema_version, schema)
        return
    from ..findings import Report, from_json

    report = from_json(doc["diagnostics"])
    assert isinstance(report, Report)
    if fmt == "sarif":
        from ..escape import json_text
        from ..report.sarif import render_sarif

        sys.stdout.write(json_text(json.dumps(render_sarif(report), indent=2, ensure_ascii=False)) + "\n")
    else:
        from ..report.github import render_github

        sys.stdout.write(render_github(report))
