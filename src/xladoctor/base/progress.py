"""A one-line progress bar on a terminal's stderr; nothing at all anywhere else.

Shown only when stderr is a terminal and the caller is not writing JSON, so pipes, CI
logs and ``--json`` consumers never see carriage returns.  Redrawn at most ten times a
second and erased when done.  The bar is drawn with carriage returns and an erase-line
escape, which :class:`~xladoctor.base.escape.TerminalSafeStream` would make visible; so it is
written to the stream that wrapper guards (its ``controls``), and holds only our own text
(the label and two counts), never an input string.
"""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import TextIO


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None, enabled: bool | None = None):
        stream = stream or sys.stderr
        self.stream: TextIO = getattr(stream, "controls", stream)
        self.total, self.label, self.done = total, label, 0
        self.enabled = (self.stream.isatty() if enabled is None else enabled) and total > 1
        self._last = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        width = 30
        filled = width * self.done // max(1, self.total)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.label}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
