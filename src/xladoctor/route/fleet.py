"""Fleet scanning: many jobs' logs and dumps, on local disks or object stores, summarised as one report.

The work splits into three pure steps so any engine can run the middle one:

1. :func:`expand` turns patterns into a sorted list of inputs: local globs (``**``
   recursive) with the standard library, URLs (``gs://``, ``s3://``, ``file://``, ...)
   with ``fsspec`` when it is installed.
2. :func:`scan_one` checks one input exactly as ``check`` does (an HLO module gets the
   triage and offload analysis, anything else the streaming log scan), reading ``.gz``
   and other compressed files as streams, and returns a small :class:`FileSummary`.
3. :func:`summarise` merges the summaries, in input order, into counts by code and by
   job with first and last sightings — the same document whichever engine ran step 2.

Engines: in this process or a local process pool (the default; nothing extra to
install), or a Dask cluster (``--scheduler ADDRESS``; ``pip install xladoctor[dask]``
on the client and every worker).  Dask was chosen because its ``distributed`` scheduler
runs plain Python functions on existing clusters (Kubernetes, YARN, SLURM, cloud VMs)
and ``fsspec``, from the same project, already reads every object store and compression
format; a Spark or Ray back end would need a JVM or its own cluster for the same map.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from ..findings.model import Report


def is_url(pattern: str) -> bool:
    return "://" in pattern


def expand(patterns: Iterable[str]) -> list[str]:
    """Every input the patterns name, sorted, without duplicates.

    Local directories and globs go through ``check``'s safe walk (:func:`xladoctor.base.files.walk`):
    a symlinked folder is never entered and a link out of the folder never followed, so a
    ``self -> .`` link cannot multiply the files or loop; ``**`` spans folders as in
    :func:`glob.glob`.  ``-`` reads a list of paths or URLs from stdin, one a line.
    """
    found: set[str] = set()
    for pattern in patterns:
        if pattern == "-":
            found.update(expand(stdin_list()))
        elif pattern.startswith("file://"):
            # a local path: the same safe, streaming walk (fsspec's glob lists the whole tree in
            # memory, and follows symlinked folders; 'file:///**/*.log' ran out of memory)
            found.update(_expand_local(pattern[len("file://"):]))
        elif is_url(pattern):
            found.update(_expand_url(pattern))
        else:
            found.update(_expand_local(pattern))
    return sorted(found)


def _expand_local(pattern: str) -> Iterable[str]:
    """A local directory, file or glob, by the rules of :func:`expand`."""
    if os.path.isdir(pattern):
        return _walk_files(pattern)
    if not glob.has_magic(pattern):
        _refuse_unreachable(pattern, "file")
        return [pattern] if os.path.isfile(pattern) else []
    _refuse_unreachable(_glob_root(pattern) or ".", "folder")
    if "**" in pattern:
        root = _glob_root(pattern)
        matches = _glob_regex(pattern).fullmatch
        if not os.path.isdir(root or "."):
            return []
        return (p for p in _walk_files(root or ".", prefix=not root) if matches(p))
    root = _glob_root(pattern) or "."  # a fixed depth: glob's own listing, then the walk's rules for links
    return (p for p in glob.glob(pattern) if _inside(p, root))


def _refuse_unreachable(path: str, what: str) -> None:
    """Raise when ``path`` cannot be looked at for a reason other than its absence (a name too
    long, a folder it is in that may not be searched, a loop of links): "no file matches" would
    hide the reason, which :func:`os.path.isfile` and :func:`glob.glob` swallow."""
    import errno

    try:
        os.stat(path)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            return
        from ..base.errors import InputError

        raise InputError(f"cannot read {what}: {e.strerror or e}", path, 1, 1) from None


def _inside(path: str, root: str) -> bool:
    """A regular file reached from ``root`` through no symlinked folder, and not a link out of ``root``."""
    if not os.path.isfile(path):
        return False
    real_root = os.path.realpath(root)
    rel = os.path.relpath(path, root).split(os.sep)
    here = root
    for part in rel[:-1]:
        here = os.path.join(here, part)
        if os.path.islink(here):
            return False
    real = os.path.realpath(path)
    return os.path.commonpath([real_root, real]) == real_root


def stdin_list() -> list[str]:
    """``fleet -``: the paths, globs or URLs listed on stdin (one a line, ``#`` comments), read bounded."""
    import sys

    from ..base.files import decode_text, read_bounded

    text = decode_text(read_bounded(sys.stdin.buffer, "<stdin>"), "<stdin>")
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _walk_files(root: str, prefix: bool = False) -> list[str]:
    """The regular files under ``root`` by the safe walk (``./`` dropped when the pattern had none)."""
    from ..base.files import walk

    out = [e.path for e in walk(root) if e.status == "file"]
    return [p[2:] if p.startswith("./") else p for p in out] if prefix else out


def _glob_root(pattern: str) -> str:
    """The folder before the first component with a wildcard (``runs/*/x.log``: ``runs``)."""
    parts = pattern.split("/")
    fixed = []
    for part in parts[:-1]:
        if glob.has_magic(part):
            break
        fixed.append(part)
    return "/".join(fixed) if fixed != [""] else "/"


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` as glob.glob reads it: ``*``/``?``/``[...]`` within one name, ``**/`` any folders,
    names starting with ``.`` matched only by a pattern that names the dot."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(r"(?:[^/.][^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r"(?:[^/.][^/]*(?:/[^/.][^/]*)*)?")
            i += 2
        else:
            c = pattern[i]
            at_start = i == 0 or pattern[i - 1] == "/"
            if c == "*":
                out.append(("(?!\\.)" if at_start else "") + "[^/]*")
            elif c == "?":
                out.append(("(?!\\.)" if at_start else "") + "[^/]")
            elif c == "[" and "]" in pattern[i + 2:]:
                j = pattern.index("]", i + 2)
                body = pattern[i + 1:j]
                out.append("[" + ("^" + re.escape(body[1:]) if body[:1] == "!" else re.escape(body)) + "]")
                i = j
            else:
                out.append(re.escape(c))
            i += 1
    return re.compile("".join(out))


def _expand_url(pattern: str) -> list[str]:
    from ..base.errors import UsageError
    from ..base.escape import escape_field

    shown = escape_field(pattern)  # a newline in a pattern must not forge a line of the error
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"{shown}: URLs need fsspec: pip install 'xladoctor[dask]'") from None
    try:
        fs, _, paths = fsspec.core.get_fs_token_paths(pattern)
        return [fs.unstrip_protocol(p) for p in paths if fs.isfile(p)]
    except ImportError as e:  # the protocol's package (s3fs, gcsfs ...) is not installed
        raise UsageError(f"{shown}: {escape_field(e)}") from None
    except Exception as e:  # an unknown protocol, a refused connection, a bad URL: one line, exit 2
        raise UsageError(f"{shown}: cannot list this URL: {type(e).__name__}: {escape_field(e)}") from None


def job_of(path: str, job_regex: str | None, root: str | None = None) -> str:
    """The job a file belongs to: the first group of ``job_regex``; else, for a file under ``root``
    (the folder the user named), the first folder below it (``runs/job-a/logs/x.log``: ``job-a``);
    else its directory's name."""
    if job_regex:
        m = re.search(job_regex, path)
        if m:
            return m.group(1) if m.groups() else m.group(0)
    if root is not None:
        rel = os.path.relpath(path, root).split(os.sep)
        if len(rel) > 1 and rel[0] not in ("..", "."):
            return rel[0]
    parent = path.rstrip("/").rsplit("/", 1)[0] if "/" in path else ""
    return parent.rsplit("/", 1)[-1] or "."


def job_roots(patterns: Iterable[str]) -> list[str]:
    """The folders the jobs sit in: each directory pattern, and each glob's fixed folder."""
    roots = []
    for p in patterns:
        p = p[len("file://"):] if p.startswith("file://") else p  # a local path, as expand reads it
        if p == "-" or is_url(p):
            continue
        if os.path.isdir(p):
            roots.append(p)
        elif glob.has_magic(p):
            roots.append(_glob_root(p) or ".")
    return roots


def job_for(path: str, job_regex: str | None, roots: list[str]) -> str:
    """:func:`job_of` with the deepest of ``roots`` that holds ``path``."""
    best = None
    for r in roots:
        rel = os.path.relpath(path, r)
        if not rel.startswith("..") and (best is None or len(r) > len(best)):
            best = r
    return job_of(path, job_regex, best)


@dataclass
class Sighting:
    """One code seen in one file: what crosses from a worker (a process, a Dask task) to the
    summary.  Small by design (a fleet is thousands of files), and plain, so it pickles: the
    parent makes the run's typed findings from it (:func:`fleet_report`)."""

    code: str
    name: str
    count: int
    line: int | None
    text: str = ""
    """XLA's text of the first occurrence (the log's line, or the predicted E1200's message)."""


@dataclass
class FileSummary:
    path: str
    job: str
    kind: str
    sightings: list[Sighting] = field(default_factory=list)
    not_shown: int = 0
    error: str | None = None


def _open(path: str) -> BinaryIO:
    if is_url(path):
        import fsspec

        from ..base.files import bounded_decompressed, compression_of

        of = fsspec.open(path, "rb", compression="infer")
        size = None
        try:
            size = of.fs.size(of.path)
        except Exception:  # a store that does not tell: the floor applies
            pass
        f = of.open()
        return bounded_decompressed(f, path, size) if compression_of(path) else f
    from ..base.files import open_input

    return open_input(path, explicit=False)


def scan_one(path: str, job: str, rule: str = "shipped") -> FileSummary:
    """Check one input like ``check`` does and keep only what the summary needs (never raises)."""
    from .dispatch import check_stream
    from .folder import skip_reason

    if skip_reason(path):  # XLA's non-HLO dump artefacts, binary formats
        return FileSummary(path, job, "skipped")
    from .options import Options

    opts = Options(rule=rule, lang="en")
    try:
        with _open(path) as f:
            report = check_stream(f, path, opts)
    except Exception as e:  # one bad file is one error line, never the end of the run
        from ..base.errors import InputError

        msg = str(e) if isinstance(e, InputError) else f"{path}:1:1: cannot check: {type(e).__name__}: {e}"
        return FileSummary(path, job, "error", error=msg)
    from ..findings.details import ModuleDetails, ScannedLog

    details = report.details
    summary = FileSummary(path, job, "log" if isinstance(details, ScannedLog) else "hlo")
    if isinstance(details, ScannedLog):
        summary.sightings = [Sighting(f.code, f.name, f.count, f.location.line, f.message) for f in report.findings]
        summary.not_shown = sum(details.not_shown.values())
    elif isinstance(details, ModuleDetails) and details.offload is not None:
        errors = details.offload.result.errors  # the analysis' E1200s
        if errors:
            summary.sightings.append(Sighting("E1200", "CompileTimeHostOffloadOutputLocationMismatch",
                                              len(errors), None, errors[0].full_message or ""))
    return summary


def summarise(summaries: list[FileSummary]) -> dict[str, Any]:
    """One document across jobs (docs/json.md#fleet); ``summaries`` in input (path) order."""
    by_code: dict[str, dict[str, Any]] = {}
    by_job: dict[str, dict[str, Any]] = {}
    errors = []
    skipped = sum(1 for s in summaries if s.kind == "skipped")
    for s in summaries:
        if s.kind == "skipped":
            continue
        job = by_job.setdefault(s.job, {"files": 0, "findings": 0, "codes": {}})
        job["files"] += 1
        if s.error is not None:
            errors.append({"path": s.path, "job": s.job, "error": s.error})
            continue
        # a log's message was written by XLA; an HLO module's E1200 is the analysis' prediction,
        # which no log shows: counted apart, so "errors in logs" is what the jobs really printed
        how = "logged" if s.kind == "log" else "predicted"
        for x in s.sightings:
            where = {"job": s.job, "path": s.path, "line": x.line}
            c = by_code.setdefault(x.code, {"name": x.name, "count": 0, "logged": 0, "predicted": 0, "distinct": 0,
                                            "files": 0, "jobs": [], "first_seen": where})
            c["count"] += x.count
            c[how] += x.count
            c["distinct"] += 1
            c["last_seen"] = where
            job["findings"] += x.count
            job["codes"][x.code] = job["codes"].get(x.code, 0) + x.count
        for code in {x.code for x in s.sightings}:
            c = by_code[code]
            c["files"] += 1
            if s.job not in c["jobs"]:
                c["jobs"].append(s.job)
        if s.not_shown:
            job["not_shown"] = job.get("not_shown", 0) + s.not_shown
    for c in by_code.values():
        c["jobs"].sort()
    return {"command": "fleet", "files": len(summaries) - skipped, "skipped": skipped, "jobs": len(by_job),
            "findings": sum(c["count"] for c in by_code.values()),
            "logged": sum(c["logged"] for c in by_code.values()),
            "predicted": sum(c["predicted"] for c in by_code.values()), "input_errors": len(errors),
            "by_code": dict(sorted(by_code.items())), "by_job": dict(sorted(by_job.items())), "errors": errors}


def fleet_report(summaries: list[FileSummary]) -> Report:
    """The run as the one report type: one finding per code seen in a file (``count`` its
    occurrences, ``location`` its first line), every unreadable file an input error.  The
    command's exit code is this report's (``Report.exit_code``), as every command's is."""
    from ..findings.model import (
        Finding,
        FindingKind,
        Location,
        Origin,
        Report,
        Severity,
    )

    findings = []
    for s in summaries:
        for x in s.sightings:
            predicted = s.kind != "log"  # an HLO module's E1200 is the analysis' prediction
            findings.append(Finding(
                x.code, x.name, FindingKind.OFFLOAD_OUTPUT_MISMATCH if predicted else FindingKind.LOGGED_ERROR,
                Origin.PREDICTED if predicted else Origin.LOGGED, Severity.ERROR, x.name, x.text,
                Location(path=s.path, line=x.line), count=x.count, fields={"job": s.job}))
    return Report("fleet", tuple(s.path for s in summaries if s.kind not in ("skipped", "error")),
                  tuple(findings), input_errors=tuple(s.error for s in summaries if s.error is not None))


def run_local(paths: list[str], jobs_of: list[str], rule: str, workers: int,
              on_done: Callable[[], None]) -> list[FileSummary]:
    """Each file's summary, in ``paths`` order, in a process pool of ``workers`` (0: one per usable core)."""
    from ..catalogue.fastscan import usable_cpus

    workers = workers or usable_cpus()
    args = [(p, j, rule) for p, j in zip(paths, jobs_of)]
    if workers > 1 and len(paths) > 1:
        from ..base.parallel import map_isolated

        return map_isolated(scan_one, args, workers, on_done,
                            lambda a, why: FileSummary(a[0], a[1], "error", error=f"{a[0]}:1:1: worker died ({why})"))
    out = []
    for a in args:
        out.append(scan_one(*a))
        on_done()
    return out


def run_dask(paths: list[str], jobs_of: list[str], rule: str, scheduler: str,
             on_done: Callable[[], None]) -> list[FileSummary]:
    """The same per-file work as tasks on a Dask cluster; results come back in input order."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        from ..base.errors import UsageError

        raise UsageError("--scheduler needs Dask: pip install 'xladoctor[dask]'") from None
    # Workers do not share this process's working directory: send absolute paths, report the given ones.
    sent = [p if is_url(p) else os.path.abspath(p) for p in paths]
    why: str | None = None
    try:
        client = Client(scheduler)
    except (OSError, ValueError, TypeError) as e:  # no scheduler there, or not an address: the user's input
        why = str(e)
    if why is not None:
        # The half-made Client is in a reference cycle: its __del__ (close, stopping its loop) ran at the
        # next collection, wherever that fell -- inside the next Client's start in this process, whose
        # loop lock it then waited on (300-500 s, distributed 2026.11 on Python 3.10).  Run it now, past the
        # except block: inside it the exception's traceback still holds the Client's frame.
        import gc

        from ..base.errors import UsageError

        gc.collect()
        raise UsageError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({why})")
    try:
        futures = client.map(scan_one, sent, jobs_of, [rule] * len(paths), pure=False)
        try:
            for _ in as_completed(futures):
                on_done()
            results = list(client.gather(futures))
        except BaseException:  # Ctrl-C, SIGTERM: the cluster drops our tasks, the client goes at once
            client.cancel(futures, force=True)
            raise
    finally:
        client.close(timeout=1)
    for given, s in zip(paths, results):
        if s.path != given:
            s.error = s.error.replace(s.path, given) if s.error else s.error
            s.path = given
    return results


def summary_json(s: FileSummary) -> dict[str, Any]:
    return asdict(s)
