"""The findings model: what every analysis reports, independent of how it is drawn.

One ``Finding`` is one thing a user must act on (or may ignore, for a ``NOTE``):
an E1200 the host-offload analysis predicts, another failure of XLA's HostOffloader
pass, an E0102 input mismatch, a catalogue error seen in a log, or the real TPU
compiler rejecting a module where nothing was predicted.  Commands, the HTML
report and ``xladoctor.jax`` build findings through one adapter per analysis
(``from_offload``, ``from_log``, ``from_inputs``) and serialise them through one
function (:mod:`.serialise`), so the same input gives the same findings by every
route.

Everything here is a frozen value: no IR objects are held (instructions are named,
shapes are XLA's canonical strings), so a finding outlives the module it came from
and can be compared, pickled across worker processes and round-tripped through JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType

from ..base.plain_dataclass import FrozenDataclass

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from ..ir.metadata import SourceLocation  # not ir.instruction: a log needs no IR (issue 36 item 6)
    from .details import Details
    from .finding import Edit as Edit  # not in __all__, importable as before
    from .finding import Finding, Fix, Hop, Location
    from .report_analysis import ReportAnalysis
    from .source_line import SourceLine

__all__ = ["JSON", "Finding", "FindingKind", "Fix", "FixKind", "Hop", "Location", "Origin", "Report",
           "ReportAnalysis", "Severity", "SourceLine", "SourceLocation", "freeze_json"]

JSON: TypeAlias = "bool | int | float | str | tuple[JSON, ...] | Mapping[str, JSON] | None"
"""A plain JSON value, frozen: lists are tuples, objects are read-only mappings."""


class Severity(Enum):
    """How bad: the scale SARIF and GitHub annotations use (``error``/``warning``/``note``)."""

    ERROR = "error"
    """XLA or the runtime will fail (or did, in a log)."""
    WARNING = "warning"
    """Likely wrong but some runtime accepts it (a layout-only input mismatch, for one)."""
    NOTE = "note"


class Origin(Enum):
    """Where the finding's evidence comes from."""

    PREDICTED = "predicted"
    """Our analysis of HLO text or shapes (nothing was compiled or run)."""
    LOGGED = "logged"
    """Seen in a log: XLA or the runtime printed it."""
    COMPILER = "compiler"
    """The real TPU compiler's verdict (``--confirm``)."""


class FindingKind(Enum):
    """What was found; one renderer per kind."""

    OFFLOAD_OUTPUT_MISMATCH = "offload-output-mismatch"
    """E1200 predicted: a host tensor reaches an entry output whose layout is not host memory."""
    OFFLOAD_PASS_FAILURE = "offload-pass-failure"
    """Another failure of HostOffloader: a returned status or a CHECK crash."""
    INPUT_MISMATCH = "input-mismatch"
    """E0102: a supplied buffer's layout or size differs from the executable's parameter."""
    LOGGED_ERROR = "logged-error"
    """Any catalogue code found in a log."""
    COMPILER_REJECTS = "compiler-rejects"
    LAYOUT_WARNING = "layout-warning"
    """A layout jaxlib's parser keeps and XLA's shape validation refuses (syntax/layout_warnings.py)."""
    """``--confirm``: the real compiler rejects where nothing was predicted, or disagrees."""


class FixKind(Enum):
    """What kind of remedy a ``Fix`` is (a renderer may offer an action for some)."""

    HOST_OUTPUT = "host-output"
    """Make the output host memory (E1200 remedy a)."""
    MOVE_TO_DEVICE = "move-to-device"
    """Add the missing move back to device (E1200 remedy b)."""
    DEVICE_PUT = "device-put"
    RELAYOUT = "relayout"
    RECOMPILE = "recompile"
    CONFIG = "config"
    ADVICE = "advice"
    """Catalogue prose, no mechanical edit behind it."""


def freeze_json(value: object) -> JSON:
    """Deep-freeze a plain JSON value (lists -> tuples, dicts -> read-only mappings).

    Refuses anything else, so an IR object or a dataclass cannot slip into ``fields``.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze_json(v) for v in value)
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("JSON object keys must be strings")
        return MappingProxyType({k: freeze_json(v) for k, v in value.items()})
    raise TypeError(f"not a plain JSON value: {type(value).__name__}")


def _frozen_mapping(value: Mapping[str, object]) -> Mapping[str, JSON]:
    frozen = freeze_json(value)
    assert isinstance(frozen, Mapping)
    return frozen


_FINDING = frozenset({"Edit", "Finding", "Fix", "Hop", "Location"})


def __getattr__(name: str) -> object:
    """A finding's classes, created when first asked for (PEP 562) in :mod:`.finding`: a clean log
    reports none, and their five frozen dataclasses were ~3 ms of its start-up (issue 36 item 6);
    likewise the Python line and source location a finding may name.  Importers keep ``from .model
    import Finding``."""
    if name in _FINDING:
        from . import finding as home
    elif name == "ReportAnalysis":
        from . import report_analysis as home  # type: ignore[no-redef]
    elif name == "SourceLine":
        from . import source_line as home  # type: ignore[no-redef]
    elif name == "SourceLocation":
        from ..ir import metadata as home  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(home, name)
    globals()[name] = value  # asked once
    return value


class Report(FrozenDataclass):
    """Every finding of one command run or API call, with the inputs it read and those it could not.

    The one report type: the commands, ``xladoctor.explain_log`` and ``xladoctor.jax`` all return
    it.  ``analysis`` holds what only an in-process route knows (see :class:`ReportAnalysis`); its
    public attributes read through the report (``report.outcome``, ``report.mismatches``), so the
    names the JAX API documents stay where users reach for them, and the route draws
    ``str(report)``, ``repr``, the notebook page and ``to_json()``."""

    __slots__ = ("command", "inputs", "findings", "lang", "input_errors", "analysis", "details")
    _HIDDEN = frozenset({"analysis", "details"})  # field(compare=False, repr=False)
    command: str
    inputs: tuple[str, ...]
    findings: tuple[Finding, ...]
    lang: str
    input_errors: tuple[str, ...]
    """One-line ``file:line:col: message`` texts."""
    analysis: ReportAnalysis | None
    """The in-process route's own result and views; None for a report rebuilt from JSON."""
    details: Details | None
    """What the route read and decided beyond the findings (:mod:`.details`: a module's summary and
    analysis, a log's matches), which ``report/`` draws the documents from; None across a process."""

    def __init__(self, command: str, inputs: tuple[str, ...] = (), findings: tuple[Finding, ...] = (),
                 lang: str = "en", input_errors: tuple[str, ...] = (), analysis: ReportAnalysis | None = None,
                 details: Details | None = None) -> None:
        """As the dataclass' ``__init__`` and ``__post_init__`` (the sequences made tuples)."""
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "inputs", tuple(inputs))
        object.__setattr__(self, "findings", tuple(findings))
        object.__setattr__(self, "lang", lang)
        object.__setattr__(self, "input_errors", tuple(input_errors))
        object.__setattr__(self, "analysis", analysis)
        object.__setattr__(self, "details", details)

    def __getattr__(self, name: str) -> Any:
        """The analysis' public attributes, read through (only called when the report has none)."""
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            analysis = object.__getattribute__(self, "analysis")
        except AttributeError:  # not set yet (while unpickling)
            raise AttributeError(name) from None
        if analysis is None or not hasattr(analysis, name):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(analysis, name)

    def findings_of(self, code: str) -> tuple[Finding, ...]:
        """The findings with this code (``report.findings_of("E1200")``), in order."""
        return tuple(f for f in self.findings if f.code == code)

    @property
    def exit_code(self) -> int:
        """The commands' rule: 2 when an input could not be read, 1 with any finding, else 0."""
        return 2 if self.input_errors else (1 if self.findings else 0)

    @property
    def ok(self) -> bool:
        """Nothing to act on: the route's verdict, or no finding and every input read."""
        if self.analysis is not None:
            return self.analysis.ok(self)
        return self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        """The route's JSON document; without a route, the findings document (``findings.to_json``)."""
        if self.analysis is not None:
            return self.analysis.document(self)
        from .serialise import to_json

        return to_json(self)

    def __str__(self) -> str:
        return self.analysis.text(self) if self.analysis is not None else repr(self)

    def __repr__(self) -> str:
        if self.analysis is not None:
            return self.analysis.summary(self)
        return (f"Report(command={self.command!r}, inputs={self.inputs!r}, findings=<{len(self.findings)}>, "
                f"lang={self.lang!r}, input_errors={self.input_errors!r})")

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """IPython's plain display: the text report, not the fields."""
        p.text(repr(self) if cycle else str(self))

    def _repr_html_(self) -> str | None:
        """Jupyter's display: the route's ``--html`` page (None without a route: plain text then)."""
        return self.analysis.html(self) if self.analysis is not None else None
