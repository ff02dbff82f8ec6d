"""``xladoctor inputs EXPECTED --supplied OTHER.hlo | --supplied-shapes FILE``: E0102 before it happens.

Compares what a compiled executable expects (an HLO module's entry computation
layout, or a file of shapes) with what is supplied (another compile's entry
layout, or one shape per line), reports every mismatching parameter (XLA stops
at the first), explains the sizes, and prints what each runtime would say.
Exit 1 on any mismatch.
"""

from __future__ import annotations

import argparse

from ...base.labels import LANGUAGES, label, language_from_env
from ...report.inputs_json import compared_document
from ...report.inputs_text import compared_text
from ...route.executable_inputs import route
from ...route.options import Options
from ._atomic import refuse_overwriting_inputs, write_output
from ._common import for_reader, help_text
from ._format import add_format_argument, emit_document

NAME = "inputs"
HELP = "cli.inputs.help"
ORDER = 40
DESCRIPTION = "cli.inputs.description"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expected", metavar="EXPECTED",
                        help=help_text(parser, "cli.inputs.expected"))
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--supplied", metavar="OTHER.hlo", help=help_text(parser, "cli.inputs.supplied"))
    src.add_argument("--supplied-shapes", metavar="FILE",
                     help=help_text(parser, "cli.inputs.supplied_shapes"))
    parser.add_argument("--pair", choices=("auto", "index", "name"), default="auto",
                        help=help_text(parser, "cli.inputs.pair"))
    parser.add_argument("--executable", metavar="NAME", default=None,
                        help=help_text(parser, "cli.inputs.executable"))
    parser.add_argument("--replica", type=int, default=None, help=help_text(parser, "cli.inputs.replica"))
    parser.add_argument("--partition", type=int, default=None, help=help_text(parser, "cli.inputs.partition"))
    parser.add_argument("--json", action="store_true", help=help_text(parser, "cli.json"))
    add_format_argument(parser)
    parser.add_argument("--html", metavar="OUT",
                        help=help_text(parser, "cli.inputs.html"))
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help=help_text(parser, "cli.inputs.lang"))
    parser.add_argument("--bidi", choices=("auto", "visual", "logical"), default="auto",
                        help=help_text(parser, "cli.inputs.bidi"))


def run(args: argparse.Namespace) -> int:
    inputs = (args.expected, args.supplied, args.supplied_shapes)
    if args.html:
        refuse_overwriting_inputs(args.html, inputs)
    lang = args.lang or language_from_env()
    report = route(args.expected, args.supplied, args.supplied_shapes, Options(lang=lang), args.pair,
                    args.executable, args.replica, args.partition)
    doc = compared_document(report) if args.html or args.json else {}
    if args.html:
        from ...report.html import render_inputs_html

        title = label("inputs.html_title", lang, expected=args.expected, supplied=args.supplied or args.supplied_shapes)
        page = render_inputs_html({"schema_version": 1, **doc}, title=title, lang=lang)
        write_output(args.html, page, label("status.html_report", lang), inputs, lang)
    if args.json:
        chosen = emit_document(doc, args, schema="inputs")
        return chosen if chosen is not None else report.exit_code
    else:
        print(for_reader(compared_text(report), lang, args.bidi))
    return report.exit_code
