"""``xladoctor explain CODE|FILE|-``: explain an XLA error code, or find and explain every XLA error in a log.

``CODE`` (``E1200``, ``1200``, ``e1200``) prints the catalogue entry, like
``rustc --explain``.  A file (or ``-`` for stdin) is scanned line by line in
bounded memory; each distinct error is reported once with its count, the
fields parsed from the message, an analysis (recomputed sizes for E0102, the
offload path for E1200 with ``--hlo``) and the fixes.  An existing path always
wins over a code, so a file named ``1200`` is scanned, not looked up.
"""

from __future__ import annotations

import os
import sys

from ...base.errors import InputError, UsageError
from ...base.labels import LANGUAGES, label, language_from_env
from ._common import for_reader, help_text, print_json, terminal_columns
from ._format import add_format_argument, emit_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse  # `explain LOG` is read without it (cli/main.py PLAIN_COMMANDS)
    from typing import BinaryIO

NAME = "explain"
HELP = "cli.explain.help"
ORDER = 30
DESCRIPTION = "cli.explain.description"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="CODE|FILE|-", nargs="?",
                        help=help_text(parser, "cli.explain.target"))
    parser.add_argument("--list", action="store_true", help=help_text(parser, "cli.explain.list"))
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help=help_text(parser, "cli.explain.lang"))
    parser.add_argument("--bidi", choices=("auto", "visual", "logical"), default="auto",
                        help=help_text(parser, "cli.explain.bidi"))
    parser.add_argument("--width", type=int, default=None, help=help_text(parser, "cli.explain.width"))
    parser.add_argument("--hlo", metavar="MODULE", default=None,
                        help=help_text(parser, "cli.explain.hlo"))
    parser.add_argument("--json", action="store_true", help=help_text(parser, "cli.json"))
    add_format_argument(parser)
    parser.add_argument("--html", metavar="OUT", help=help_text(parser, "cli.explain.html"))


def _width(args: argparse.Namespace) -> int:
    if args.width:
        return max(40, args.width)
    return min(100, terminal_columns())


def _bidi(args: argparse.Namespace) -> str:
    if args.bidi != "auto":
        return args.bidi
    return "visual" if sys.stdout.isatty() else "logical"


def _is_code_target(target: str) -> bool:
    """A target is a code only if no such file exists and it looks like one."""
    if target == "-" or os.path.exists(target):
        return False
    from ...catalogue.loader import normalize_code  # a code: a log's scan needs no loader

    return normalize_code(target) is not None


def run(args: argparse.Namespace) -> int:
    lang = args.lang or language_from_env()
    target = args.target
    if args.list:
        return _list_codes(lang, args.bidi, args.json or args.format == "json")
    if target is None:
        raise UsageError(label("scan.no_target"))
    if _is_code_target(target):  # never an existing file: a module file is not taken for a code
        return _explain_code(target, args, lang)
    from ...route.dispatch import is_module_file  # lazy: `explain E1200` reads one TOML file and no more

    stdin = None
    if target == "-" and not args.hlo:  # a module on stdin is checked as check checks it, as a file is
        from ...route.dispatch import stdin_module

        module, stdin = stdin_module()
        if module:
            return _check_module(target, args, stdin)
    if is_module_file(target):
        return _check_module(target, args)
    if target != "-" and not os.path.exists(target):
        from ...catalogue.loader import load_catalogue

        cat = load_catalogue()
        near = ", ".join(cat.nearest(target))
        raise UsageError(f"'{target}' is neither a known error code nor a file (nearest codes: {near})")
    return scan_and_report(target, args, lang, _width(args), _bidi(args), stdin)


def scan_and_report(target: str, args: argparse.Namespace, lang: str, width: int, bidi: str,
                    stdin: BinaryIO | None = None) -> int:
    # lazy: scanning pulls in more modules than explaining a code, and each form only its own writer
    from ...findings.log_details import ScannedLog
    from ...route.log import route
    from ...route.options import Options
    from ._common import refuse_stdin_twice

    refuse_stdin_twice(target, args.hlo)
    if getattr(args, "html", None):
        from ._atomic import refuse_overwriting_inputs

        refuse_overwriting_inputs(args.html, [target, args.hlo])
    report = route(target, Options(lang=lang), args.hlo, stdin)  # the findings, made once
    scan = report.details
    assert isinstance(scan, ScannedLog)
    matches, source = list(scan.matches), report.inputs[0]
    doc = None
    if args.json or getattr(args, "html", None):
        from ...report.explain_json import scan_document

        doc = scan_document(matches, source, lang, scan.not_shown, report)
    if doc is not None and getattr(args, "html", None):
        _write_html(args.html, doc, target, args.hlo, lang)
    if doc is not None and args.json:
        from ...report.explain_json import SCAN_SCHEMA_VERSION

        chosen = emit_document(doc, args, SCAN_SCHEMA_VERSION, "explain")
        if chosen is not None:
            return chosen
    else:
        from ...report.explain_text import draw_findings, not_shown_text

        sys.stdout.write(draw_findings(report.findings, lang, width, bidi, [m.analysis.get("offload") for m in matches]))
        if scan.not_shown:
            sys.stdout.write(not_shown_text(scan.not_shown, lang, width, bidi))
    return report.exit_code


def _write_html(out: str, doc: dict, target: str, hlo: str | None, lang: str) -> None:
    """``--html OUT``: the scan document as a page, one card per finding (as ``check --html``'s)."""
    from ...report.html import render_explain_html
    from ._atomic import write_output

    page = render_explain_html({"schema_version": 1, **doc}, title=label("status.explain_title", lang, source=target),
                               lang=lang)
    write_output(out, page, label("status.html_report", lang), [p for p in (target, hlo) if p], lang)


def _list_codes(lang: str, bidi: str = "auto", as_json: bool = False) -> int:
    """``explain --list``: every code of the catalogue, one line each (code, name, title); a Persian
    title is drawn for its reader (on a terminal, right to left), the code and name columns stay.
    With ``--json`` the same list as a document (docs/json.md, ``explain --list --json``)."""
    from ...catalogue.loader import load_catalogue

    entries = list(load_catalogue())
    if as_json:
        codes = [{"code": e.code, "name": e.name, "title": e.describe(lang).title} for e in entries]
        print_json({"command": "explain", "mode": "list", "lang": lang, "codes": codes}, schema="explain_list")
        return 0
    width = max(len(e.name) for e in entries)
    for e in entries:
        title = e.describe(lang).title
        if lang == "fa":
            title = for_reader(title, lang, bidi)
        print(f"{e.code}  {e.name:<{width}}  {title}")
    return 0


def _check_module(target: str, args: argparse.Namespace, stdin: BinaryIO | None = None) -> int:
    """``explain MODULE.hlo`` is ``check MODULE.hlo``: a module holds no XLA message to explain, it
    is analysed (it said "no XLA error found", exit 0, where check predicts E1200)."""
    from ...findings.schema_files import CHECK_SCHEMA_VERSION
    from ...report.check_json import check_document, file_entry
    from ...report.check_text import render_text
    from ...route.dispatch import check_path
    from ...route.options import Options

    lang = args.lang or language_from_env()
    if args.html:
        from ._atomic import refuse_overwriting_inputs

        refuse_overwriting_inputs(args.html, [target])
    if stdin is not None:  # `explain - < m.hlo`: stdin, its first bytes already read to tell
        from ...route.dispatch import check_stream, unread

        try:
            reports = [check_stream(stdin, "<stdin>", Options(lang=lang))]
        except InputError as err:
            reports = [unread("<stdin>", str(err), lang)]
    else:  # one Report per graph of a PyTorch/XLA tensors file, as check lists them
        from ...route.tensors import graph_items

        reports = [check_path(it.path, True, Options(lang=lang, parallel_logs=True), None, it.graph)
                   for it in graph_items(target, True)]
    errors = [e for r in reports for e in r.input_errors]
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return 2
    doc = check_document([file_entry(r) for r in reports], lang)[0]
    if args.html:
        from ...report.html import render_check_html
        from ._atomic import write_output

        write_output(args.html, render_check_html(doc, title=label("status.explain_title", lang, source=target),
                                                  lang=lang), label("status.html_report", lang), [target], lang)
    chosen = None
    if args.json:
        chosen = emit_document(doc, args, CHECK_SCHEMA_VERSION, "check")
    else:
        sys.stdout.write(for_reader(render_text(doc, lang), lang, args.bidi))  # as check's text
    return chosen if chosen is not None else 1 if doc["findings"] else 0


def _explain_code(target: str, args: argparse.Namespace, lang: str) -> int:
    from ...catalogue.loader import find_entry, load_catalogue

    entry, cat = find_entry(target)
    if entry is None:
        near = ", ".join((cat or load_catalogue()).nearest(target))
        raise UsageError(f"unknown error code '{target}' (nearest: {near})")
    if args.hlo:
        raise UsageError("--hlo applies to scanning a log, not to explaining a code")
    if args.html:
        raise UsageError(label("scan.html_needs_file", lang))
    if args.format in ("sarif", "github"):
        raise UsageError(f"--format {args.format} reports the errors found in a log; a code has no findings")
    if args.json:
        print_json({"command": "explain", "mode": "code", "entry": entry_json(entry, lang)},
                   schema="explain_code")
        return 0
    from ...report.catalogue_text import render_entry  # a code's page only: scanning a log never draws one

    sys.stdout.write(render_entry(entry, lang, _width(args), _bidi(args)))
    return 0


def entry_json(entry, lang: str) -> dict:
    text = entry.describe(lang)
    return {
        "code": entry.code, "name": entry.name, "status": entry.status, "phase": entry.phase,
        "backends": list(entry.backends), "url": entry.url or None, "origin": entry.origin, "lang": lang,
        "title": text.title, "category": text.category, "summary": text.summary,
        "causes": list(text.causes), "fixes": list(text.fixes), "debug": list(text.debug),
        "example": entry.example, "see_also": list(entry.see_also), "aliases": list(entry.aliases),
    }


