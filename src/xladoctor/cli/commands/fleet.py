"""``xladoctor fleet PATTERN...``: one summary of XLA errors across many jobs' logs and dumps.

Each pattern is a local glob (quote it; ``**`` recurses), a directory, ``-`` (a list of
patterns on stdin, one a line, as every command reads ``-``), or a URL glob
(``gs://bucket/runs/*/logs/*.log.gz``, ``s3://...``; needs fsspec).  Compressed files
(``.gz``, ``.bz2``, ``.xz``, ``.zst``) are read as streams.  Every file gets what ``check`` does;
the report counts errors by code and by job (the file's directory, or ``--job-regex``)
with where each code was first and last seen, in path order.  By default the files are
checked on this machine's cores; ``--scheduler ADDRESS`` runs the same work on a Dask
cluster (``pip install 'xladoctor[dask]'`` there too) and prints the same report.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...base.errors import UsageError
from ...base.escape import escape_field
from ...base.labels import LANGUAGES, label, language_from_env
from ._common import (
    add_rule_arguments,
    for_reader,
    help_text,
    print_json,
)

NAME = "fleet"
HELP = "cli.fleet.help"
ORDER = 40
DESCRIPTION = "cli.fleet.description"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("patterns", nargs="+", metavar="PATTERN",
                   help=help_text(p, "cli.fleet.patterns"))
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=help_text(p, "cli.fleet.scheduler"))
    p.add_argument("--job-regex", metavar="REGEX",
                   help=help_text(p, "cli.fleet.job_regex"))
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help=help_text(p, "cli.fleet.jobs"))
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help=help_text(p, "cli.fleet.json"))
    p.add_argument("--lang", choices=LANGUAGES, default=None, help=help_text(p, "cli.fleet.lang"))
    p.add_argument("--bidi", choices=("auto", "visual", "logical"), default="auto", help=help_text(p, "cli.fleet.bidi"))


def run(args: argparse.Namespace) -> int:
    import re

    from ...base.progress import Progress
    from ...report.fleet_text import render_text
    from ...route import fleet

    if args.job_regex:
        try:
            re.compile(args.job_regex)
        except re.error as e:
            raise UsageError(f"--job-regex: {e}") from None
    if args.jobs < 0:  # as check refuses it (fleet ran -j -5 as one worker, silently)
        raise UsageError("--jobs must be 0 (one per core) or more")
    patterns = [q for p in args.patterns for q in (_stdin_patterns(fleet) if p == "-" else [p])]
    paths = fleet.expand(patterns)
    if not paths:
        raise UsageError("no file matches " + " ".join(repr(p) for p in args.patterns))
    roots = fleet.job_roots(patterns)
    jobs_of = [fleet.job_for(p, args.job_regex, roots) for p in paths]
    progress = Progress(len(paths), "files", enabled=None if not args.json else False)
    try:
        if args.scheduler:
            summaries = fleet.run_dask(paths, jobs_of, args.rule, args.scheduler, progress.advance)
        else:
            summaries = fleet.run_local(paths, jobs_of, args.rule, args.jobs, progress.advance)
    finally:
        progress.close()
    doc, report = fleet.summarise(summaries), fleet.fleet_report(summaries)
    if args.json:
        from ...findings.schema_files import FLEET_SCHEMA_VERSION

        print_json(doc, FLEET_SCHEMA_VERSION, schema="fleet")
    else:
        lang = args.lang or language_from_env()
        engine = label("fleet.dask", lang, scheduler=args.scheduler) if args.scheduler else label("fleet.this_machine",
                                                                                                  lang)
        sys.stdout.write(for_reader(render_text(doc, engine, lang), lang, args.bidi))
    for failure in doc["errors"]:
        print(failure["error"], file=sys.stderr)
    return report.exit_code


def _stdin_patterns(fleet: Any) -> list[str]:
    """``fleet -``: the paths, globs or URLs on stdin.  A log piped in instead (``cat job.log |
    xladoctor fleet -``) was taken line by line for URLs ("cannot list this URL: ... Protocol not
    known: I1130 09:12:04 ..."); it is refused, saying what ``-`` reads and what reads a log."""
    import os

    listed = fleet.stdin_list()
    for n, line in enumerate(listed, start=1):
        if not (os.path.exists(line) or fleet.is_url(line) or any(c in line for c in "*?[")):
            if " " in line:
                raise UsageError(label("fleet.stdin_not_paths", line=n, text=escape_field(line[:60])))
            break
    return listed
