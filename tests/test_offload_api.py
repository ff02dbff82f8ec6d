"""The analysis API: read-only on its input, XLA's spellings, positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_offload_scenarios import FILES, load, rule_of
from xladoctor.offload import Position, analyze_host_offload
from xladoctor.offload.clone import clone_module
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module


def test_analysis_leaves_the_module_untouched_and_clone_prints_the_same():
    for path in FILES:
        module, _, options = load(path)
        before = print_module(module)
        assert print_module(clone_module(module)) == before
        analyze_host_offload(module, rule_of(options))
        assert print_module(module) == before, path.name


def test_position_prints_like_xla():
    m = parse_module("HloModule m\nENTRY e {\n  ROOT p = (f32[2], (f32[2], f32[2])) parameter(0)\n}\n")
    assert str(Position(m.entry.root, (1, 0))) == "{Instr: p, ShapeIndex: {1,0}}"
    assert str(Position(m.entry.root)) == "{Instr: p, ShapeIndex: {}}"
    assert Position(m.entry.root, (1,)) == Position(m.entry.root, (1,))


def test_first_error_vlog_and_path():
    module, _, _ = load(next(p for p in FILES if p.stem.startswith("36_")))
    r = analyze_host_offload(module)
    err = r.error
    assert err is not None and err.first and err.output_index == (0,)
    assert r.vlog[-2:] == ["Instruction trace leading to error:", "  {Instr: out, ShapeIndex: {0}}"]
    assert [h.instruction for h in err.path] == ["mth", "out"]
    assert err.message == ("Tensor which is moved to host (starting from out) is returned from the entry "
                           "computation but the layout for this output is not set to host memory.")


def test_shipped_vs_unmerged_pr_rule_on_untiled_output():
    """Released XLA fails on an untiled non-host output; only unmerged PR #36525 moves it to host."""
    module, _, _ = load(next(p for p in FILES if p.stem.startswith("D1b_")))
    shipped = analyze_host_offload(module)
    assert shipped.rule == "shipped"
    assert shipped.outcome == "E1200" and shipped.error.start == "t" and not shipped.outputs_moved_to_host
    pr = analyze_host_offload(module, "unmerged-pr-36525")
    assert pr.outcome == "ok" and [o.new_layout for o in pr.outputs_moved_to_host] == ["f32[256]{0:S(5)}"]
    assert any("unmerged PR #36525 silently changes it" in w for w in pr.warnings)


def test_unknown_rule_is_refused():
    module, _, _ = load(next(p for p in FILES if p.stem.startswith("D1b_")))
    with pytest.raises(ValueError, match="unmerged-pr-36525"):
        analyze_host_offload(module, "strict")


def test_cli_rule_choices_are_the_rules():
    from xladoctor.cli.commands._common import RULE_CHOICES
    from xladoctor.offload.rules import RULES

    assert tuple(RULES) == RULE_CHOICES


def test_the_e1200_text_we_predict_is_read_back_by_the_log_scanner():
    """Prediction (offload) and explanation (explain) describe the same message."""
    from xladoctor.catalogue.scanner import scan_text
    from xladoctor.route.folder import example_paths
    from xladoctor.syntax.hlo_parser import parse_module

    path = next(p for p in example_paths() if p.endswith("e1200_offloaded_activation.hlo"))
    result = analyze_host_offload(parse_module(Path(path).read_text(), path))
    log = "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: " + result.error.full_message + "\n"
    [finding] = scan_text(log)
    assert (finding.code, finding.fields["start"]) == ("E1200", result.error.start)
