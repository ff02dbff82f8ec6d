"""``xladoctor inputs EXPECTED --supplied OTHER.hlo | --supplied-shapes FILE``: E0102 before it happens.

Compares what a compiled executable expects (an HLO module's entry computation
layout, or a file of shapes) with what is supplied (another compile's entry
layout, or one shape per line), reports every mismatching parameter (XLA stops
at the first), explains the sizes, and prints what each runtime would say.
Exit 1 on any mismatch.
"""

from __future__ import annotations

import argparse

from ...base.errors import UsageError
from ...base.escape import escape_field
from ...base.files import located
from ...base.labels import LANGUAGES, label, language_from_env
from ...inputs.compare import (
    ExpectedParameter,
    InputCheck,
    can_pair_by_name,
    check_inputs,
)
from ...inputs.explanation import report_lines
from ...inputs.from_module import expected_from_module, names_are_metadata, supplied_from_module
from ...inputs.shapes_file import parse_shapes_file
from ...ir.module import HloModule
from ...route.pipeline import inputs_document, inputs_report
from ...syntax.hlo_parser import parse_module
from ._atomic import refuse_overwriting_inputs, write_output
from ._common import for_reader, help_text, read_input
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


def _load_expected(text: str, source: str) -> tuple[list[ExpectedParameter], HloModule | None, bool]:
    if text.lstrip().startswith("HloModule"):
        module = parse_module(text, source)
        return expected_from_module(module), module, names_are_metadata(module)
    buffers = parse_shapes_file(text, source)
    return [ExpectedParameter(i, b.shape, b.name) for i, b in enumerate(buffers)], None, all(b.name for b in buffers)


def run_inputs(args: argparse.Namespace) -> tuple[InputCheck, str, HloModule | None]:
    """The comparison, the expected side's name and (when it is HLO) its module, for findings' lines."""
    if args.expected == "-" and (args.supplied == "-" or args.supplied_shapes == "-"):
        raise UsageError("only one input can be read from stdin")
    exp_text, exp_source = read_input(args.expected)
    expected, exp_module, expected_named = _load_expected(exp_text, exp_source)
    module_name = exp_module.name if exp_module is not None else None
    if args.supplied is not None:
        text, source = read_input(args.supplied)
        module = parse_module(text, source)
        supplied = supplied_from_module(module)
        supplied_named = names_are_metadata(module)
    else:
        text, source = read_input(args.supplied_shapes)
        supplied = parse_shapes_file(text, source)
        supplied_named = all(s.name for s in supplied)
    pairing = args.pair
    if pairing == "auto":
        pairing = "name" if expected_named and supplied_named and can_pair_by_name(expected, supplied) else "index"
    elif pairing == "name" and not can_pair_by_name(expected, supplied):
        raise UsageError("--pair name needs a unique name for every parameter on both sides")
    # A '?' dimension has no size: say where, in whichever input spells one.
    where = (exp_text, exp_source) if "?" in exp_text or "?" not in text else (text, source)
    with located(*where):
        check = check_inputs(expected, supplied, args.executable or module_name or "unknown",
                             args.replica, args.partition, pairing)
    return check, exp_source, exp_module


def run(args: argparse.Namespace) -> int:
    inputs = (args.expected, args.supplied, args.supplied_shapes)
    if args.html:
        refuse_overwriting_inputs(args.html, inputs)
    check, source, module = run_inputs(args)
    lang = args.lang or language_from_env()
    report = inputs_report(check, source, module, lang)
    doc = inputs_document(check, source, module, lang, report) if args.html or args.json else {}
    if args.html:
        from ...report.html import render_inputs_html

        title = label("inputs.html_title", lang, expected=args.expected, supplied=args.supplied or args.supplied_shapes)
        page = render_inputs_html({"schema_version": 1, **doc}, title=title, lang=lang)
        write_output(args.html, page, label("status.html_report", lang), inputs, lang)
    if args.json:
        chosen = emit_document(doc, args, schema="inputs")
        return chosen if chosen is not None else report.exit_code
    else:
        lines = []
        if check.missing:
            lines.append(label("inputs.missing", lang, names=", ".join(map(escape_field, check.missing))))
        if check.extra:
            lines.append(label("inputs.extra", lang, names=", ".join(map(escape_field, check.extra))))
        lines.extend(report_lines(check, lang=lang))
        print(for_reader("\n".join(lines), lang, args.bidi))
    return report.exit_code
