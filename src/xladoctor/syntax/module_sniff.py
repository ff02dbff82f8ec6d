"""What an input's first bytes say it is: an HLO module (:func:`hlo_header`) or a PyTorch/XLA
tensors file (:func:`is_tensors_file`); anything else is read as a log.

Apart from the modules that use them (``triage.provenance``, ``syntax.tensors_file``, which
re-export both) so that a log's route asks its two questions without importing either: each
brings its dataclasses and a dozen patterns (~3 ms of every ``explain LOG``, issue 36 item 6).
"""

from __future__ import annotations

BEGIN = "## BEGIN_GRAPH"
"""The line before each graph of a tensors file."""
HEADER = r"\[(\w+)\]\s*\n\s*TensorsGraphInfo:"
"""A tensors file's first graph without ``## BEGIN_GRAPH``: ``[name]`` then ``TensorsGraphInfo:``."""


def hlo_header(text: str) -> str | None:
    """The first line of ``text`` that is not blank or a ``//`` comment, byte-order marks skipped
    (where ``HloModule`` stands); ``None`` while a comment line has no end yet (read more to decide).

    Walks indices instead of slicing, so a module of hundreds of MB is not copied to read one line.
    """
    i, n = 0, len(text)
    while text.startswith("\ufeff", i):
        i += 1
    while True:
        while i < n and text[i].isspace():
            i += 1
        if not text.startswith("//", i):
            break
        end = text.find("\n", i)
        if end < 0:
            return None
        i = end + 1
    end = text.find("\n", i)
    return text[i:] if end < 0 else text[i:end]


def is_tensors_file(head: str) -> bool:
    """Does ``head`` (the first KiB or so of a file) start as a tensors file does?"""
    start = head.lstrip("\ufeff \t\r\n")
    if start.startswith(BEGIN):
        return True
    if not start.startswith("[") or "TensorsGraphInfo:" not in start:  # what every HEADER match holds
        return False
    import re  # here: a log's route asks this of every input, and re is ~25M instructions to import

    return re.match(HEADER, start) is not None
