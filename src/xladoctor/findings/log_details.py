"""The details of a log and of a skipped path (:mod:`.details`, which re-exports them): the only
ones ``explain LOG`` and ``check LOG`` build, apart from a module's, so a log's start-up creates two
classes, not seven (issue 36 item 6), written out: no ``dataclasses`` on a log's way
(:mod:`xladoctor.base.plain_dataclass`)."""

from __future__ import annotations

from ..base.plain_dataclass import FrozenDataclass

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from ..catalogue.scanner import LogMatch


class ScannedLog(FrozenDataclass):
    """A log scanned by the catalogue: each distinct XLA error once (the scanner's raw match, which
    the ``explain`` document writes beside the findings) and the messages past the distinct limit."""

    matches: tuple[LogMatch, ...]
    not_shown: dict[str, int]

    def __init__(self, matches: tuple[LogMatch, ...], not_shown: dict[str, int]) -> None:
        object.__setattr__(self, "matches", matches)
        object.__setattr__(self, "not_shown", not_shown)


class SkippedInput(FrozenDataclass):
    """A path ``check`` walked but does not read (a side file of XLA's dump, a binary format, the
    StableHLO companion of a module beside it): ``note`` says why."""

    note: str
    companion_of: str | None

    def __init__(self, note: str, companion_of: str | None = None) -> None:
        object.__setattr__(self, "note", note)
        object.__setattr__(self, "companion_of", companion_of)
