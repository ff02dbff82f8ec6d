"""Which paths ``check`` reads: directories walked (:func:`xladoctor.base.files.walk`), XLA's non-HLO
dump artefacts and binary formats skipped, the bundled examples."""

from __future__ import annotations

import os
from dataclasses import dataclass

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
_SKIP_SUFFIXES = (".pb", ".o", ".ll", ".so", ".png", ".svg", ".html", ".npy", ".bin", ".zip", ".tar", ".textproto",
                  ".mlir", ".dot", ".pbtxt", ".ptx")


def example_paths() -> list[str]:
    """The bundled examples, as files on disk (the package is installed unzipped)."""
    from importlib import resources  # here: it imports pathlib, tempfile and zipfile (start-up, issue 36)

    root = resources.files("xladoctor") / "examples"
    return sorted(str(p) for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


@dataclass(frozen=True)
class Item:
    """One path to report: ``status`` is ``file`` (check it), ``stdin``, ``skipped`` or ``error``."""

    path: str
    status: str
    note: str = ""
    explicit: bool = False
    stablehlo: str | None = None
    """The same program's StableHLO beside it (``NAME.mlir``/``NAME.stablehlo`` for ``NAME.hlo``)."""
    companion_of: str | None = None
    """For that StableHLO file itself: the module it is read with (so it is not checked alone)."""
    graph: int | None = None
    """A graph of a PyTorch/XLA tensors file (``XLA_SAVE_TENSORS_FILE``), 1-based: each is checked
    as a module of its own (:mod:`xladoctor.syntax.tensors_file`)."""


COMPANION_NOTE = "StableHLO of {hlo}: read with it, for its memory kinds"


def companion_of(path: str) -> str | None:
    """``NAME.mlir`` (or ``NAME.stablehlo``) beside ``NAME.hlo``/``NAME.txt``: the StableHLO of the
    same lowering (``Lowered.as_text()``), which carries the memory kinds the HLO text lacks
    (the resolver's rule, :func:`xladoctor.syntax.companion.beside`, which every command uses)."""
    from ...syntax.companion import beside

    return beside(path)


def pair(items: list[Item]) -> list[Item]:
    """Each HLO file with the StableHLO beside it; the StableHLO itself is listed as read with it."""
    from dataclasses import replace

    taken: dict[str, str] = {}
    out = []
    for it in items:
        if it.status == "file" and it.stablehlo is None:
            companion = companion_of(it.path)
            if companion is not None:
                taken[os.path.normpath(companion)] = it.path
                it = replace(it, stablehlo=companion)
        out.append(it)
    return [Item(it.path, "skipped", COMPANION_NOTE.format(hlo=taken[os.path.normpath(it.path)]),
                 companion_of=taken[os.path.normpath(it.path)])
            if it.status in ("file", "skipped") and os.path.normpath(it.path) in taken else it for it in out]


def expand(paths: list[str], stablehlo: str | None = None) -> list[Item]:
    """The command line's paths with directories walked, in walk order, each HLO file paired
    with its StableHLO (``stablehlo``: the one ``--stablehlo`` names, for a single HLO file)."""
    from ...base.files import walk

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
        else:
            reason = skip_reason(path)
            out.extend([Item(path, "skipped", reason)] if reason else graph_items(path, True))
    if stablehlo is not None:
        files = [i for i, it in enumerate(out) if it.status == "file"]
        if len(files) != 1:
            from ...base.errors import UsageError

            raise UsageError("--stablehlo names the StableHLO of one HLO module: give exactly one file with it")
        out[files[0]] = Item(out[files[0]].path, "file", explicit=out[files[0]].explicit, stablehlo=stablehlo,
                             graph=out[files[0]].graph)
    return pair(out)


_SNIFF = 4096


def graph_items(path: str, explicit: bool) -> list[Item]:
    """``path`` as one item, or one per graph when it is a PyTorch/XLA tensors file (its first bytes
    say so; a file that cannot be read or split, or is not a regular file, stays one item: checking
    it reports why)."""
    import stat

    from ...syntax.tensors_file import is_tensors_file, saved_graphs

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device is read once, by its check
            return [Item(path, "file", explicit=explicit)]
        with open(path, "rb") as f:
            head = f.read(_SNIFF)
            if not is_tensors_file(head.decode("utf-8", "replace")):
                return [Item(path, "file", explicit=explicit)]
            from ...base.files import decode_text

            count = len(saved_graphs(decode_text(head + f.read(), path), path))
    except (OSError, ValueError):
        return [Item(path, "file", explicit=explicit)]
    return [Item(path, "file", explicit=explicit, graph=n) for n in range(1, count + 1)] or \
        [Item(path, "file", explicit=explicit)]


def skip_reason(path: str) -> str | None:
    """Why ``path`` is not read (hidden, an XLA dump artefact, a binary format), or None."""
    from ...base.files import compression_of

    base = os.path.basename(path)
    if compression_of(base):  # job.log.gz is read as job.log is, decompressed
        base = os.path.splitext(base)[0]
    if base.startswith("."):
        return "hidden file"
    if any(a in base for a in _DUMP_ARTEFACTS) or base.endswith(_SIDE_FILE_ENDINGS) or base == "flagfile":
        return SIDE_FILE_NOTE  # report.check_text counts these by this note
    if base.endswith(_SKIP_SUFFIXES):
        return "not a text format xladoctor reads"
    return None
