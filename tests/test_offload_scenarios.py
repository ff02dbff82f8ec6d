"""Every host-offload scenario of host-offload.md §5 (XLA's own HostOffloader tests, V3) as data.

Each ``tests/data/offload/*.hlo`` holds one module (HLO written for this suite, after the
shape of XLA's test) and ``// EXPECT:`` lines with what XLA (V3) decides:

* ``outcome=ok|E1200|failure`` (always present);
* ``start=NAME`` and ``index={..}``: the E1200 XLA reports;
* ``errors=N``: how many offending outputs in all;
* ``host=a,b{0},...``: exactly the positions that end in host memory (``-`` for none);
* ``host_compute=a,b`` (``-`` for none);
* ``failure=STATUS:text``: the first failure of the pass (status and a message prefix);
* ``inserted=kind:N,...``: how many copies / AllocateBuffers / dynamic slices are created;
* ``moved=N``: entry outputs silently moved to host (only under unmerged PR #36525);
* ``dropped=NAME``: a MoveToHost that moves nothing.

What HostOffloadLegalize (run first, as XLA does) did with layout-changing copies:

* ``moved_down=a,b`` / ``moved_up=c`` / ``kept=d``: the copies by outcome (``-`` for none);
* ``copies_after=mtd,...``: the MoveToDevices new copies now follow;
* ``rerouted=root{k}``: while-root slots that now carry the loop value, not its MoveToDevice;
* ``legalize_notes=N`` and ``legalize_note=phase:text``: chains it did not recognise (the first one);
* ``// EXPECT-MOVE: after=MTD annotation=SHAPE copy=SHAPE`` lines: a MoveToDevice and the copy
  after it, with their layouts.

``// OPTIONS:`` may name ``unmerged_pr_36525`` (that rule instead of the default), ``disable_host_compute``, ``allow_h2h_copy``, ``inline_calls``,
``no_legalize``.
The pass runs on the module as written (``inline_calls=False``), as XLA's HostOffloader
unit tests run it, unless ``inline_calls`` asks for the CallInliner pre-pass.
``// NOTE:`` lines say where the V3 answer differs from XLA's newer (V4) tests.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from xladoctor.offload import analyze_host_offload
from xladoctor.syntax.hlo_parser import parse_module

DATA = Path(__file__).parent / "data" / "offload"
FILES = sorted(DATA.glob("*.hlo"))


def load(path: Path):
    module, expect, options, _ = load_all(path)
    return module, expect, options


def rule_of(options: set[str]) -> str:
    """The host-offload rule a scenario is written for (``// OPTIONS: unmerged_pr_36525``)."""
    return "unmerged-pr-36525" if "unmerged_pr_36525" in options else "shipped"


def load_all(path: Path):
    text = path.read_text()
    expect: dict[str, str] = {}
    options: set[str] = set()
    moves: list[dict[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("// EXPECT-MOVE:"):
            moves.append(dict(item.partition("=")[::2] for item in line[len("// EXPECT-MOVE:"):].split()))
        elif line.startswith("// EXPECT:"):
            for item in line[len("// EXPECT:"):].split():
                key, _, value = item.partition("=")
                expect[key] = value
        elif line.startswith("// OPTIONS:"):
            options.update(line[len("// OPTIONS:"):].split())
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
    return parse_module(body, str(path)), expect, options, moves


def _names(value: str) -> set[str]:
    """``a,b{0,1},c``: commas inside a shape index do not separate names."""
    return set() if value == "-" else set(re.split(r",(?![^{]*\})", value))


def test_corpus_is_there():
    assert len(FILES) >= 70


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_is_valid_xla(path: Path):
    """Each module is HLO that XLA itself parses (so the scenarios are real inputs, not our dialect)."""
    jaxlib_hlo = pytest.importorskip("jaxlib._hlo")
    body = "\n".join(ln for ln in path.read_text().splitlines() if not ln.lstrip().startswith("//"))
    jaxlib_hlo.hlo_module_from_text(body)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path):
    module, expect, options, moves = load_all(path)
    assert "outcome" in expect, "every scenario states its outcome"
    result = analyze_host_offload(module, rule=rule_of(options),
                                  disable_host_compute="disable_host_compute" in options,
                                  allow_h2h_copy="allow_h2h_copy" in options,
                                  inline_calls="inline_calls" in options,
                                  legalize="no_legalize" not in options)
    check_legalize(result, expect, moves)
    detail = (f"errors={[(e.start, e.output_index) for e in result.errors]} failures={result.failures} "
              f"host={sorted(result.host_position_names())} hc={sorted(result.host_compute_names())} "
              f"inserted={[(i.kind, i.name) for i in result.inserted]}")
    assert result.outcome == expect["outcome"], detail
    if "start" in expect:
        assert result.errors, detail
        first = result.errors[0]
        assert first.first and first.start == expect["start"], detail
        if "index" in expect:
            assert "{" + ",".join(map(str, first.output_index)) + "}" == expect["index"], detail
    if "errors" in expect:
        assert len(result.errors) == int(expect["errors"]), detail
    if "host" in expect:
        assert result.host_position_names() == _names(expect["host"]), detail
    if "host_compute" in expect:
        assert result.host_compute_names() == _names(expect["host_compute"]), detail
    if "failure" in expect:
        status, _, text = expect["failure"].replace("_", " ").partition(":")
        first = next(f for f in result.failures if f.first)
        assert first.status == status.replace(" ", "_"), detail
        assert first.message.startswith(text.strip()), detail
    if "inserted" in expect:
        counts = Counter(i.kind for i in result.inserted)
        for item in expect["inserted"].split(","):
            kind, _, n = item.partition(":")
            assert counts[kind] == int(n), detail
    if "moved" in expect:
        assert len(result.outputs_moved_to_host) == int(expect["moved"]), detail
    if "dropped" in expect:
        assert [d.move_to_host for d in result.dropped_offloads] == expect["dropped"].split(","), detail
    if expect["outcome"] == "ok":
        assert not result.errors and not result.failures, detail


def check_legalize(result, expect: dict[str, str], moves: list[dict[str, str]]) -> None:
    legal = result.legalize
    if legal is None:
        assert not moves and not any(k in expect for k in ("moved_down", "moved_up", "kept", "copies_after"))
        return
    detail = (f"moves={legal.moves} rerouted={legal.rerouted} notes={legal.notes} failures={legal.failures}")
    for key, action in (("moved_down", "moved-down"), ("moved_up", "moved-up"), ("kept", "kept")):
        if key in expect:
            assert {m.copy for m in legal.moves if m.action == action} == _names(expect[key]), detail
    if "copies_after" in expect:
        assert {a for m in legal.moves for a in m.after} == _names(expect["copies_after"]), detail
    if "rerouted" in expect:
        assert set(legal.rerouted) == _names(expect["rerouted"]), detail
    if "legalize_notes" in expect:
        assert len(legal.notes) == int(expect["legalize_notes"]), detail
    if "legalize_note" in expect:
        phase, _, text = expect["legalize_note"].replace("_", " ").partition(":")
        assert legal.notes and legal.notes[0].phase == phase.replace(" ", "-"), detail
        assert legal.notes[0].message.startswith(text.strip()), detail
    made = {(a, shapes) for m in legal.moves for a, shapes in zip(m.after, m.shapes)}
    for want in moves:
        assert (want["after"], (want["annotation"], want["copy"])) in made, detail
