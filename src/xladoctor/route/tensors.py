"""The route of a PyTorch/XLA tensors file (``XLA_SAVE_TENSORS_FILE``): each graph it saved is
checked as the module it holds (:mod:`.hlo_text`), with the same triage as a module file, its
entry saying which graph and where the step synced; a folder lists one item per graph
(:func:`graph_items`).  The file's format is :mod:`xladoctor.syntax.tensors_file`'s."""

from __future__ import annotations

import os

from ..base.files import decode_text
from ..findings.model import Report
from .options import Options

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import BinaryIO

    from .folder import Item


def route_stream(f: BinaryIO, head: bytes, source: str, opts: Options, graph: int | None) -> Report:
    """``check``'s Report of graph ``graph`` (1-based; the only one when None) of the tensors file
    read from ``f`` (``head``: its first bytes), read whole (bounded)."""
    from .hlo_text import read_rest

    return _check_graph(decode_text(bytes(read_rest(f, head, source)), source), source, opts, graph)


def _check_graph(text: str, source: str, opts: Options, graph: int | None) -> Report:
    """One graph of a tensors file, checked as the module it holds (with the same triage as a
    module file), its details saying which graph and where the step synced (``graph``)."""
    from ..base.plain_dataclass import fields_with
    from ..findings.details import ModuleDetails, TriagedModule  # not at import: check's walk imports this module
    from ..syntax.tensors_file import saved_graphs, select_graph
    from .hlo_text import check_hlo, triaged

    count = len(saved_graphs(text, source))
    module_text, saved = select_graph(text, source, graph)
    assert saved is not None
    if not opts.full:
        from ..triage.hlo_triage import triage

        t = triage(module_text.encode("utf-8"), False)
        if not t.analyse:
            return triaged(source, t.module_name, False, graph=saved.to_json(count))
    report = check_hlo(module_text, source, opts)
    assert isinstance(report.details, (ModuleDetails, TriagedModule))
    return type(report)(**fields_with(report, {"details": report.details.replace(graph=saved.to_json(count))}))


_SNIFF = 4096


def graph_items(path: str, explicit: bool) -> list[Item]:
    """``path`` as one item, or one per graph when it is a PyTorch/XLA tensors file (its first bytes
    say so; a file that cannot be read or split, or is not a regular file, stays one item: checking
    it reports why)."""
    import stat

    from ..base.errors import InputError
    from ..base.files import read_bounded
    from ..syntax.module_sniff import is_tensors_file
    from .folder import Item

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device is read once, by its check
            return [Item(path, "file", explicit=explicit)]
        with open(path, "rb") as f:
            head = f.read(_SNIFF)
            if not is_tensors_file(head.decode("utf-8", "replace")):
                return [Item(path, "file", explicit=explicit)]
            # bounded as every whole read is: `f.read()` here took 630 MB of memory for a 300 MB file
            # under a 1 MB bound before the check of that file refused it
            from ..syntax.tensors_file import saved_graphs

            count = len(saved_graphs(decode_text(bytes(read_bounded(f, path, head=head)), path), path))
    except (OSError, ValueError, InputError):
        return [Item(path, "file", explicit=explicit)]
    return [Item(path, "file", explicit=explicit, graph=n) for n in range(1, count + 1)] or \
        [Item(path, "file", explicit=explicit)]
