"""Colour on a terminal, as users of ruff and rustc expect, and nowhere else.

The rule (https://no-color.org, https://force-color.org): ``NO_COLOR`` set to anything
non-empty turns colour off; else ``FORCE_COLOR`` non-empty (and not ``0``) turns it on, even
into a pipe (CI logs that render ANSI); else colour only when the stream is a terminal and
``TERM`` is not ``dumb``.  Coloured text is written past the terminal-safe wrapper
(:attr:`xladoctor.escape.TerminalSafeStream.controls`), so every input-derived piece must be
escaped (:func:`xladoctor.escape.escape_field`) before it is painted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

_STYLES = {"bold": "1", "red": "1;31", "yellow": "1;33", "cyan": "36", "dim": "2", "green": "32"}


def colour_enabled(stream: Any, environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    force = env.get("FORCE_COLOR")
    if force:
        return force != "0"
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and env.get("TERM") != "dumb"


class Painter:
    """Wraps text in ANSI styles when colour is on, returns it unchanged otherwise."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if self.enabled and text else text
