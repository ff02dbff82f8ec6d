"""``xladoctor hlo FILE``: what an HLO module holds, at a glance or as JSON."""

from __future__ import annotations

import argparse

from ...report.hlo_text import summary_document, summary_text
from ...route.hlo_text import summary_of
from ._common import help_text, print_json, refuse_stdin_twice

NAME = "hlo"
HELP = "cli.hlo.help"
ORDER = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help=help_text(p, "cli.hlo.file"))
    p.add_argument("--json", action="store_true", help=help_text(p, "cli.hlo.json"))
    p.add_argument("--stablehlo", metavar="FILE", help=help_text(p, "cli.hlo.stablehlo"))
    p.add_argument("--graph", type=int, metavar="N", help=help_text(p, "cli.hlo.graph"))


def run(args: argparse.Namespace) -> int:
    refuse_stdin_twice(args.file, args.stablehlo)
    report = summary_of(args.file, args.stablehlo, args.graph)
    if args.json:
        print_json(summary_document(report), schema="hlo", stream=True)  # the instructions as made
    else:
        print(summary_text(report))
    return 0  # a summary, not a check: its layout warnings are shown, never an exit code
