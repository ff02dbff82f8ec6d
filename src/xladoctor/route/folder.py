"""The route of many inputs: a folder walked, files and streams named on the command line.

Which paths ``check`` reads: directories walked (:func:`xladoctor.base.files.walk`), XLA's non-HLO
dump artefacts and binary formats skipped, the bundled examples, each HLO file paired with its
StableHLO and each tensors file split into its graphs (:func:`expand`); then each item checked by
its kind's route (:mod:`.dispatch`), in a process pool when there are several
(:mod:`xladoctor.base.parallel`, ``-j``), reduced as it arrives (:mod:`.folder_results`) and
listed in walk order whatever finishes first (:func:`check_items`).  ``fleet`` (:mod:`.fleet`)
runs the same per-file route over many jobs, locally or on Dask."""

from __future__ import annotations

import os

from ..base.errors import InputError
from ..base.labels import label
from ..ir.value import FrozenValue, fields_with
from .stablehlo import STABLEHLO_SUFFIXES

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from ..findings.model import Report
    from .folder_results import JsonSpool, Kept, Wanted
    from .options import Options

# XLA writes these next to the HLO dumps; none is HLO text and none holds error messages.
_DUMP_ARTEFACTS = ("buffer-assignment", "memory-usage-report", "live-range", ".debug_options", "-thunk-sequence")
# ... and these: the compile's options, flags and environment (a TPU dump's .execution_options.txt,
# .flagfile, .tpu_comp_env.txt, .hlo_module_config.txt, .target_arguments.txt; a GPU dump's
# .gpu_target_config.pbtxt, autotuning results), text that holds no HLO and no error.
_SIDE_FILE_ENDINGS = (".execution_options.txt", ".flagfile", "tpu_comp_env.txt", ".hlo_module_config.txt",
                      ".target_arguments.txt", ".gpu_target_config.pbtxt", ".autotune_results.pbtxt",
                      ".compile_options.txt", "compile_options.textproto", "topology.textproto",
                      ".thunk_sequence.txt", ".thunk_metadata.txt")
SIDE_FILE_NOTE = "XLA dump artefact that is not HLO text"
# Source code: a repository or a notebook folder holds the program beside its logs, and no tool writes
# a log or an HLO dump under these names, while the code itself may quote an error message in a string
# (a test, an except clause), which the catalogue would report as the error.  ``.txt`` is kept: XLA's
# dumps are ``.txt`` and a log saved by hand (``> run.txt``) is too; ``.ipynb`` is kept: its output
# cells hold the traceback.
_SOURCE_SUFFIXES = (".py", ".pyi", ".pyx", ".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".rs", ".go", ".java",
                    ".js", ".ts")
SOURCE_NOTE = "source code, not a log or HLO text"
_SKIP_SUFFIXES = (".pb", ".pyc", ".o", ".ll", ".so", ".png", ".svg", ".html", ".npy", ".bin", ".zip", ".tar", ".textproto",
                  ".mlir", ".dot", ".pbtxt", ".ptx")


def example_paths() -> list[str]:
    """The bundled examples, as files on disk (the package is installed unzipped)."""
    from importlib import resources  # here: it imports pathlib, tempfile and zipfile (start-up, issue 36)

    root = resources.files("xladoctor") / "examples"
    return sorted(str(p) for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


class Item(FrozenValue):
    """One path to report: ``status`` is ``file`` (check it), ``stdin``, ``skipped`` or ``error``.
    Written out, not a dataclass (:mod:`..ir.value`: start-up, issue 36)."""

    _FIELDS = ("path", "status", "note", "explicit", "stablehlo", "companion_of", "graph")

    path: str
    status: str
    note: str
    explicit: bool
    stablehlo: str | None
    """The same program's StableHLO beside it (``NAME.mlir``/``NAME.stablehlo`` for ``NAME.hlo``)."""
    companion_of: str | None
    """For that StableHLO file itself: the module it is read with (so it is not checked alone)."""
    graph: int | None
    """A graph of a PyTorch/XLA tensors file (``XLA_SAVE_TENSORS_FILE``), 1-based: each is checked
    as a module of its own (:mod:`xladoctor.syntax.tensors_file`)."""

    def __init__(self, path: str, status: str, note: str = "", explicit: bool = False, stablehlo: str | None = None,
                 companion_of: str | None = None, graph: int | None = None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "explicit", explicit)
        object.__setattr__(self, "stablehlo", stablehlo)
        object.__setattr__(self, "companion_of", companion_of)
        object.__setattr__(self, "graph", graph)

    def replace(self, **changes: Any) -> Item:
        """A copy with ``changes`` (field names), as ``dataclasses.replace`` (made in this layer)."""
        return Item(**fields_with(self, changes))


COMPANION_NOTE = "StableHLO of {hlo}: read with it, for its memory kinds"
COMPANION_OWNERS = (".hlo", ".txt")
"""The files a StableHLO can be beside: ``syntax.companion.HLO_SUFFIXES`` (tests/test_startup.py holds them equal)."""


def companion_of(path: str) -> str | None:
    """``NAME.mlir`` (or ``NAME.stablehlo``) beside ``NAME.hlo``/``NAME.txt``: the StableHLO of the
    same lowering (``Lowered.as_text()``), which carries the memory kinds the HLO text lacks
    (the resolver's rule, :func:`xladoctor.syntax.companion.beside`, which every command uses)."""
    if not path.endswith(COMPANION_OWNERS):  # a log has none: syntax.companion imports the IR (issue 36 item 6)
        return None
    from ..syntax.companion import beside

    return beside(path)


def pair(items: list[Item]) -> list[Item]:
    """Each HLO file with the StableHLO beside it; the StableHLO itself is listed as read with it."""
    taken: dict[str, str] = {}
    out = []
    for it in items:
        if it.status == "file" and it.stablehlo is None:
            companion = companion_of(it.path)
            if companion is not None:
                taken[os.path.normpath(companion)] = it.path
                it = it.replace(stablehlo=companion)
        out.append(it)
    return [Item(it.path, "skipped", COMPANION_NOTE.format(hlo=taken[os.path.normpath(it.path)]),
                 companion_of=taken[os.path.normpath(it.path)])
            if it.status in ("file", "skipped") and os.path.normpath(it.path) in taken else it for it in out]


def expand(paths: list[str], stablehlo: str | None = None) -> list[Item]:
    """The command line's paths with directories walked, in walk order, each HLO file paired
    with its StableHLO (``stablehlo``: the one ``--stablehlo`` names, for a single HLO file)."""
    from ..base.files import walk
    from .tensors import graph_items

    out: list[Item] = []
    for path in paths:
        if path == "-":
            out.append(Item(path, "stdin", explicit=True))
        elif os.path.isdir(path):
            for entry in walk(path):
                if entry.status == "file":
                    reason = skip_reason(entry.path)
                    out.extend([Item(entry.path, "skipped", reason)] if reason else graph_items(entry.path, False))
                else:
                    out.append(Item(entry.path, entry.status, entry.note))
        else:  # named on the command line: a lone StableHLO module is checked (route/stablehlo.py)
            reason = None if path.endswith(STABLEHLO_SUFFIXES) else skip_reason(path)
            out.extend([Item(path, "skipped", reason)] if reason else graph_items(path, True))
    if stablehlo is not None:
        files = [i for i, it in enumerate(out) if it.status == "file"]
        if len(files) != 1:
            from ..base.errors import UsageError

            raise UsageError("--stablehlo names the StableHLO of one HLO module: give exactly one file with it")
        out[files[0]] = Item(out[files[0]].path, "file", explicit=out[files[0]].explicit, stablehlo=stablehlo,
                             graph=out[files[0]].graph)
    return pair(out)


def skip_reason(path: str) -> str | None:
    """Why ``path`` is not read (hidden, an XLA dump artefact, source code, a binary format), or None."""
    from ..base.files import compression_of

    base = os.path.basename(path)
    if compression_of(base):  # job.log.gz is read as job.log is, decompressed
        base = os.path.splitext(base)[0]
    if base.startswith("."):
        return "hidden file"
    if any(a in base for a in _DUMP_ARTEFACTS) or base.endswith(_SIDE_FILE_ENDINGS) or base == "flagfile":
        return SIDE_FILE_NOTE  # report.check_text counts these by this note
    if base.endswith(_SOURCE_SUFFIXES):
        return SOURCE_NOTE  # ... and these by this one
    if base.endswith(_SKIP_SUFFIXES):
        return "not a text format xladoctor reads"
    return None


def check_items(items: list[Item], opts: Options, jobs: int, progress, want: Wanted,
               spool: JsonSpool | None) -> list[Kept]:
    """What is kept of each entry, in ``items`` order; files in a process pool when there are several
    and ``jobs > 1`` (0: one per usable core).  Each entry is reduced as it arrives (:mod:`.folder_results`)."""
    from ..findings.model import Report
    from .dispatch import check_path, check_stdin, unread
    from .folder_results import keep

    out: list[Kept | None] = [None] * len(items)
    todo = [i for i, it in enumerate(items) if it.status == "file"]
    if len(todo) > 1:  # a lone file is checked here, with no pool to size: the log scanner is not imported
        from ..catalogue.fastscan import usable_cpus

        jobs = jobs or usable_cpus()
    for i, it in enumerate(items):
        if it.status == "skipped":
            from ..findings.details import SkippedInput  # a log's details: not imported for a module alone

            skipped = Report("check", (it.path,), (), opts.lang, details=SkippedInput(it.note, it.companion_of))
            out[i] = keep(entry_of(skipped), want, i, spool)
        elif it.status == "error":
            out[i] = keep(entry_of(unread(it.path, str(InputError(it.note, it.path, 1, 1)), opts.lang)), want, i, spool)
        elif it.status == "stdin":
            out[i] = keep(entry_of(check_stdin(opts)), want, i, spool)
            progress.advance()
    if jobs > 1 and len(todo) > 1:
        from ..base.parallel import map_isolated
        from ..findings.wire import from_wire

        # JSON is the wire format between processes: each worker returns its entry as JSON text,
        # read back (its findings typed once) here, and reduced before the next one is read.
        def arrived(n: int, entry: Any) -> Kept:
            return keep(from_wire(entry) if isinstance(entry, str) else entry, want, todo[n], spool)

        results = map_isolated(check_path_wire, [(items[i].path, items[i].explicit, opts, items[i].stablehlo,
                                                  items[i].graph) for i in todo],
                               jobs, progress.advance, _crashed_entry, arrived)
        for i, kept in zip(todo, results):
            out[i] = kept
    else:
        # after the last file only its entry is drawn (the text's lines, the JSON streamed to the
        # spool, the page's small entry): the console script skips that collection (base/collector.py)
        for i in todo:
            out[i] = keep(entry_of(check_path(items[i].path, items[i].explicit, opts, items[i].stablehlo,
                                              items[i].graph, i == todo[-1])), want, i, spool)
            progress.advance()
    return [k for k in out if k is not None]


def check_path_wire(path: str, explicit: bool, opts: Options, stablehlo: str | None = None,
                    graph: int | None = None) -> str:
    """:func:`~xladoctor.route.dispatch.check_path` in a worker process: its Report's entry
    (:func:`~xladoctor.report.check_json.file_entry`) as JSON text, the wire between processes.

    A worker cannot tell its last file (the pool hands out the next one when it asks), so it
    collects after every file, before the entry is drawn: deferring each collection to the next
    file's start (none after the worker's last) held the module's garbage while the entry and its
    wire text were drawn, and ``check DIR --jobs 2``'s peak rose (66 -> 73 MiB on 20 modules of
    10-20k instructions, h44q) for one collection saved per worker."""
    from ..findings.wire import to_wire
    from .dispatch import check_path

    return to_wire(entry_of(check_path(path, explicit, opts, stablehlo, graph)))


def entry_of(report: Report) -> dict[str, Any]:
    """``check``'s entry of one input's Report (:func:`~xladoctor.report.check_json.file_entry`);
    a bug in drawing it costs that file its entry, never the other files theirs (as a bug in
    its analysis, :func:`~xladoctor.route.dispatch.check_path`)."""
    from ..report.check_json import error_entry, file_entry

    try:
        return file_entry(report)
    except Exception as e:
        path = report.inputs[0] if report.inputs else "<input>"
        return error_entry(path, f"{path}:1:1: internal error while checking this file: {type(e).__name__}: {e} "
                                 "(a bug in xladoctor; the other files were checked)")


def _crashed_entry(args: tuple[str, bool, Options, str | None, int | None], why: str) -> dict[str, Any]:
    from ..report.check_json import error_entry

    path = args[0]
    return error_entry(path, label("status.worker_crashed", args[2].lang, path=path, why=why))
