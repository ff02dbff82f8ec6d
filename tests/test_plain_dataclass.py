"""The written-out findings model, route options and log scan values against real ``@dataclass`` twins.

base/plain_dataclass.py writes ``Report``, ``Finding``, ``Hop``, ``Location``, ``Edit``, ``Fix``,
``SourceLine``, ``Options`` and the log's ``LogMatch``, ``ExplainedLog``, ``ScannedLog``,
``SkippedInput`` (and the scanner's ``Region``, ``LogScan``, ``ScanPart``) out without
``dataclasses`` (issue 36, start-up); most are public API, so each is compared here with the dataclass it was, declared again below: fields, defaults, flags,
equality, hash, repr, ``replace``/``asdict``/``astuple``/``fields``/``is_dataclass``, pickle, copy,
``FrozenInstanceError``, ``__match_args__``, slots and the constructor's signature.  A field added
to one and not the other fails here.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pytest

from xladoctor.base.plain_dataclass import FrozenDataclass, fields_with
from xladoctor.catalogue.fastscan import Region
from xladoctor.catalogue.logscan import LogScan
from xladoctor.catalogue.scanner import LogMatch, ScanPart
from xladoctor.findings.finding import Edit, Finding, Fix, Hop, Location
from xladoctor.findings.log_details import ScannedLog, SkippedInput
from xladoctor.findings.model import JSON, FindingKind, FixKind, Origin, Report, Severity
from xladoctor.findings.source_line import SourceLine
from xladoctor.ir.metadata import SourceLocation
from xladoctor.route.log_report import ExplainedLog
from xladoctor.route.options import Options

if TYPE_CHECKING:
    from xladoctor.findings.details import Details
    from xladoctor.findings.report_analysis import ReportAnalysis


@dataclass(frozen=True, slots=True)
class LocationTwin:
    path: str | None = None
    line: int | None = None
    column: int | None = None
    instruction: str | None = None
    computation: str | None = None


@dataclass(frozen=True, slots=True)
class HopTwin:
    instruction: str
    shape_index: tuple[int, ...] = ()
    opcode: str | None = None
    shape: str | None = None
    computation: str | None = None
    line: int | None = None
    source: SourceLocation | None = None


@dataclass(frozen=True, slots=True)
class EditTwin:
    path: str
    start_line: int
    end_line: int
    content: str
    start_column: int | None = None
    end_column: int | None = None


@dataclass(frozen=True, slots=True)
class FixTwin:
    kind: FixKind
    text: str
    code: str | None = None
    command: tuple[str, ...] | None = None
    applicability: str | None = None
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True, slots=True)
class FindingTwin:
    code: str
    name: str
    kind: FindingKind
    origin: Origin
    severity: Severity
    title: str
    message: str
    location: Location = field(default_factory=Location)
    source: SourceLocation | None = None
    path: tuple[Hop, ...] = ()
    fixes: tuple[Fix, ...] = ()
    count: int = 1
    lines: tuple[int, ...] = ()
    fields: Mapping[str, JSON] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class ReportTwin:
    command: str
    inputs: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    lang: str = "en"
    input_errors: tuple[str, ...] = ()
    analysis: ReportAnalysis | None = field(default=None, compare=False, repr=False)
    details: Details | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SourceLineTwin:
    file: str
    line: int
    function: str | None = None
    text: str = ""


@dataclass(frozen=True, kw_only=True)
class OptionsTwin:
    rule: str = "shipped"
    lang: str = "en"
    disable_host_compute: bool = False
    full: bool = False
    parallel_logs: bool = False
    confirm_topology: str | None = None
    confirm_run: int | None = None
    platform: str = "tpu"
    stablehlo_path: str | None = None
    stablehlo_found: str | None = None


@dataclass
class LogMatchTwin:
    code: str
    name: str
    line: int
    text: str
    fields: dict[str, Any]
    analysis: dict[str, Any]
    count: int = 1
    lines: list[int] = field(default_factory=list)


@dataclass
class ScanPartTwin:
    findings: list[tuple[tuple[str, str], LogMatch]]
    not_shown: dict[str, int]
    first_event: tuple | None
    pending_trace: list[dict[str, str]] | None


@dataclass
class RegionTwin:
    start: int
    end: int
    first_hit: int
    newlines_before: int


@dataclass
class LogScanTwin:
    findings: list[LogMatch]
    source: str
    not_shown: dict[str, int]


@dataclass(frozen=True)
class ExplainedLogTwin:
    source: str
    matches: list[LogMatch] = field(default_factory=list)
    not_shown: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ScannedLogTwin:
    matches: tuple[LogMatch, ...]
    not_shown: dict[str, int]


@dataclass(frozen=True)
class SkippedInputTwin:
    note: str
    companion_of: str | None = None


_LOC = SourceLocation("train.py", 12, "step")
_FINDING_ARGS: dict[str, Any] = {
    "code": "E1200", "name": "n", "kind": FindingKind.OFFLOAD_OUTPUT_MISMATCH, "origin": Origin.PREDICTED,
    "severity": Severity.ERROR, "title": "t", "message": "m", "location": Location("a.hlo", 3),
    "path": (Hop("x", (0,), "copy"),), "fixes": (Fix(FixKind.ADVICE, "do"),), "lines": (4,)}
CASES: list[tuple[type, type, dict[str, Any], dict[str, Any]]] = [
    (Location, LocationTwin, {"path": "a.hlo", "line": 3}, {"column": 7}),
    (Hop, HopTwin, {"instruction": "x", "shape_index": (1,), "source": _LOC}, {"opcode": "copy"}),
    (Edit, EditTwin, {"path": "a", "start_line": 1, "end_line": 2, "content": "c"}, {"end_column": 4}),
    (Fix, FixTwin, {"kind": FixKind.HOST_OUTPUT, "text": "t", "command": ("xladoctor", "fix")},
     {"edits": (Edit("a", 1, 1, "x"),)}),
    (Finding, FindingTwin, _FINDING_ARGS, {"count": 2}),
    (Report, ReportTwin, {"command": "offload", "inputs": ("a.hlo",)}, {"lang": "fr"}),
    (SourceLine, SourceLineTwin, {"file": "train.py", "line": 3}, {"text": "x = 1"}),
    (Options, OptionsTwin, {"rule": "shipped", "full": True}, {"stablehlo_path": "m.mlir"}),
    (LogMatch, LogMatchTwin, {"code": "E1200", "name": "n", "line": 3, "text": "t", "fields": {"a": 1},
                              "analysis": {}}, {"lines": [3, 9]}),
    (ScanPart, ScanPartTwin, {"findings": [], "not_shown": {"E1": 2}, "first_event": ("trace",),
                              "pending_trace": None}, {"pending_trace": [{"a": "b"}]}),
    (Region, RegionTwin, {"start": 0, "end": 10, "first_hit": 4, "newlines_before": 0}, {"end": 12}),
    (LogScan, LogScanTwin, {"findings": [], "source": "x.log", "not_shown": {}}, {"source": "y.log"}),
    (ExplainedLog, ExplainedLogTwin, {"source": "x.log"}, {"not_shown": {"E1": 1}}),
    (ScannedLog, ScannedLogTwin, {"matches": (), "not_shown": {}}, {"not_shown": {"E1": 1}}),
    (SkippedInput, SkippedInputTwin, {"note": "binary"}, {"companion_of": "m.hlo"}),
]
IDS = [c[0].__name__ for c in CASES]


def _field_view(f: dataclasses.Field[Any]) -> tuple[Any, ...]:
    made = f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING
    return (f.name, f.type, f.default, made, f.init, f.repr, f.hash, f.compare, f.kw_only,
            f._field_type)  # type: ignore[attr-defined]


def _without_class(text: str, cls: type, twin: type) -> str:
    return text.replace(twin.__qualname__, cls.__qualname__)


@pytest.mark.parametrize(("cls", "twin", "args", "changes"), CASES, ids=IDS)
def test_same_fields_and_params_as_the_dataclass(cls: type, twin: type, args: dict[str, Any],
                                                 changes: dict[str, Any]) -> None:
    assert dataclasses.is_dataclass(cls) and dataclasses.is_dataclass(cls(**args))
    ours = [_field_view(f) for f in dataclasses.fields(cls)]
    theirs = [_field_view(f) for f in dataclasses.fields(twin)]
    assert ours == theirs
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)  # type: ignore[attr-defined]
    assert cls.__match_args__ == twin.__match_args__  # type: ignore[attr-defined]
    assert ("__slots__" in cls.__dict__) == ("__slots__" in twin.__dict__)
    assert ("__dict__" in dir(cls(**args))) == ("__dict__" in dir(twin(**args)))
    ours_sig, theirs_sig = inspect.signature(cls), inspect.signature(twin)
    assert [(p.name, p.kind, str(p.default)) for p in ours_sig.parameters.values()] == \
        [(p.name, p.kind, str(p.default)) for p in theirs_sig.parameters.values()]


@pytest.mark.parametrize(("cls", "twin", "args", "changes"), CASES, ids=IDS)
def test_behaves_as_the_dataclass(cls: type, twin: type, args: dict[str, Any], changes: dict[str, Any]) -> None:
    ours, theirs = cls(**args), twin(**args)
    assert ours == cls(**args) and ours != cls(**{**args, **changes}) and ours != theirs
    for how in (dataclasses.asdict, dataclasses.astuple):
        assert _outcome(how, ours, cls) == _outcome(how, theirs, cls)
    if cls is not Report:  # Report draws its own repr, as the dataclass kept it
        assert repr(ours) == _without_class(repr(theirs), cls, twin)
    changed = dataclasses.replace(ours, **changes)
    assert _outcome(dataclasses.asdict, changed, cls) == \
        _outcome(dataclasses.asdict, dataclasses.replace(theirs, **changes), cls)
    assert cls(**fields_with(ours, changes)) == changed and type(changed) is cls
    if sys.version_info >= (3, 13):
        assert copy.replace(ours, **changes) == changed  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        dataclasses.replace(ours, no_such_field=1)
    for how in (lambda v: pickle.loads(pickle.dumps(v)), copy.copy, copy.deepcopy, lambda v: _state(v), hash):
        assert _outcome(how, ours, cls) == _outcome(how, theirs, cls)
    assert _outcome(hash, ours, cls) == _outcome(hash, cls(**args), cls)


def _outcome(how: Any, value: object, cls: type) -> tuple[str, Any]:
    """What ``how(value)`` gives, as plain values (a copy as its fields; a hash as whether it is
    one), or the type of the error it raises: a Finding's read-only mapping cannot be pickled."""
    try:
        out = how(value)
    except Exception as e:
        return ("error", type(e))
    if dataclasses.is_dataclass(out):
        return ("ok", tuple(getattr(out, f.name) for f in dataclasses.fields(out)))
    return ("ok", out if not isinstance(out, int) else True)


def _state(value: object) -> Any:
    """What pickle stores besides the class: the slotted dataclass' list, or the instance dict."""
    reduced = value.__reduce_ex__(2)
    return reduced[2]


@pytest.mark.parametrize(("cls", "twin", "args", "changes"), CASES, ids=IDS)
def test_assignment_raises_the_dataclass_error(cls: type, twin: type, args: dict[str, Any],
                                               changes: dict[str, Any]) -> None:
    ours, theirs = cls(**args), twin(**args)
    name, new = next(iter(changes.items()))
    if not issubclass(cls, FrozenDataclass):  # a mutable one's fields are plain attributes
        for value in (ours, theirs):
            setattr(value, name, new)
            assert getattr(value, name) == new
            delattr(value, name)
            assert not hasattr(value, name)
        return
    for value in (ours, theirs):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(value, name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(value, name)


def test_match_reads_the_fields_in_order() -> None:
    match Location("a.hlo", 3):
        case Location(path, line):
            assert (path, line) == ("a.hlo", 3)
        case _:
            pytest.fail("no match")


def test_finding_freezes_its_fields_and_sequences_as_post_init_did() -> None:
    f = Finding(**{**_FINDING_ARGS, "path": [Hop("x")], "lines": [1, 2], "fields": {"a": [1, {"b": 2}]}})
    assert f.path == (Hop("x"),) and f.lines == (1, 2)
    assert isinstance(f.fields, MappingProxyType) and f.fields["a"] == (1, MappingProxyType({"b": 2}))
    assert Finding(**{k: v for k, v in _FINDING_ARGS.items() if k != "location"}).location == Location()
    with pytest.raises(TypeError):
        Finding(**{**_FINDING_ARGS, "fields": {"a": object()}})


def test_the_base_classes_are_not_dataclasses() -> None:
    from xladoctor.base.plain_dataclass import MutableDataclass

    assert not dataclasses.is_dataclass(FrozenDataclass) and not dataclasses.is_dataclass(MutableDataclass)


def test_slots_must_list_the_fields() -> None:
    with pytest.raises(TypeError, match="are not its fields"):
        type("Odd", (FrozenDataclass,), {"__slots__": ("a",), "__annotations__": {"b": "int"}})


def test_using_the_model_does_not_import_dataclasses() -> None:
    """Making, comparing, hashing, copying with changes and pickling these values leaves dataclasses
    unimported: it comes only with a call into it (or the frozen error)."""
    code = ("import sys, pickle\n"
            "from xladoctor.findings.model import Report\nfrom xladoctor.findings.finding import Finding, Location\n"
            "from xladoctor.route.options import Options\nfrom xladoctor.base.plain_dataclass import fields_with\n"
            "r = Report('x', ('a',)); o = Options(**fields_with(Options(), {'lang': 'fr'})); l = Location('a', 1)\n"
            "assert pickle.loads(pickle.dumps(l)) == l and hash(l) and repr(r) and o.lang == 'fr'\n"
            "print('dataclasses' in sys.modules, 'inspect' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
