"""How ``--fix`` and ``--diff`` write a fixed module: a unified diff, or the module on stdout.

The fix itself (applied to the text the user wrote, parsed back, analysed again, refused when it
does not read back as the fix alone) is :mod:`xladoctor.route.fix`'s, for ``offload`` and
``check`` alike; the commands write what it returns.
"""

from __future__ import annotations

import sys


def unified_diff(original: str, fixed: str, source: str, target: str) -> str:
    """What ``--diff`` prints: the change as a unified diff (``a/`` and ``b/`` the same file), each
    line with its own line ending (a CRLF file's diff applies to it with ``patch``)."""
    import difflib  # here: only --diff needs it

    return "".join(difflib.unified_diff(_lines(original), _lines(fixed), fromfile=source, tofile=target))


def _lines(text: str) -> list[str]:
    """Lines split at LF only, each keeping its ending: a CR before it stays in the line (as patch
    reads a CRLF file), and no other character (form feed, U+2028) splits one."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def write_module_text(text: str) -> None:
    """A module (``-o -``) or its diff on stdout, byte for byte into a pipe or file (a CR stays a CR,
    not the text ``\\r``); on a terminal through the escaping stream, CRLF shown as a line break."""
    if sys.stdout.isatty():
        sys.stdout.write(text.replace("\r\n", "\n"))
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()
