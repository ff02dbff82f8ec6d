"""``xladoctor offload FILE``: predict E1200 (and everything else HostOffloader decides)."""

from __future__ import annotations

import os
import sys

from ...base.errors import UsageError
from ...base.escape import escape_field
from ...base.labels import (
    LANGUAGES,
    glossary,
    label,
    language_from_env,
    plural,
)
from ...findings.schema_files import OFFLOAD_SCHEMA_VERSION
from ...route.hlo_text import companion_path
from . import _confirm
from ._common import (
    add_rule_arguments,
    for_reader,
    help_text,
    refuse_stdin_twice,
)
from ._format import add_format_argument

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    import argparse  # `offload FILE` is read without it (cli/main.py PLAIN_COMMANDS)
    from typing import Any

    from ...findings.model import Report
    from ...route.options import Options

# Imported where they are needed (issue 36 item 1): the JSON document's builder with --json or
# --html, the text's renderer without --json, the fix, the diff and the atomic writes with --fix,
# -o or --html; a plain ``offload FILE`` loads none of the others (tests/test_startup.py).

NAME = "offload"
HELP = "cli.offload.help"
ORDER = 30
DESCRIPTION = "cli.offload.description"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help=help_text(parser, "cli.offload.file"))
    add_rule_arguments(parser)
    parser.add_argument("--trace", action="store_true", help=help_text(parser, "cli.offload.trace"))
    parser.add_argument("--json", action="store_true", help=help_text(parser, "cli.offload.json"))
    add_format_argument(parser)
    parser.add_argument("--fix", choices=("host", "device"),
                        help=help_text(parser, "cli.offload.fix"))
    parser.add_argument("-o", "--output", help=help_text(parser, "cli.offload.output"))
    parser.add_argument("--diff", action="store_true", help=help_text(parser, "cli.offload.diff"))
    parser.add_argument("--stablehlo", help=help_text(parser, "cli.offload.stablehlo"))
    parser.add_argument("--graph", type=int, metavar="N", help=help_text(parser, "cli.offload.graph"))
    parser.add_argument("--disable-host-compute", action="store_true",
                        help=help_text(parser, "cli.offload.disable_host_compute"))
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help=help_text(parser, "cli.offload.lang"))
    parser.add_argument("--bidi", choices=("auto", "visual", "logical"), default="auto",
                        help=help_text(parser, "cli.offload.bidi"))
    parser.add_argument("--html", metavar="OUT", help=help_text(parser, "cli.offload.html"))
    _confirm.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.diff and not args.fix:
        raise UsageError(label("offload.diff_needs_fix"))
    if args.fix and not args.output and not args.diff and args.file == "-":
        args.output = "-"  # as ruff on stdin: the fixed module to stdout; a file is fixed in place
    lang = args.lang or language_from_env()
    _refuse_what_would_be_lost(args)
    _confirm.check_run(args)
    from ...findings.module_details import OffloadDetails
    from ...route.hlo_text import analyse_file
    from ...route.options import Options

    options = Options.from_args(args, lang)
    report = analyse_file(args.file, options, args.stablehlo, args.graph,
                          editing=bool(args.fix) and not args.output and not args.diff, seed=args.seed)
    assert isinstance(report.details, OffloadDetails)  # the route's: the module, its text, the judge's verdict
    _confirm.note_if_unavailable(report.details.confirm, lang)
    # The document is built once, after the verdict is set: the page and --json both view it.
    doc = None
    if args.html or args.json:
        from ...report.offload_json import offload_document

        doc = offload_document(report)
    if args.html:
        assert doc is not None
        _write_html(args, doc, lang)
    if args.fix and not args.json:
        return _apply_fix(args, report, options, lang=lang)
    code = report.exit_code
    if args.json:
        assert doc is not None
        fixed_rc = _apply_fix(args, report, options, quiet=True, lang=lang) if args.fix else None
        if not (args.fix and (args.output == "-" or args.diff)):
            from ._format import emit_document

            chosen = emit_document(doc, args, OFFLOAD_SCHEMA_VERSION, schema="offload")
            if chosen is not None and fixed_rc is None:
                return chosen
        if fixed_rc is not None:  # as without --json: 0 when the fix leaves nothing
            return fixed_rc
    else:
        from ...report.offload_text import offload_report_text

        sys.stdout.write(for_reader(offload_report_text(report, args.trace), lang, args.bidi))
    return code


def _write_html(args: argparse.Namespace, doc: dict[str, Any], lang: str) -> None:
    """``--html OUT``: the offload document as a page (the path drawn, both remedies), in ``lang``."""
    from ...report.html import render_offload_html
    from ._atomic import write_output

    page = render_offload_html({"schema_version": OFFLOAD_SCHEMA_VERSION, **doc},
                               title=label("status.offload_title", lang, source=args.file), lang=lang)
    write_output(args.html, page, label("status.html_report", lang), [args.file, companion_path(args.file, args.stablehlo)],
                 lang)


def _refuse_what_would_be_lost(args: argparse.Namespace) -> None:
    """Usage and output errors found before any input is read: stdin named twice, two outputs on one
    path, a compressed file to fix in place, an output over an input (the NAME.mlir beside the file
    is read too)."""
    refuse_stdin_twice(args.file, args.stablehlo)
    if args.output and args.html and args.output != "-" and \
            os.path.abspath(os.path.realpath(args.output)) == os.path.abspath(os.path.realpath(args.html)):
        raise UsageError("-o and --html name the same file: the second write would replace the first")
    if not (args.fix or args.output or args.html):
        return
    from ._atomic import refuse_fixing_an_example, refuse_fixing_compressed, refuse_overwriting_inputs

    if args.fix and not args.output and not args.diff:
        refuse_fixing_an_example(args.file)
        refuse_fixing_compressed(args.file)
    read = [args.file, companion_path(args.file, args.stablehlo)]
    for out in (args.output, args.html):
        if out:
            refuse_overwriting_inputs(out, read)


def _apply_fix(args: argparse.Namespace, report: Report, options: Options, quiet: bool = False,
               lang: str = "en") -> int:
    """``--fix`` as ruff's: edit only the lines the fix changes (:func:`xladoctor.route.fix.fix_module`),
    say in one line per output what changed (stdout, or stderr when the module itself goes to
    stdout), write nothing on a clean module; ``--diff`` prints the change instead of writing it.
    Exit 0 when nothing is left to fix, 1 when findings remain after the fix (or, with ``--diff``,
    when there is a change)."""
    from ...findings.module_details import OffloadDetails
    from ...ir.shape import format_shape_index
    from ...route.fix import fix_module
    from ._atomic import refuse_if_changed, refuse_overwriting_inputs, rewrite_in_place, write_output
    from ._fix import unified_diff, write_module_text

    to_stdout = args.output == "-" and not args.diff
    say = sys.stderr if (to_stdout or args.diff) else sys.stdout
    source = report.inputs[0]
    shown = escape_field(source)
    target = args.output if args.output and not args.diff else source
    fixed = fix_module(report, args.fix, target, options)
    assert isinstance(report.details, OffloadDetails) and report.details.text is not None
    text = report.details.text  # the text the route read, which the fix edits
    if fixed is None:
        if to_stdout:
            write_module_text(text)
        if not quiet:
            print(for_reader(label("offload.fix_nothing", lang, source=shown), lang, args.bidi), file=say)
        return report.exit_code
    out_text = fixed.text
    if fixed.respelt and not quiet:
        print(for_reader(label("offload.fix_respelt", lang, source=shown), lang, args.bidi), file=say)
    if args.diff:
        write_module_text(unified_diff(text, out_text, source, target))
    elif to_stdout:
        write_module_text(out_text)
    else:
        what = label("status.fixed_module", lang, fix=args.fix)
        if not args.output:  # ruff's --fix: into the file itself, its inode kept (hard links, owner)
            refuse_overwriting_inputs(args.file, [companion_path(args.file, args.stablehlo)])
            refuse_if_changed(args.file, text)
            rewrite_in_place(args.file, text, out_text, what)
            if quiet:  # otherwise the "fixed" lines below say it
                print(label("status.wrote", lang, what=what, size=f"{len(out_text.encode()):,}",
                            target=escape_field(args.file)), file=sys.stderr)
        else:
            write_output(args.output, out_text, what, [args.file, companion_path(args.file, args.stablehlo)], lang)
    left = fixed.left
    if not quiet:
        how = "offload.fixed_host" if args.fix == "host" else "offload.fixed_device"
        verb = "offload.would_fix" if args.diff else "offload.fixed"
        tally = ("offload.n_fixable_one", "offload.n_fixable_many") if args.diff else (
            "offload.n_fixed_one", "offload.n_fixed_many")
        lines = [label(verb, lang, source=shown,
                       what=label(how, lang, output=glossary.output(format_shape_index(err.output_index), lang)))
                 for err in fixed.fixed]
        lines.append(label("offload.fix_tally", lang, fixed=plural(len(fixed.fixed), *tally, lang),
                           left=plural(len(left), "offload.n_left_one", "offload.n_left_many", lang)))
        lines.extend(f"  {escape_field(f.code)} {escape_field(f.title)}" for f in left)
        print(for_reader("\n".join(lines), lang, args.bidi), file=say)
    return 1 if left or (args.diff and out_text != text) else 0
