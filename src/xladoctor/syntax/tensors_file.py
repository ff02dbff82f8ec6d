"""PyTorch/XLA's ``XLA_SAVE_TENSORS_FILE``: the graphs it saves, each read as an HLO module.

With ``XLA_SAVE_TENSORS_FILE=PATH XLA_SAVE_TENSORS_FMT=hlo``, torch_xla appends one entry to
``PATH.N`` (N the device ordinal) each time it compiles a graph (torch_xla 2.9.0, ``DebugUtil``)::

    [ScheduleSyncTensorsGraph]
    TensorsGraphInfo:
      sync (/venv/.../torch_xla/torch_xla.py:87)
      <module> (/home/me/train.py:21)

    Root Hashes: (17fa5fe0..., 96bf3351...)

    ## BEGIN_GRAPH
    HloModule IrToHlo.10, entry_computation_layout={...}
    ...
    }

    Graph Hash: 6385050b...

    ## END_GRAPH

This pre-reader runs before the HLO parser and leaves it alone: it finds each graph and gives
its module as text *with every line of the file before it blanked*, so the parser's and the
snippets' ``file:line:col`` are the file's own.  The Python frames of the ``TensorsGraphInfo``
(where the step was synced, innermost first) are kept for the report; per-op source lines are in
the module's metadata (``XLA_HLO_DEBUG=1``).  A graph saved as torch IR (``XLA_SAVE_TENSORS_FMT=text``)
or dot has no ``HloModule`` line and is refused, located, with the format to use.
"""

from __future__ import annotations

import re

from ..base.errors import InputError
from ..base.lazy_pattern import LazyPattern
from ..ir.value import FrozenValue, fields_with
from .module_sniff import BEGIN, HEADER, is_tensors_file  # re-exported: what a route asks of a file's first bytes

END = "## END_GRAPH"
_HEADER = LazyPattern(HEADER)  # module_sniff keeps it as text: a log's route imports no re
_HEADER_LINE = LazyPattern(r"^\[\w+\][ \t]*$", re.M)
_FRAME = LazyPattern(r"^\s+(.+?) \((.*):(\d{1,18})\)\s*$")
"""A Python frame of ``TensorsGraphInfo``; a line number past 18 digits is no frame (``int()`` of
5,000 digits was an internal error of every command reading the file)."""
_TRAILER = LazyPattern(r"^Graph Hash: ", re.M)


class SavedGraph(FrozenValue):
    """One graph of a tensors file (written out, not a generated class: start-up, issue 36)."""

    _FIELDS = ("index", "reason", "frames", "line", "text", "digest", "times")

    index: int
    """1-based, in file order."""
    reason: str
    """The bracketed name torch_xla saved it under (``ScheduleSyncTensorsGraph``)."""
    frames: tuple[tuple[str, str, int], ...]
    """``(function, file, line)`` of the Python stack that synced it, innermost first."""
    line: int
    """The file's line of the graph's ``HloModule`` header (1-based)."""
    text: str
    """The module's text, preceded by one empty line per line of the file before it."""
    digest: str
    """torch_xla's ``Graph Hash`` (the module text where it has none): the same graph synced again."""
    times: int
    """How often the file holds this graph (each step of a loop syncs the same one again)."""

    def __init__(self, index: int, reason: str, frames: tuple[tuple[str, str, int], ...], line: int, text: str,
                 digest: str = "", times: int = 1) -> None:
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "frames", frames)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "digest", digest)
        object.__setattr__(self, "times", times)

    def user_frame(self) -> tuple[str, str, int] | None:
        """The innermost frame outside installed packages (the user's ``sync``/``mark_step`` line)."""
        from ..ir.frames import is_library

        return next((f for f in self.frames if not is_library(f[1])), None)

    def to_json(self, count: int) -> dict[str, object]:
        where = self.user_frame()
        return {"index": self.index, "of": count, "reason": self.reason, "line": self.line, "times": self.times,
                "synced_at": None if where is None else {"function": where[0], "file": where[1], "line": where[2]}}


class _Lines:
    """Line numbers of offsets met in increasing order, counted once over the text (a file of
    thousands of graphs is read in one pass, not once per graph)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:  # never asked out of order by saved_graphs; counted afresh if it were
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def saved_graphs(text: str, source: str) -> list[SavedGraph]:
    """The distinct graphs of a tensors file, in the order first synced (a graph synced again, by
    its ``Graph Hash``, counts in ``times`` and keeps its first place); a graph without its end or
    without HLO text is an :class:`InputError` at its ``## BEGIN_GRAPH`` line."""
    graphs: dict[str, SavedGraph] = {}
    lines = _Lines(text)
    pos = 0
    while True:
        begin = text.find(BEGIN, pos)
        if begin < 0:
            break
        body = text.find("\n", begin)
        body = len(text) if body < 0 else body + 1
        end = text.find(END, body)
        if end < 0:
            raise InputError(f"'{BEGIN}' without its '{END}' (a tensors file cut short?)", source,
                             lines.at(begin), 1)
        trailer = _TRAILER.search(text, body, end)
        stop = trailer.start() if trailer else end
        module = text[body:stop]
        first = len(module) - len(module.lstrip())
        line = lines.at(body + first)
        if not module[first:].startswith("HloModule"):
            raise InputError("this graph is not HLO text: save it with XLA_SAVE_TENSORS_FMT=hlo "
                             "(text and dot are torch_xla's own formats)", source, line, 1)
        if trailer is not None:
            eol = text.find("\n", trailer.end(), end)
            digest = text[trailer.end():eol if eol >= 0 else end].strip()
        else:
            digest = module[first:].strip()
        seen = graphs.get(digest)
        if seen is not None:
            graphs[digest] = SavedGraph(**fields_with(seen, {"times": seen.times + 1}))
        else:
            headers = list(_HEADER_LINE.finditer(text, pos, begin))
            reason, frames = _graph_info(text[headers[-1].start():begin] if headers else "")
            graphs[digest] = SavedGraph(len(graphs) + 1, reason, frames, line, "\n" * (line - 1) + module[first:],
                                        digest)
        pos = end + len(END)
    return list(graphs.values())


def _graph_info(info: str) -> tuple[str, tuple[tuple[str, str, int], ...]]:
    """The bracketed name and the Python frames of a graph's ``TensorsGraphInfo``."""
    m = _HEADER.match(info)
    frames: list[tuple[str, str, int]] = []
    for ln in info.splitlines()[2:]:
        f = _FRAME.match(ln)
        if f is None:
            if frames:
                break
            continue
        frames.append((f.group(1), f.group(2), int(f.group(3))))
    return (m.group(1) if m else ""), tuple(frames)


def select_graph(text: str, source: str, graph: int | None, editing: bool = False) -> tuple[str, SavedGraph | None]:
    """The module text a one-module command (``offload``, ``hlo``) reads: ``text`` itself unless it
    is a tensors file; then graph ``graph`` (1-based), or its only graph when ``graph`` is None.
    ``editing`` (``offload --fix`` in place) refuses a tensors file: it is torch_xla's record of a
    step, and writing one graph's fix over it would lose the others."""
    if not is_tensors_file(text[:4096]):
        if graph is not None:
            raise InputError("--graph picks a graph of a PyTorch/XLA tensors file (XLA_SAVE_TENSORS_FILE); "
                             "this file is not one", source, 1, 1)
        return text, None
    if editing:
        raise InputError("a tensors file is torch_xla's record, not fixed in place: write the fixed graph "
                         "elsewhere with -o OUT (or --diff), and fix the program", source, 1, 1)
    graphs = saved_graphs(text, source)
    if not graphs:
        raise InputError(f"a tensors file without any '{BEGIN}'", source, 1, 1)
    if graph is None and len(graphs) > 1:
        raise InputError(f"this tensors file holds {len(graphs)} graphs: pick one with --graph N (1-{len(graphs)}), "
                         "or `xladoctor check` it to check them all", source, graphs[1].line, 1)
    n = graph if graph is not None else 1
    if not 1 <= n <= len(graphs):
        raise InputError(f"--graph {n}: this tensors file holds {len(graphs)} graph(s)", source, 1, 1)
    return graphs[n - 1].text, graphs[n - 1]
