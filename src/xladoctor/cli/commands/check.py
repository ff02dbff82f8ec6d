"""``xladoctor check PATH...``: run every check that applies to each file, dump directory or log.

The main job in one command: an HLO module gets a summary and, unless it is a
compiled (post-optimization) module in which XLA's host offloader already ran,
the E1200 host-offload analysis; any other text file is scanned for XLA errors
(the ``explain`` scanner).  Directories are walked (an ``--xla_dump_to``
directory works as is); XLA's non-HLO dump files (buffer assignment, memory
reports, ...) are skipped.  ``--examples`` checks the examples shipped with
xladoctor.  ``--html OUT`` writes a self-contained report of everything found.

Each ``NAME.hlo``/``NAME.txt`` is read with the ``NAME.mlir``/``NAME.stablehlo`` beside it (or
the file ``--stablehlo`` names, for one module): JAX's memory kinds are in the StableHLO only,
and a JAX lowering whose text lacks them gets no verdict (``undecidable``, one finding) rather
than a guess (:mod:`xladoctor.route.memory_kinds`).

Exit 1 when anything was found or is predicted, 2 when an input could not be read
or parsed (the other files are still checked), 0 otherwise.

How it stays fast and safe (docs/json.md#check, bench/README.md):

* Files are checked in a process pool (``--jobs``, default every core); the report
  lists them in walk order whatever finishes first, so it equals a serial run.
  A progress bar is drawn on a terminal's stderr only (never with ``--json``).
* A module is parsed only when an analysis applies to it: :mod:`xladoctor.triage.hlo_triage`
  looks for the host-offload tokens in its bytes first (``--full`` parses every module).
* Logs are streamed through the same scanner as ``explain`` (bounded memory, big
  files on every core); stdin is streamed too, never spooled to a temporary file.
* Walking a directory reads regular files only and never follows a symlink out of it
  (:mod:`xladoctor.base.files`); FIFOs, devices and sockets are listed as skipped.  A file
  that cannot be read, or that makes a check fail, is reported and the rest are checked.
"""

from __future__ import annotations

import sys

from ...base.errors import UsageError
from ...base.labels import LANGUAGES, label, language_from_env
from . import _confirm
from ._common import add_rule_arguments, for_reader, help_text
from ._format import add_format_argument, emit_document

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:  # the checks themselves are imported by run(): `check --help` builds arguments only
    import argparse  # `check FILE` is read without it (cli/main.py PLAIN_COMMANDS)
    from typing import Any

    from ...base.progress import Progress
    from ...route.folder_results import JsonSpool

NAME = "check"
HELP = "cli.check.help"
ORDER = 5
DESCRIPTION = "cli.check.description"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help=help_text(p, "cli.check.paths"))
    p.add_argument("--examples", action="store_true", help=help_text(p, "cli.check.examples"))
    p.add_argument("--fix", action="store_true", help=help_text(p, "cli.check.fix"))
    p.add_argument("--unsafe-fixes", action="store_true", help=help_text(p, "cli.check.unsafe_fixes"))
    p.add_argument("--diff", action="store_true", help=help_text(p, "cli.check.diff"))
    add_rule_arguments(p)
    p.add_argument("--lang", choices=LANGUAGES, default=None, help=help_text(p, "cli.check.lang"))
    p.add_argument("--bidi", choices=("auto", "visual", "logical"), default="auto", help=help_text(p, "cli.check.bidi"))
    p.add_argument("--html", metavar="OUT", help=help_text(p, "cli.check.html"))
    p.add_argument("--full", action="store_true",
                   help=help_text(p, "cli.check.full"))
    p.add_argument("--jobs", "-j", type=int, default=0, metavar="N",
                   help=help_text(p, "cli.check.jobs"))
    p.add_argument("--json", action="store_true", help=help_text(p, "cli.check.json"))
    add_format_argument(p)
    p.add_argument("--disable-host-compute", action="store_true",
                   help=help_text(p, "cli.check.disable_host_compute"))
    # As offload's, for one module; on many, each NAME.hlo is paired with the NAME.mlir beside it.
    p.add_argument("--stablehlo", metavar="FILE", help=help_text(p, "cli.check.stablehlo"))
    _confirm.add_arguments(p)
    p.set_defaults(check_option_strings=frozenset(s for a in p._actions for s in a.option_strings))


def _refuse_options_read_as_files(paths: list[str], options: frozenset[str]) -> None:
    """A PATH that is one of check's own options and no file: it came after ``--``.  pre-commit
    builds ``entry + args + files`` and the hooks' entry ends with ``--`` (so a file named
    ``-j.log`` stays a file), so ``args: [--full]`` in a user's config lands there; it was
    checked as a missing file ("--full:1:1: cannot read file") while the others ran without it."""
    import os

    for path in paths:
        if path.startswith("-") and path != "-" and path.split("=", 1)[0] in options and not os.path.lexists(path):
            raise UsageError(f"{path!r} is an option of check, read as a file because it comes after '--'; "
                             "put options before '--' (pre-commit: in the hook's entry, "
                             "'entry: xladoctor check " + path + " --', not in args:)")


def run(args: argparse.Namespace) -> int:
    from ...route.folder import check_items, example_paths, expand
    from ...route.folder_results import JsonSpool, Wanted

    lang = args.lang or language_from_env()
    _refuse_options_read_as_files(list(args.paths), getattr(args, "check_option_strings", frozenset()))
    paths = list(args.paths) + (example_paths() if args.examples else [])
    if not paths:
        raise UsageError("nothing to check: give files or directories, '-' for stdin, or --examples")
    if args.fix and args.examples:
        raise UsageError("--fix edits files in place: copy the examples and fix the copies")
    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (one per core) or more")
    items = expand(paths, args.stablehlo)
    expanded = [it.path for it in items if it.status in ("file", "stdin")]
    # the StableHLO each module is read with is an input too (--html NAME.mlir replaced it)
    expanded += [it.stablehlo for it in items if it.status == "file" and it.stablehlo]
    if args.html:  # _atomic (and errno) only then: a plain run writes no file (issue 36)
        from ._atomic import refuse_overwriting_inputs

        refuse_overwriting_inputs(args.html, expanded)
    n_files = sum(1 for it in items if it.status == "file")
    _confirm.check_run(args)  # one process holds the chip: --run checks the files one after another
    jobs = 1 if args.run else args.jobs  # 0: one per core (the folder route counts them)
    from ...route.options import Options

    opts = Options.from_args(args, lang, parallel_logs=n_files <= 1)
    if args.fix:  # as ruff: fix first, then report what remains
        from ._check_fix import fix_items

        if not args.diff:
            fix_items(items, opts, args.unsafe_fixes, lang, sys.stderr if args.json else sys.stdout)
    if args.diff:  # as ruff's --diff: what --fix would change, written nowhere; no report (in any --format)
        from ._check_fix import diff_items

        return 1 if diff_items(items, opts, args.unsafe_fixes, lang) else 0
    progress = _progress(sum(1 for it in items if it.status in ("file", "stdin")), args.json, lang)
    want = Wanted(text=not args.json, json=args.format == "json" and not getattr(args, "statistics", False), html=bool(args.html),
                  lang=lang)
    spool = JsonSpool() if want.json else None
    try:
        try:
            kept = check_items(items, opts, jobs, progress, want, spool)
        finally:
            progress.close()
        files = [k.entry for k in kept]
        code = _report(args, files, [k.piece for k in kept], spool, expanded, lang)
    finally:
        if spool is not None:
            spool.close()
    for f in files:
        if f["kind"] == "error":
            print(f["error"], file=sys.stderr)
    if any("confirm" in f for f in files):
        from ...oracle.confirmation import confirmation_of

        _confirm.note_if_unavailable(next(confirmation_of(f["confirm"]) for f in files if "confirm" in f), lang)
    return code


def _progress(n_read: int, json: bool, lang: str) -> Progress:
    """The bar over ``n_read`` files, its words read only where it can be drawn (more than one file,
    no ``--json``): the label file's "status" area is ~25 syscalls that one log's ``--json`` run has
    no use for (issue 36)."""
    from ...base.progress import Progress

    shown = n_read > 1 and not json
    return Progress(n_read, label("status.files_checked", lang) if shown else "", enabled=None if shown else False)


def _report(args: argparse.Namespace, files: list[dict[str, Any]], pieces: list[Any], spool: JsonSpool | None,
            expanded: list[str], lang: str) -> int:
    """The page, then the document or the text report, from what was kept of each file; returns the
    exit code: the selected findings' with ``--select``/``--ignore``, else the run's ``Report.exit_code``
    (2 for a file that could not be read, 1 for any finding)."""
    from ...report.check_json import check_document

    doc, report = check_document(files, lang)
    if args.html:
        from ...report.html import render_check_html
        from ._atomic import write_output

        shown = ", ".join(args.paths[:3]) + (" ..." if len(args.paths) > 3 else "")
        title = f"xladoctor: {shown}" if shown else label("status.examples_title", lang)
        write_output(args.html, render_check_html(doc, title=title, lang=lang), label("status.html_report", lang),
                     expanded, lang)
    if args.json:
        from ...findings.schema_files import CHECK_SCHEMA_VERSION

        # its files were spooled as they were checked
        chosen = emit_document({**doc, "files": spool} if spool is not None else doc, args, CHECK_SCHEMA_VERSION,
                               "check")
        return chosen if chosen is not None else report.exit_code
    from ...report.check_text import assemble  # the text report's modules: not for --json (issue 36)

    sys.stdout.write(for_reader(assemble(doc, pieces, lang), lang, args.bidi))
    return report.exit_code
