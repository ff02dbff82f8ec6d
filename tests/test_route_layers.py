"""Following one HLO file from ``xladoctor check FILE`` to the printed finding (issue 37's "done when").

The run is traced call by call (:func:`sys.setprofile`): every call into a module of ``xladoctor``
is placed in its layer (the order of ``tests/test_layers.py``: front, route, renderers, findings,
analyses, syntax, ir, base) and in the chain of layers above it on the stack.  Two things are
asserted:

* **Downward, each layer once.**  On every chain the layers strictly descend: no call climbs back
  to a layer above its caller (a callback handed down, an IR that calls its parser), so no layer is
  entered twice on one stack.  :data:`KNOWN_CLIMBS` names the two that remain, both inside the IR
  and its text (issue 37 item 3, not the route's): an instruction's metadata decoded on first
  read by the codec ``syntax/`` installs, and an instruction formatted into a label by ``str()``.
* **Parse arguments, route, view.**  The command itself (``cli.commands.check.run``; the same
  for ``offload FILE``, ``explain LOG``, ``hlo FILE``, ``inputs`` and ``fleet``) calls into ``route/`` and then into ``report/``, never
  back into ``route/`` after its first view call, and into no analysis, parser or IR directly;
  it reads the exit code off the Report.

The imports themselves are ``tests/test_layers.py``'s; this test is about calls.
"""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from test_layers import LAYERS, UNIT_PLACE, unit_of

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"

KNOWN_CLIMBS = frozenset({
    # ir -> syntax: HloInstruction.metadata / source_location / copy_metadata_from decode the
    # metadata text the parser kept, through the codec syntax/ hands the IR (lazily, per read)
    ("ir", "syntax"),
    # base -> ir: base.labels.label formats its arguments with str(), an HloInstruction among them
    ("base", "ir"),
})


def _layer(module: str) -> int | None:
    unit = unit_of(module)
    return UNIT_PLACE[unit][0] if unit in UNIT_PLACE else None


def _name(layer: int) -> str:
    return LAYERS[layer][0]


@dataclass
class LayerTrace:
    """Calls into ``xladoctor`` while it runs: the upward ones, and what the command called."""

    command: tuple[str, str] = ("xladoctor.cli.commands.check", "run")
    """The command's own frames: its module, and the function whose calls are followed."""
    climbs: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    """(caller module, caller function, callee module, callee function) -> how many times."""
    layers: set[str] = field(default_factory=set)
    calls: set[tuple[str, str]] = field(default_factory=set)
    """Every (module, function) called."""
    command_calls: list[tuple[str, str, str]] = field(default_factory=list)
    """What the command's own frames called in another layer, in order: (layer, module, function)."""
    _frames: dict[int, tuple[tuple[int, ...], str, str]] = field(default_factory=dict)
    """Each live frame: the layers on its stack (repeats merged), its module and function."""
    _in_command: int = 0

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "return":
            self._frames.pop(id(frame), None)
            if (frame.f_globals.get("__name__"), frame.f_code.co_name) == self.command:
                self._in_command -= 1
            return
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("xladoctor"):
            return
        layer = _layer(module)
        if layer is None:
            return
        function = frame.f_code.co_name
        if (module, function) == self.command:
            self._in_command += 1
        back: FrameType | None = frame.f_back
        while back is not None and id(back) not in self._frames:
            back = back.f_back
        above, caller_module, caller_function = self._frames.get(id(back), ((), "", "")) if back else ((), "", "")
        entered = bool(above) and above[-1] != layer  # a call into another layer than its caller's
        chain = (*above, layer) if not above or entered else above
        self._frames[id(frame)] = (chain, module, function)
        if function == "<module>":  # an import running a module's body: tests/test_layers.py's business
            return
        self.layers.add(_name(layer))
        self.calls.add((module, function))
        if entered and layer > above[-1]:  # LAYERS is lowest first: a higher layer than its caller's
            key = (caller_module, caller_function, module, function)
            self.climbs[key] = self.climbs.get(key, 0) + 1
        if self._in_command and caller_module == self.command[0] and entered:
            self.command_calls.append((_name(layer), module, function))

    def unexpected_climbs(self) -> dict[tuple[str, str, str, str], int]:
        return {k: n for k, n in self.climbs.items()
                if (_name(_layer(k[0]) or 0), _name(_layer(k[2]) or 0)) not in KNOWN_CLIMBS}

    def command_layers(self) -> list[str]:
        """The layers the command called, repeats merged; base (labels, files, progress) and the
        Report's exit code (``findings.model``'s ``exit_code``, read off the product) left out."""
        out: list[str] = []
        for layer, module, function in self.command_calls:
            if layer == "base" or (module, function) == ("xladoctor.findings.model", "exit_code"):
                continue
            if not out or out[-1] != layer:
                out.append(layer)
        return out


def traced(fn: Any, *args: Any, command: str = "check") -> tuple[LayerTrace, Any]:
    trace = LayerTrace((f"xladoctor.cli.commands.{command}", "run"))
    sys.setprofile(trace.profile)
    try:
        result = fn(*args)
    finally:
        sys.setprofile(None)
    return trace, result


def _run(argv: list[str]) -> tuple[int, str]:
    from xladoctor.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as e:
            code = int(e.code or 0)
    return code, out.getvalue()


def follow(argv: list[str]) -> tuple[LayerTrace, int, str]:
    """``xladoctor ARGV`` traced, the command's own frames those of ``cli.commands.ARGV[0]``."""
    trace, (code, out) = traced(_run, argv, command=argv[0])
    return trace, code, out


def test_check_file_goes_down_each_layer_once_then_up_through_report_only():
    trace, code, out = follow(["check", str(EXAMPLE)])
    assert code == 1 and "E1200" in out  # the finding was printed
    assert trace.unexpected_climbs() == {}, trace.unexpected_climbs()
    # every layer is visited, and the route of an HLO module is the one HLO text route
    assert trace.layers >= {"front", "route", "renderers", "findings", "analyses", "syntax", "ir", "base"}
    modules = {m for m, _ in trace.calls}
    assert {"xladoctor.route.folder", "xladoctor.route.dispatch", "xladoctor.route.hlo_text",
            "xladoctor.route.module_analysis"} <= modules
    # the route returns the Report; the file's entry and its offload document are drawn in report/
    assert {"xladoctor.report.check_json", "xladoctor.report.offload_json"} <= modules
    assert "xladoctor.route.log" not in modules  # a tensors file is told apart by its first bytes only:
    assert {f for m, f in trace.calls if m == "xladoctor.route.tensors"} == {"graph_items"}
    # the command: route, then the view, and the Report's exit code; nothing else
    assert trace.command_layers() == ["route", "renderers"], trace.command_calls
    assert ("findings", "xladoctor.findings.model", "exit_code") in trace.command_calls


@pytest.mark.parametrize("argv, route, exit_code", [
    (["offload", str(EXAMPLE)], "xladoctor.route.hlo_text", 1),
    (["explain", str(EXAMPLE.with_name("tpu_job.log"))], "xladoctor.route.log", 1),
    (["hlo", str(EXAMPLE)], "xladoctor.route.hlo_text", 0),
    (["inputs", str(EXAMPLE), "--supplied", str(EXAMPLE)], "xladoctor.route.executable_inputs", 0),
    (["fleet", str(EXAMPLE.with_name("tpu_job.log")), "-j", "1"], "xladoctor.route.fleet", 1),
])
def test_every_command_is_route_then_view(argv, route, exit_code):
    trace, code, out = follow(argv)
    assert code == exit_code and out
    assert trace.unexpected_climbs() == {}, trace.unexpected_climbs()
    assert route in {m for m, _ in trace.calls}
    assert trace.command_layers() == ["route", "renderers"], trace.command_calls


def test_the_trace_sees_a_call_that_climbs_back_up():
    """The tracer itself: base handing a call to a route function is a climb (and is not known)."""
    from xladoctor.base.parallel import _call
    from xladoctor.route.folder import skip_reason

    trace, reason = traced(_call, skip_reason, (".hidden.log",))
    assert reason == "hidden file"
    assert trace.unexpected_climbs() == {("xladoctor.base.parallel", "_call", "xladoctor.route.folder", "skip_reason"): 1}
