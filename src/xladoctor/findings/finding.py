"""A finding and its parts (:class:`Finding`, :class:`Location`, :class:`Hop`, :class:`Fix`,
:class:`Edit`): the values of :mod:`.model` a report holds only when it has a finding.

:mod:`.model` names them and imports this module when one is first asked for (PEP 562), so a
clean log's run, which builds a :class:`~.model.Report` with no finding, creates none of these
frozen values (~3 ms of its start-up, issue 36 item 6).  They are written out on
:class:`~xladoctor.base.plain_dataclass.FrozenDataclass` (not generated: no ``dataclasses`` on a
command's way, issue 36 start-up) and are still dataclasses to ``dataclasses``' functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..base.plain_dataclass import FACTORY, FrozenDataclass
from ..ir.metadata import SourceLocation
from .model import JSON, FindingKind, FixKind, Origin, Severity, _frozen_mapping
from .source_line import SourceLine, distinct_lines

__all__ = ["Edit", "Finding", "Fix", "Hop", "Location"]


class Location(FrozenDataclass):
    """Where in the artefact: the HLO file (line, column, instruction, computation) or the log line.

    ``path`` is the artefact as the user named it (``<stdin>`` for standard input, None
    for an in-memory module); ``line``/``column`` are 1-based or None.
    """

    __slots__ = ("path", "line", "column", "instruction", "computation")
    path: str | None
    line: int | None
    column: int | None
    instruction: str | None
    computation: str | None

    def __init__(self, path: str | None = None, line: int | None = None, column: int | None = None,
                 instruction: str | None = None, computation: str | None = None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "computation", computation)


class Hop(FrozenDataclass):
    """One hop of an offloaded tensor's path, as XLA's trace names it plus what a reader needs.

    ``opcode``/``shape``/``computation`` are None when the source (a log's host_offloader
    trace) does not say them; ``line`` is the instruction's line in the HLO text.
    """

    __slots__ = ("instruction", "shape_index", "opcode", "shape", "computation", "line", "source")
    instruction: str
    shape_index: tuple[int, ...]
    opcode: str | None
    shape: str | None
    computation: str | None
    line: int | None
    source: SourceLocation | None

    def __init__(self, instruction: str, shape_index: tuple[int, ...] = (), opcode: str | None = None,
                 shape: str | None = None, computation: str | None = None, line: int | None = None,
                 source: SourceLocation | None = None) -> None:
        object.__setattr__(self, "instruction", instruction)
        object.__setattr__(self, "shape_index", shape_index)
        object.__setattr__(self, "opcode", opcode)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "computation", computation)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "source", source)


class Edit(FrozenDataclass):
    """One machine-applicable change to an input file, as ruff's fixes carry them: replace lines
    ``start_line`` up to (not including) ``end_line`` (1-based) with ``content``; equal lines insert.

    With ``start_column`` and ``end_column`` (1-based characters, the end excluded, as SARIF's
    regions) the edit replaces that span of line ``start_line`` (= ``end_line``) instead: a fix of
    one output of a thousand-output module changes one operand of the ROOT line and one leaf of
    the entry layout, and whole lines would repeat the module's widest lines once per output."""

    __slots__ = ("path", "start_line", "end_line", "content", "start_column", "end_column")
    path: str
    start_line: int
    end_line: int
    content: str
    start_column: int | None
    end_column: int | None

    def __init__(self, path: str, start_line: int, end_line: int, content: str, start_column: int | None = None,
                 end_column: int | None = None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "start_line", start_line)
        object.__setattr__(self, "end_line", end_line)
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "start_column", start_column)
        object.__setattr__(self, "end_column", end_column)


class Fix(FrozenDataclass):
    """One remedy: prose in the report's language, optionally code and a command that applies it."""

    __slots__ = ("kind", "text", "code", "command", "applicability", "edits")
    kind: FixKind
    text: str
    code: str | None
    """A Python/JAX snippet."""
    command: tuple[str, ...] | None
    """An ``xladoctor`` command line that applies the fix, runnable as written."""
    applicability: str | None
    """``safe`` (keeps what the program means) or ``unsafe`` (changes it, e.g. where an output lives),
    as ruff grades its fixes; None for advice."""
    edits: tuple[Edit, ...]
    """The change as edits of the input file, when the fix is one (an HLO module's E1200 fixes)."""

    def __init__(self, kind: FixKind, text: str, code: str | None = None, command: tuple[str, ...] | None = None,
                 applicability: str | None = None, edits: tuple[Edit, ...] = ()) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "applicability", applicability)
        object.__setattr__(self, "edits", edits)


def _no_fields() -> Mapping[str, JSON]:
    return MappingProxyType({})


class Finding(FrozenDataclass):
    """One finding; ``fields`` holds the kind-specific facts as plain (frozen) JSON values."""

    __slots__ = ("code", "name", "kind", "origin", "severity", "title", "message", "location", "source", "path",
                 "fixes", "count", "lines", "fields")
    _FACTORIES = (("location", Location), ("fields", _no_fields))
    code: str
    name: str
    kind: FindingKind
    origin: Origin
    severity: Severity
    title: str
    message: str
    """XLA's exact text, as XLA prints it or as it appears in the log."""
    location: Location
    source: SourceLocation | None
    path: tuple[Hop, ...]
    fixes: tuple[Fix, ...]
    count: int
    lines: tuple[int, ...]
    """Log lines of the occurrences (the first ones; ``count`` says how many in all)."""
    fields: Mapping[str, JSON]

    def __init__(self, code: str, name: str, kind: FindingKind, origin: Origin, severity: Severity, title: str,
                 message: str, location: Location = FACTORY, source: SourceLocation | None = None,
                 path: tuple[Hop, ...] = (), fixes: tuple[Fix, ...] = (), count: int = 1, lines: tuple[int, ...] = (),
                 fields: Mapping[str, JSON] = FACTORY) -> None:
        """As the dataclass' ``__init__`` and ``__post_init__``: ``fields`` deep-frozen, the sequences tuples."""
        setattr_ = object.__setattr__
        for name_, value in (("code", code), ("name", name), ("kind", kind), ("origin", origin),
                             ("severity", severity), ("title", title), ("message", message), ("source", source),
                             ("count", count)):
            setattr_(self, name_, value)
        setattr_(self, "location", Location() if location is FACTORY else location)
        setattr_(self, "path", tuple(path))
        setattr_(self, "fixes", tuple(fixes))
        setattr_(self, "lines", tuple(lines))
        setattr_(self, "fields", _frozen_mapping(MappingProxyType({}) if fields is FACTORY else fields))

    # An E1200 from ``xladoctor.jax`` also carries the program's own facts (``fields["jax"]``) and
    # both fixes as JAX code (``Fix.code``); these read them under the names docs/jax.md gives
    # (None, or empty, for a finding that has none: one from a module or a log).

    def _jax(self) -> Mapping[str, JSON]:
        facts = self.fields.get("jax")
        return facts if isinstance(facts, Mapping) else MappingProxyType({})

    @property
    def output(self) -> str | None:
        """The output's pytree path, as JAX names it (``result[1]['w']``)."""
        value = self._jax().get("output")
        return value if isinstance(value, str) else None

    @property
    def leaf(self) -> int | None:
        """The output's position among the flattened outputs (the ``out_shardings`` leaf)."""
        value = self._jax().get("leaf")
        return value if isinstance(value, int) else None

    @property
    def host_argument(self) -> str | None:
        """The argument's name when the tensor arrived in host memory (input streaming)."""
        value = self._jax().get("host_argument")
        return value if isinstance(value, str) else None

    @property
    def offloaded_at(self) -> SourceLine | None:
        """The Python line where the tensor was moved to host."""
        return SourceLine.from_json(self._jax().get("offloaded_at"))

    @property
    def offloaded_from(self) -> tuple[SourceLine, ...]:
        """The callers of ``offloaded_at``, innermost first, up to the jitted function."""
        return tuple(s for s in map(SourceLine.from_json, _items(self._jax().get("offloaded_from"))) if s is not None)

    @property
    def offloaded_via(self) -> tuple[SourceLine, ...]:
        """The helpers between ``offloaded_at`` and the placement itself, from the user's line
        inwards (wrappers of ``device_put``/``place_to_host`` that only hand the value back)."""
        return tuple(s for s in map(SourceLine.from_json, _items(self._jax().get("offloaded_via"))) if s is not None)

    @property
    def returned_at(self) -> SourceLine | None:
        """Where the value returned at this output is computed: the device fix goes there."""
        return SourceLine.from_json(self._jax().get("returned_at"))

    @property
    def xla_message(self) -> str:
        """What XLA prints (``message``)."""
        return self.message

    @property
    def start(self) -> str | None:
        """The instruction XLA names in "starting from X"."""
        value = self.fields.get("start")
        return value if isinstance(value, str) else None

    @property
    def reported_by_xla(self) -> bool:
        """True for the one XLA names (it stops at the first)."""
        told = self._jax().get("reported_by_xla")
        return told if isinstance(told, bool) else self.fields.get("first") is True

    @property
    def host_fix(self) -> str | None:
        """E1200 remedy (a) as code: the output in host memory."""
        return next((x.code for x in self.fixes if x.kind is FixKind.HOST_OUTPUT), None)

    @property
    def device_fix(self) -> str | None:
        """E1200 remedy (b) as code: the value moved back to device memory."""
        return next((x.code for x in self.fixes if x.kind is FixKind.MOVE_TO_DEVICE), None)

    def source_lines(self) -> list[SourceLine]:
        """The Python lines of the tensor's path, in order (consecutive repeats folded)."""
        steps = _items(self._jax().get("path"))
        return distinct_lines(SourceLine.from_json(s.get("source")) for s in steps if isinstance(s, Mapping))

    def user_lines(self) -> list[SourceLine]:
        """Every Python line the finding names: the offload, its callers, the path, the return."""
        steps = [s for s in _items(self._jax().get("path")) if isinstance(s, Mapping)]
        lines = [self.offloaded_at, *self.offloaded_from, *(SourceLine.from_json(s.get("source")) for s in steps),
                 self.returned_at]
        return [s for s in lines if s is not None]


def _items(value: JSON) -> tuple[JSON, ...]:
    return value if isinstance(value, tuple) else ()
