"""The region scan (:mod:`xladoctor.syntax.region`) reads the graph the parser reads, and its
region holds every instruction the host-offload analysis names.

Two claims the region-first route would rest on, checked on every module we have (the bundled
examples, tests/data/offload, offload_gen's modules, what real jax programs print before and after
optimisation and XLA's dumps):

* the scan's graph is the parser's: the same computations and instruction names in text order,
  the same lines and roots, every operand, control predecessor and called computation of the
  parsed module among the scan's (a superset is allowed);
* every instruction of the input that the analysis' JSON names (walks, host positions, E1200
  paths, inserted copies' operands and users, host compute, dynamic-update-slices, dropped
  offloads, HostOffloadLegalize's starts, failures) is in :func:`~xladoctor.syntax.region.region`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlo_corpus import CORPUS, generated_hlo
from xladoctor.base.errors import HloParseError, VerifyError
from xladoctor.ir.module import HloModule
from xladoctor.offload import analyze_host_offload
from xladoctor.offload.report import details_json
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.region import ModuleScan, forward, live, region, scan_module


def _texts(tmp_path: Path, jax_hlo_corpus=None) -> dict[str, str]:
    texts = {p.name: p.read_text() for p in [*CORPUS, *generated_hlo(tmp_path, 40)]}
    if jax_hlo_corpus is not None:
        for name in jax_hlo_corpus.manifest["programs"]:
            for form in ("pre", "post"):
                path = jax_hlo_corpus.root / form / f"{name}.txt"
                if path.exists():
                    texts[f"{form}/{name}"] = path.read_text()
        for path in jax_hlo_corpus.hlo_dump_files():
            texts[f"dump/{path.name}"] = path.read_text()
    return texts


def _parsed(texts: dict[str, str]) -> list[tuple[str, str, HloModule]]:
    out = []
    for name, text in texts.items():
        try:
            out.append((name, text, parse_module(text)))
        except HloParseError:
            continue
    return out


def _same_graph(scan: ModuleScan, module: HloModule) -> str | None:
    """Where the scan differs from the parsed module (None: it does not)."""
    if [c.name for c in module.computations] != scan.computations:
        return "computations"
    if module.entry is None or scan.computations[scan.entry] != module.entry.name:
        return "entry"
    for c, comp in enumerate(module.computations):
        members = scan.members[c]
        if [i.name for i in comp.instructions] != [scan.names[i] for i in members]:
            return f"instructions of {comp.name}"
        if scan.names[scan.roots[c]] != comp.root_instruction().name:
            return f"root of {comp.name}"
        for k, instr in zip(members, comp.instructions):
            if scan.lines[k] != instr.line:
                return f"line of {instr.name}"
            ops = {scan.names[j] for j in scan.operands[k]}
            if not {o.name for o in (*instr.operands, *instr.control_predecessors)} <= ops:
                return f"operands of {instr.name}"
            if not {c.name for c in instr.called_computations} <= {scan.computations[j] for j in scan.callees.get(k, ())}:
                return f"callees of {instr.name}"
    return None


def test_scan_reads_the_parsers_graph(tmp_path, jax_hlo_corpus):
    scanned, declined = 0, []
    for name, text, module in _parsed(_texts(tmp_path, jax_hlo_corpus)):
        scan = scan_module(text)
        if scan is None:
            declined.append(name)
            assert "/*" in text or "//" in text, name
            continue
        assert _same_graph(scan, module) is None, (name, _same_graph(scan, module))
        scanned += 1
    assert scanned >= 150, (scanned, declined)  # the scan declines only what it says it does not model


def _named(doc: dict) -> set[str]:
    """Every instruction name the offload document gives."""
    names: set[str] = {w["start"] for w in doc["walks"]}
    names |= {h["instruction"] for h in doc["host_positions"]} | {h["instruction"] for h in doc["host_compute"]}
    names |= {d["instruction"] for d in doc["dynamic_update_slices"]} | set(doc["dynamified_slices"])
    names |= {d["move_to_host"] for d in doc["dropped_offloads"]}
    names |= {x for i in doc["inserted"] for x in (i["operand"], i["user"], i["replaces"]) if x}
    names |= {f["instruction"] for f in doc["failures"] if f["instruction"]}
    for e in doc["errors"]:
        names |= {e["start"], e["origin_instruction"]} | {h["instruction"] for h in (*e["trace"], *e["path"])}
    if doc["legalize"]:
        names |= set(doc["legalize"]["starts"]) | {m["copy"] for m in doc["legalize"]["moves"]}
    return names


@pytest.mark.parametrize("kw", [{}, {"inline_calls": False}])
def test_region_holds_every_instruction_the_analysis_names(tmp_path, jax_hlo_corpus, kw):
    checked = 0
    for name, text, module in _parsed(_texts(tmp_path, jax_hlo_corpus)):
        scan = scan_module(text)
        if scan is None or module.entry is None:
            continue
        try:
            doc = details_json(analyze_host_offload(module, **kw), [])
        except (ValueError, VerifyError):
            continue
        inside = {scan.names[i] for i in region(scan).instructions}
        input_names = set(scan.names)
        outside = {n for n in _named(doc) if n in input_names} - inside
        assert not outside, (name, sorted(outside))
        checked += 1
    assert checked >= 150


def test_closures_on_a_repeated_step():
    """jax's repeated step (bench/real_modules.py's shape, by hand): every copy holds a placement
    pair, so the region is all of it; only the last copy is live."""
    steps = []
    for k in range(3):
        steps += [f"  m{k} = f32[8] multiply(x, x)",
                  f'  h{k} = f32[8] custom-call(m{k}), custom_call_target="annotate_device_placement", '
                  'frontend_attributes={_xla_buffer_placement="pinned_host"}',
                  f'  d{k} = f32[8] custom-call(h{k}), custom_call_target="MoveToDevice"',
                  f"  r{k} = f32[8] call(d{k}), to_apply=relu"]
    text = "\n".join(["HloModule m", "", "relu {", "  p = f32[8] parameter(0)", "  ROOT n = f32[8] negate(p)", "}",
                      "", "ENTRY main {", "  x = f32[8] parameter(0)", *steps, "  ROOT t = (f32[8]) tuple(r2)", "}", ""])
    scan = scan_module(text)
    assert scan is not None and _same_graph(scan, parse_module(text)) is None
    names = scan.names
    assert {names[i] for i in scan.seeds} == {"h0", "d0", "h1", "d1", "h2", "d2"}
    assert len(region(scan).instructions) == len(names)  # x's users join every copy
    assert {names[i] for i in forward(scan)} == {f"{a}{k}" for a in "hdr" for k in range(3)} | {"p", "n", "t"}
    assert {names[i] for i in live(scan)} == {"x", "m2", "h2", "d2", "r2", "t", "p", "n"}


def test_a_host_computation_is_all_seeds():
    text = ("HloModule m\n\nhost {\n  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n}, execution_thread=\"host\"\n\n"
            "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] negate(p)\n  ROOT r = f32[] add(p, p)\n}\n")
    scan = scan_module(text)
    assert scan is not None and _same_graph(scan, parse_module(text)) is None
    assert [scan.names[i] for i in scan.seeds] == ["a", "b"]


@pytest.mark.parametrize("text", [
    "HloModule m\nENTRY e {\n  p = f32[] parameter(0) // a comment after the line\n  ROOT n = f32[] negate(p)\n}\n",
    "HloModule m\nENTRY e {\n  p = f32[]\n    parameter(0)\n}\n",
    "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}\n",
])
def test_scan_declines_what_it_does_not_model(text):
    assert scan_module(text) is None
