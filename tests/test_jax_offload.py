"""xladoctor.jax.check_offload on real JAX programs (jax CPU build, lowered for TPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
sys.path.insert(0, EXAMPLES)

from offload_programs import PROGRAMS  # noqa: E402

from xladoctor.jax import check_offload  # noqa: E402


def _device():
    return jax.sharding.SingleDeviceSharding(jax.devices()[0])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_flagged_with_path_and_line(name):
    p = PROGRAMS[name]()
    report = check_offload(p.fn, *p.args, jit_kwargs=p.jit_kwargs)
    assert report.outcome == "E1200"
    assert [f.output for f in report.findings] == p.bad_outputs
    finding = report.findings[0]
    assert "E1200: CompileTimeHostOffloadOutputLocationMismatch" in finding.xla_message
    here = os.path.join(EXAMPLES, "offload_programs.py")
    assert p.offload_line in {s.line for s in finding.user_lines() if s.file == here}
    text = str(report)
    assert p.bad_outputs[0] in text and "pinned_host" in text and "jax.device_put" in text


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_suggested_out_shardings_make_it_pass(name):
    p = PROGRAMS[name]()
    report = check_offload(p.fn, *p.args)
    fixed = check_offload(p.fn, *p.args, jit_kwargs={"out_shardings": report.suggested_out_shardings(_device())})
    assert fixed.ok and fixed.outcome == "ok"
    kinds = {r.name: r.memory_kind for r in fixed.program.signature.results}
    assert all(kinds[o] == "pinned_host" for o in p.bad_outputs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_move_back_to_device_makes_it_pass(name):
    p = PROGRAMS[name]()
    assert check_offload(p.fixed_fn, *p.args).ok


def test_jax_guarded_cases_are_not_flagged():
    """JAX's own device_put: declared host outputs, or its own move back to device."""
    s_dev = _device()
    s_host = s_dev.with_memory_kind("pinned_host")
    x = jnp.ones((8, 128))

    def f(x):
        return jax.device_put(x * 2, s_host), x + 1

    assert check_offload(f, x).ok                                   # output declared pinned_host
    assert check_offload(f, x, jit_kwargs={"out_shardings": (s_dev, s_dev)}).ok    # JAX adds the move to device
    report = check_offload(f, x)
    assert [r.memory_kind for r in report.program.signature.results] == ["pinned_host", "device"]


def test_returned_device_put_to_host_compiles_with_or_without_memory_kinds():
    """The HLO text alone (as_text('hlo')) has no S(5), but the MoveToHost is the entry root:
    released XLA puts a copy to host there and compiles (the real compiler agrees), with or
    without JAX's memory kinds in the entry layout."""
    from xladoctor.offload.analysis import analyze_host_offload
    from xladoctor.syntax.hlo_parser import parse_module
    s_host = _device().with_memory_kind("pinned_host")
    lowered = jax.jit(lambda x: jax.device_put(x * 2, s_host)).trace(jnp.ones((8, 128))).lower(
        lowering_platforms=("tpu",))
    bare = analyze_host_offload(parse_module(lowered.as_text("hlo")))
    assert bare.outcome == "ok" and [i.kind for i in bare.inserted] == ["output-copy-to-host"]
    assert check_offload(lowered).ok


def test_accepts_jitted_and_lowered():
    p = PROGRAMS["returned_after_compute"]()
    jitted = jax.jit(p.fn)
    assert check_offload(jitted, *p.args).outcome == "E1200"
    lowered = jitted.trace(*p.args).lower(lowering_platforms=("tpu",))
    assert check_offload(lowered).outcome == "E1200"
    with pytest.raises(TypeError):
        check_offload(jitted, *p.args, out_shardings=None)


def test_gpu_lowering_fails_too_and_unmerged_rule_moves_untiled_output_to_host():
    """Released XLA (jaxlib 0.10.2's GPU plugin too) raises E1200 for an untiled output;
    only the unmerged PR #36525 rule puts it in host memory instead."""
    p = PROGRAMS["returned_after_compute"]()
    report = check_offload(p.fn, *p.args, platform="cuda")
    assert report.rule == "shipped" and report.outcome == "E1200" and report.findings
    pr = check_offload(p.fn, *p.args, platform="cuda", rule="unmerged-pr-36525")
    assert pr.outcome == "ok" and not pr.findings
    assert any(n.startswith("output {0} (result[0]): ") and "unmerged PR #36525" in n for n in pr.notes)  # one name


def test_json_report():
    p = PROGRAMS["scanned_layers"]()
    doc = check_offload(p.fn, *p.args).to_json()
    json.dumps(doc)
    assert doc["schema_version"] == 1 and doc["outcome"] == "E1200"
    assert doc["findings"][0]["output"] == "result['saved']"


def test_example_script_runs():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, "offload_programs.py")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.count("E1200 on tpu") == len(PROGRAMS)


def test_xla_cpu_does_not_raise_e1200():
    """Recorded finding (jaxlib 0.10.2): XLA:CPU compiles a host tensor reaching a device
    output without E1200; the optimized module has no MoveToHost and no S(5) left.  So CPU
    compiles cannot stand in for TPU/GPU here: the check must model the pass."""
    p = PROGRAMS["returned_after_compute"]()
    lowered = jax.jit(p.fn).trace(*p.args).lower()
    assert "annotate_device_placement" in lowered.as_text()
    text = lowered.compile().as_text()
    assert "MoveToHost" not in text and "S(5)" not in text


def test_gpu_agreement_script_dry_run():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, "gpu_agreement.py"), "--dry-run"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert {d["program"] for d in lines} == set(PROGRAMS)
    originals = [d for d in lines if d["variant"] == "original"]
    assert all(d["ours_tpu"] == "E1200" and d["ours_gpu"] == "E1200" for d in originals)
    assert all(d["ours_tpu"] == "ok" for d in lines if d["variant"] != "original")


def test_remat_offload_in_nested_scans_and_compute_on2_are_declared():
    """JAX declares these host outputs itself (pinned_host), so no E1200 is predicted.  The
    gradient of the nested scans is a failure of its own: libtpu 0.0.42.1 rejects it after
    HostOffloader ("The async-start expects the shape of operand 0 ...", checked compile-only;
    tests/test_public_nested.py maps the boundary), both loops running 2 or more times."""
    from jax.ad_checkpoint import checkpoint_name
    from jax.experimental.compute_on import compute_on2
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["h"],
        offload_src="device", offload_dst="pinned_host")

    def layer(x, w):
        return jnp.sin(checkpoint_name(jnp.sin(x @ w), "h")), None

    def inner(x, ws):
        return jax.lax.scan(jax.remat(layer, policy=policy, prevent_cse=False), x, ws)[0], None

    def model(ws, x):
        return jax.lax.scan(inner, x, ws)[0].sum()

    ws, x = jnp.ones((2, 3, 16, 16)), jnp.ones((8, 16))
    grad = check_offload(jax.grad(model), ws, x)
    assert not grad.findings_of("E1200") and grad.outcome == "failure"
    assert "async-start expects the shape of operand 0" in str(grad)
    vjp = check_offload(lambda ws, x: jax.vjp(model, ws, x), ws, x)
    assert vjp.ok and "pinned_host" in [r.memory_kind for r in vjp.program.signature.results]

    def host_compute(x):
        y = compute_on2(lambda a: a * 3, compute_type="device_host", out_memory_spaces=jax.memory.Space.Host)(x)
        return y, x + 1

    report = check_offload(host_compute, jnp.ones((8, 128)))
    assert report.ok and report.program.signature.results[0].memory_kind == "pinned_host"


def test_python_stack_stops_at_the_traced_function():
    """Frames of the code that called check_offload are not the program's and are not reported."""
    import jax.numpy as jnp
    from frontend_ops import place_to_host

    def helper(v):
        return place_to_host(v)

    def step(x):
        return helper(x * 2), x + 1

    report = check_offload(step, jax.ShapeDtypeStruct((8, 128), jnp.float32))
    assert report.findings, report
    finding = report.findings[0]
    names = [f.function.rsplit(".", 1)[-1] for f in (finding.offloaded_at, *finding.offloaded_from) if f]
    # helper only hands the placed value back: step's line is the primary frame (ir/frames.py), helper
    # comes after it, as a helper the offload went through
    assert names == ["step"], names
    assert [f.function.rsplit(".", 1)[-1] for f in finding.offloaded_via][:1] == ["helper"]
    assert "test_python_stack_stops_at_the_traced_function" not in names


# -- issue 11: keyword arguments, refused inputs, what an OK report saw, the device fix's variable --

def _offload_step():
    from frontend_ops import place_to_host

    def step(w, batch=None, scale=1.0):
        saved = place_to_host(w * batch)
        return jnp.sin(saved) * scale

    return step


def test_function_keyword_arguments_are_the_functions():
    step = _offload_step()
    w, b = jnp.ones((8, 128)), jnp.ones((8, 128))
    report = check_offload(step, w, batch=b)
    assert report.outcome == "E1200"
    assert check_offload(step, w, batch=b, scale=2.0).outcome == "E1200"


def test_jit_options_go_under_jit_kwargs():
    step = _offload_step()
    w, b = jnp.ones((8, 128)), jnp.ones((8, 128))
    host = _device().with_memory_kind("pinned_host")
    assert check_offload(step, w, batch=b, jit_kwargs={"out_shardings": host}).ok
    with pytest.raises(TypeError, match=r"out_shardings is an option of jax.jit.*jit_kwargs="):
        check_offload(step, w, batch=b, out_shardings=host)


def test_compiled_executable_is_refused_with_the_reason():
    compiled = jax.jit(lambda x: x * 2).trace(jnp.ones((8, 128))).lower().compile()
    with pytest.raises(TypeError, match=r"before compiling.*check_inputs"):
        check_offload(compiled)


def test_cpu_lowering_is_refused_with_the_reason():
    p = PROGRAMS["returned_after_compute"]()
    lowered = jax.jit(p.fn).trace(*p.args).lower()  # the local (CPU) backend
    with pytest.raises(ValueError, match=r"lowered for CPU.*lowering_platforms"):
        check_offload(lowered)


def test_ok_report_says_what_it_saw():
    p = PROGRAMS["returned_after_compute"]()
    fixed = check_offload(p.fixed_fn, *p.args)
    assert fixed.ok and fixed.offloads() == {"moves_to_host": 1, "host_arguments": 0}
    assert str(fixed).startswith("no E1200 on tpu: checked 1 move to host memory;")
    assert fixed.to_json()["offloads"]["moves_to_host"] == 1
    nothing = check_offload(lambda x: jnp.sin(x) * 2, jnp.ones((8, 128)))
    assert nothing.ok and "no offload found" in str(nothing)


def test_device_fix_names_the_returned_variable():
    fixes = {}
    for name in ("scanned_layers", "nested_scans", "returned_after_compute"):
        p = PROGRAMS[name]()
        fixes[name] = check_offload(p.fn, *p.args, jit_kwargs=p.jit_kwargs).findings[0].device_fix
    # place_to_host is another frontend's: jax.device_put would be a no-op (JAX types the value as
    # device memory), so the move back is that frontend's (tests/test_jax_fixes_real.py compiles each)
    assert fixes["scanned_layers"].endswith("\nsaved = place_to_device(saved)")
    assert fixes["nested_scans"].endswith("\nsaved = place_to_device(saved)")
    # returned as an expression, not a variable: the fix wraps that expression in the return
    assert fixes["returned_after_compute"].endswith("\nplace_to_device(jnp.sin(h))")
    assert not any(ln.startswith(("x = ", "value = ")) for f in fixes.values() for ln in f.splitlines())


@pytest.mark.parametrize("name", ["nested_scans", "param_offload_update"])
def test_text_is_drawn_by_the_findings_renderer(name):
    """str(report) is the E1200 renderer of report/finding_text.py on the report's findings, each
    carrying the program's facts (fields["jax"]) and its fixes as JAX code; the diagnostics (the
    route-independent findings) stay without them."""
    from xladoctor.findings import Finding, FindingKind, FixKind, Report
    from xladoctor.jax import OffloadFinding, OffloadReport
    from xladoctor.report.finding_text import render_finding

    p = PROGRAMS[name]()
    report = check_offload(p.fn, *p.args, jit_kwargs=p.jit_kwargs)
    assert OffloadReport is Report and OffloadFinding is Finding and isinstance(report, Report)
    drawn = [f for f in report.findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]
    assert [f.fields["jax"]["output"] for f in drawn] == [f.output for f in report.findings_of("E1200")] \
        == p.bad_outputs
    first, mine = drawn[0], report.findings[0]
    assert {x.kind: x.code for x in first.fixes} == {FixKind.HOST_OUTPUT: mine.host_fix,
                                                     FixKind.MOVE_TO_DEVICE: mine.device_fix}
    lines = render_finding(first)
    assert str(report).splitlines()[:len(lines)] == lines
    # one name for the output in every report: XLA's ShapeIndex, the Python path beside it
    assert lines[0].startswith(f"E1200 on tpu: output {{{mine.leaf}}} ({mine.output}) is in device memory")
    if mine.host_argument is not None:
        assert lines[1] == f"  argument {mine.host_argument} arrives in host memory (pinned_host) and flows to this output"
    else:
        assert lines[1] == f"  moved to host at  {mine.offloaded_at}"
    assert f"  returned from     {mine.returned_at}" in lines
    plain = [f for f in report.diagnostics().findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH]
    assert all("jax" not in f.fields and all(x.code is None for x in f.fixes) for f in plain)
    assert render_finding(plain[0])[0].startswith("E1200 predicted for output {1}")
