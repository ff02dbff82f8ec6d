"""The analysis API: read-only on its input, XLA's spellings, positions."""

from __future__ import annotations

from xladoctor.offload import Position, analyze_host_offload
from xladoctor.offload.clone import clone_module
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

from test_offload_scenarios import FILES, load


def test_analysis_leaves_the_module_untouched_and_clone_prints_the_same():
    for path in FILES:
        module, _, options = load(path)
        before = print_module(module)
        assert print_module(clone_module(module)) == before
        analyze_host_offload(module, "strict" in options)
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


def test_strict_vs_v3_rule_on_untiled_output():
    module, _, _ = load(next(p for p in FILES if p.stem.startswith("D1b_")))
    v3 = analyze_host_offload(module)
    assert v3.outcome == "ok" and [o.new_layout for o in v3.outputs_moved_to_host] == ["f32[256]{0:S(5)}"]
    assert any("silently changes it" in w for w in v3.warnings)
    strict = analyze_host_offload(module, strict=True)
    assert strict.outcome == "E1200" and strict.error.start == "t" and not strict.outputs_moved_to_host


def test_the_e1200_text_we_predict_is_read_back_by_the_log_scanner():
    """Prediction (offload) and explanation (explain) describe the same message."""
    from xladoctor.catalogue.scanner import scan_text
    from xladoctor.commands.check import example_paths
    from xladoctor.syntax.hlo_parser import parse_module

    path = next(p for p in example_paths() if p.endswith("e1200_offloaded_activation.hlo"))
    result = analyze_host_offload(parse_module(open(path).read(), path))
    log = "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: " + result.error.full_message + "\n"
    [finding] = scan_text(log)
    assert (finding.code, finding.fields["start"]) == ("E1200", result.error.start)
