"""Which paths ``check`` reads: directories walked (:func:`xladoctor.files.walk`), XLA's non-HLO
dump artefacts and binary formats skipped, the bundled examples."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

# XLA writes these next to the HLO dumps; none is HLO text and none holds error messages.
_DUMP_ARTEFACTS = ("buffer-assignment", "memory-usage-report", "live-range", ".debug_options", "-thunk-sequence")
_SKIP_SUFFIXES = (".pb", ".o", ".ll", ".so", ".png", ".svg", ".html", ".npy", ".bin", ".gz", ".zip", ".textproto",
                  ".mlir", ".dot", ".pbtxt")


def example_paths() -> list[str]:
    """The bundled examples, as files on disk (the package is installed unzipped)."""
    root = resources.files("xladoctor") / "examples"
    return sorted(str(p) for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "_")))


@dataclass(frozen=True)
class Item:
    """One path to report: ``status`` is ``file`` (check it), ``stdin``, ``skipped`` or ``error``."""

    path: str
    status: str
    note: str = ""
    explicit: bool = False


def expand(paths: list[str]) -> list[Item]:
    """The command line's paths with directories walked, in walk order."""
    from ..files import walk

    out: list[Item] = []
    for path in paths:
        if path == "-":
            out.append(Item(path, "stdin", explicit=True))
        elif os.path.isdir(path):
            for entry in walk(path):
                if entry.status == "file":
                    reason = skip_reason(entry.path)
                    out.append(Item(entry.path, "skipped", reason) if reason else Item(entry.path, "file"))
                else:
                    out.append(Item(entry.path, entry.status, entry.note))
        else:
            reason = skip_reason(path)
            out.append(Item(path, "skipped", reason) if reason else Item(path, "file", explicit=True))
    return out


def skip_reason(path: str) -> str | None:
    """Why ``path`` is not read (hidden, an XLA dump artefact, a binary format), or None."""
    base = os.path.basename(path)
    if base.startswith("."):
        return "hidden file"
    if any(a in base for a in _DUMP_ARTEFACTS):
        return "XLA dump artefact that is not HLO text"
    if base.endswith(_SKIP_SUFFIXES):
        return "not a text format xladoctor reads"
    return None
