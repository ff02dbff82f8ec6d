"""``xladoctor offload FILE``: predict E1200 (and everything else HostOffloader decides)."""

from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
from ..escape import escape_field
from ..files import located
from ..labels import label
from ..offload import fix_device, fix_host
from ..oracle.confirm import confirm, is_error
from ..pipeline import AnalysisOptions, analyse_module, compiled_note, offload_document, parse_hlo
from ..report.confirm import confirm_lines
from ..report.offload_text import render_text
from ..syntax.hlo_printer import print_module
from . import _confirm
from ._atomic import refuse_overwriting_inputs, write_output
from ._common import add_rule_arguments, help_text, read_input
from ._format import add_format_argument, emit_document

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
    parser.add_argument("--stablehlo", help=help_text(parser, "cli.offload.stablehlo"))
    parser.add_argument("--disable-host-compute", action="store_true",
                        help=help_text(parser, "cli.offload.disable_host_compute"))
    _confirm.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.fix and not args.output:
        raise UsageError("--fix needs -o OUT")
    if args.output:
        refuse_overwriting_inputs(args.output, [args.file, args.stablehlo])
    text, source = read_input(args.file)
    module = parse_hlo(text, source)
    stablehlo = read_input(args.stablehlo)[0] if args.stablehlo else None
    options = AnalysisOptions(args.rule, args.disable_host_compute, args.stablehlo)
    with located(text, source):
        mc = analyse_module(module, text, source, options, stablehlo)
    result, fixes, origin = mc.result, mc.fixes, mc.provenance
    confirmed = confirm(text, module, result, args.topology, stablehlo) if args.confirm else None
    mc.confirm = confirmed
    _confirm.note_if_unavailable(confirmed)
    if args.fix:
        fixed = (fix_host if args.fix == "host" else fix_device)(module, result)
        out_text = print_module(fixed)
        if args.output == "-":
            sys.stdout.write(out_text)
        else:
            write_output(args.output, out_text, label("status.fixed_module", fix=args.fix), [args.file, args.stablehlo])
    if args.json:
        if not (args.fix and args.output == "-"):
            emit_document(offload_document(mc), args, schema="offload")
    elif not (args.fix and args.output == "-"):
        sys.stdout.write(render_text(escape_field(source), module, result, fixes, args.trace))
        if origin.note():
            sys.stdout.write(f"\nnote: {escape_field(origin.note())}\n")
        if not mc.applies:
            sys.stdout.write("\n" + label("offload.compiled_note", note=compiled_note()) + "\n")
        if confirmed is not None:
            sys.stdout.write("\n".join(["", *confirm_lines(confirmed)]) + "\n")
    return 1 if mc.findings() or is_error(confirmed) else 0
