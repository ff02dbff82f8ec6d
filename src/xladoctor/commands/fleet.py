"""``xladoctor fleet PATTERN...``: one summary of XLA errors across many jobs' logs and dumps.

Each pattern is a local glob (quote it; ``**`` recurses), a directory, or a URL glob
(``gs://bucket/runs/*/logs/*.log.gz``, ``s3://...``; needs fsspec).  Compressed files
(``.gz``, ``.bz2``, ``.xz``) are read as streams.  Every file gets what ``check`` does;
the report counts errors by code and by job (the file's directory, or ``--job-regex``)
with where each code was first and last seen, in path order.  By default the files are
checked on this machine's cores; ``--scheduler ADDRESS`` runs the same work on a Dask
cluster (``pip install 'xladoctor[dask]'`` there too) and prints the same report.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UsageError
from ._common import add_rule_arguments, print_json

NAME = "fleet"
HELP = "summarise XLA errors across many jobs' logs and dumps (local cores or a Dask cluster)"
ORDER = 40
DESCRIPTION = __doc__.split("\n\n")[1].replace("\n", " ")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("patterns", nargs="+", metavar="PATTERN",
                   help="globs, directories or URLs (gs://, s3://, file://) of logs and HLO dumps")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler to run on (tcp://host:8786); default: this machine's cores")
    p.add_argument("--job-regex", metavar="REGEX",
                   help="job name from the path: the first group of REGEX (default: the file's directory name)")
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help="local worker processes (default: one per core)")
    add_rule_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON (see docs/json.md#fleet)")


def run(args: argparse.Namespace) -> int:
    import re

    from .. import fleet
    from ..catalogue.fastscan import usable_cpus
    from ..progress import Progress

    if args.job_regex:
        try:
            re.compile(args.job_regex)
        except re.error as e:
            raise UsageError(f"--job-regex: {e}") from None
    paths = fleet.expand(args.patterns)
    if not paths:
        raise UsageError("no file matches " + " ".join(repr(p) for p in args.patterns))
    jobs_of = [fleet.job_of(p, args.job_regex) for p in paths]
    progress = Progress(len(paths), "files", enabled=None if not args.json else False)
    try:
        if args.scheduler:
            summaries = fleet.run_dask(paths, jobs_of, args.rule, args.scheduler, progress.advance)
        else:
            summaries = fleet.run_local(paths, jobs_of, args.rule, args.jobs or usable_cpus(), progress.advance)
    finally:
        progress.close()
    doc = fleet.summarise(summaries)
    if args.json:
        print_json(doc)
    else:
        engine = f"Dask scheduler {args.scheduler}" if args.scheduler else "this machine"
        sys.stdout.write(render_text(doc, engine))
    for failure in doc["errors"]:
        print(failure["error"], file=sys.stderr)
    if doc["input_errors"]:
        return 2
    return 1 if doc["findings"] else 0


def render_text(doc: dict[str, Any], engine: str) -> str:
    lines = [f"{doc['files']} file(s) from {doc['jobs']} job(s) checked on {engine}: "
             f"{doc['findings']} error message(s)"]
    if doc["by_code"]:
        lines.append("")
        lines.append("by code:")
        for code, c in doc["by_code"].items():
            jobs = ", ".join(c["jobs"][:5]) + (f" and {len(c['jobs']) - 5} more" if len(c["jobs"]) > 5 else "")
            lines.append(f"  {code} {c['name']}: {c['count']} in {c['files']} file(s) of {len(c['jobs'])} job(s) "
                         f"({jobs})")
            lines.append(f"      first seen {_where(c['first_seen'])}")
            lines.append(f"      last seen  {_where(c['last_seen'])}")
        lines.append("")
        lines.append("by job:")
        for job, j in doc["by_job"].items():
            codes = ", ".join(f"{k} x{v}" for k, v in sorted(j["codes"].items())) or "no XLA error"
            more = f" (+{j['not_shown']} not shown)" if j.get("not_shown") else ""
            lines.append(f"  {job}: {j['files']} file(s), {codes}{more}")
    if doc["errors"]:
        lines.append(f"{len(doc['errors'])} file(s) could not be checked (listed on stderr)")
    lines.append("details for one file: xladoctor check FILE")
    return "\n".join(lines) + "\n"


def _where(w: dict[str, Any]) -> str:
    line = f":{w['line']}" if w.get("line") else ""
    return f"{w['path']}{line} (job {w['job']})"
