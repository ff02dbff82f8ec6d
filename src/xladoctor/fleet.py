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
from typing import Any, BinaryIO

_COMPRESSED = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


def is_url(pattern: str) -> bool:
    return "://" in pattern


def expand(patterns: Iterable[str]) -> list[str]:
    """Every input the patterns name, sorted, without duplicates (directories are walked)."""
    found: set[str] = set()
    for pattern in patterns:
        if is_url(pattern):
            found.update(_expand_url(pattern))
        elif os.path.isdir(pattern):
            found.update(p for p in glob.glob(os.path.join(glob.escape(pattern), "**", "*"), recursive=True)
                         if os.path.isfile(p))
        else:
            found.update(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    return sorted(found)


def _expand_url(pattern: str) -> list[str]:
    try:
        import fsspec
    except ImportError:
        from .errors import UsageError

        raise UsageError(f"{pattern}: URLs need fsspec: pip install 'xladoctor[dask]'") from None
    fs, _, paths = fsspec.core.get_fs_token_paths(pattern)
    return [fs.unstrip_protocol(p) for p in paths if fs.isfile(p)]


def job_of(path: str, job_regex: str | None) -> str:
    """The job a file belongs to: the first group of ``job_regex``, else its directory's name."""
    if job_regex:
        m = re.search(job_regex, path)
        if m:
            return m.group(1) if m.groups() else m.group(0)
    parent = path.rstrip("/").rsplit("/", 1)[0] if "/" in path else ""
    return parent.rsplit("/", 1)[-1] or "."


@dataclass
class Sighting:
    code: str
    name: str
    count: int
    line: int | None


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

        return fsspec.open(path, "rb", compression="infer").open()
    from .files import open_regular

    fd = open_regular(path)
    ext = os.path.splitext(path)[1]
    raw = os.fdopen(fd, "rb")
    if ext == ".gz":
        import gzip
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if ext == ".bz2":
        import bz2
        return bz2.BZ2File(raw)  # type: ignore[return-value]
    if ext == ".xz":
        import lzma
        return lzma.LZMAFile(raw)  # type: ignore[return-value]
    return raw


def scan_one(path: str, job: str, rule: str = "shipped") -> FileSummary:
    """Check one input like ``check`` does and keep only what the summary needs (never raises)."""
    from .checking.stream import Options, check_stream
    from .checking.walk import skip_reason

    base, ext = os.path.splitext(path)
    if skip_reason(base if ext in _COMPRESSED else path):  # XLA's non-HLO dump artefacts, binary formats
        return FileSummary(path, job, "skipped")
    opts = Options(rule=rule, lang="en", full=False, parallel_logs=False)
    try:
        with _open(path) as f:
            entry = check_stream(f, path, opts)
    except Exception as e:  # one bad file is one error line, never the end of the run
        from .errors import InputError

        msg = str(e) if isinstance(e, InputError) else f"{path}:1:1: cannot check: {type(e).__name__}: {e}"
        return FileSummary(path, job, "error", error=msg)
    summary = FileSummary(path, job, entry["kind"])
    if entry["kind"] == "log":
        doc = entry["explain"]
        summary.sightings = [Sighting(x["code"], x["name"], x["count"], x["line"]) for x in doc["findings"]]
        summary.not_shown = (doc.get("not_shown") or {}).get("messages", 0)
    elif entry.get("offload"):
        off = entry["offload"]
        if off.get("errors"):
            summary.sightings.append(Sighting("E1200", "CompileTimeHostOffloadOutputLocationMismatch",
                                              len(off["errors"]), None))
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
        for x in s.sightings:
            where = {"job": s.job, "path": s.path, "line": x.line}
            c = by_code.setdefault(x.code, {"name": x.name, "count": 0, "distinct": 0, "files": 0, "jobs": [],
                                            "first_seen": where})
            c["count"] += x.count
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
            "findings": sum(c["count"] for c in by_code.values()), "input_errors": len(errors),
            "by_code": dict(sorted(by_code.items())), "by_job": dict(sorted(by_job.items())), "errors": errors}


def run_local(paths: list[str], jobs_of: list[str], rule: str, workers: int,
              on_done: Callable[[], None]) -> list[FileSummary]:
    args = [(p, j, rule) for p, j in zip(paths, jobs_of)]
    if workers > 1 and len(paths) > 1:
        from .parallel import map_isolated

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
        from .errors import UsageError

        raise UsageError("--scheduler needs Dask: pip install 'xladoctor[dask]'") from None
    with Client(scheduler) as client:
        futures = client.map(scan_one, paths, jobs_of, [rule] * len(paths), pure=False)
        for _ in as_completed(futures):
            on_done()
        results = client.gather(futures)
    return list(results)


def summary_json(s: FileSummary) -> dict[str, Any]:
    return asdict(s)
