"""The StableHLO companion's path as every text output says it (``check``, ``offload``, ``hlo``).

Its own module: ``offload``'s text names the companion it read, and ``report.check_text`` (the
findings' renderer, the JSON reader, the confirmation's model) is ``check``'s, not needed for
that one line (issue 36 item 1, tests/test_startup.py).
"""

from __future__ import annotations

from ..base.escape import escape_field
from ..base.labels import label

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any


def companion_shown(companion: dict[str, Any], lang: str = "en") -> str:
    """The companion's path as every output says it: a symlink with the file it names (``link_to``)."""
    path = escape_field(companion["path"])
    if companion.get("link_to"):
        return label("check.kinds_link", lang, path=path, target=escape_field(companion["link_to"]))
    return path
