"""The HTML drawing of an E1200 path (report/finding_html.py) reads the findings model's hops.

Over XLA's own offload scenarios (tests/data/offload): the drawing and the hop table made
from a finding's path in ``diagnostics`` are the ones made from the same document's
``errors[i].path`` read into hops (the route of a compiled module, whose ``diagnostics`` is
empty, and of ``explain --hlo``), node for node.  A real jax program's TPU lowering puts
Python lines on the hops: they are drawn as ``file:line (function)`` from both a
``location`` string (offload's ``errors``) and a ``source`` object (``diagnostics``),
never as a raw dict.
"""

from __future__ import annotations

import dataclasses
import html
import json
import shlex
import textwrap
from pathlib import Path

import pytest

from jax_programs import hlo_of_script
from test_offload_scenarios import FILES
from xladoctor.cli.main import main
from xladoctor.findings import FindingKind
from xladoctor.findings.records import hops_from_json
from xladoctor.findings.wire import load_document
from xladoctor.report.finding_html import finding_nodes, host_set, matching_finding, path_table

JAX_PROGRAM = textwrap.dedent("""\
    import sys, jax, jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    def f(x):
        y = jnp.sin(x)
        return jnp.tanh(y)

    host = SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    arg = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=host)  # computed on in host memory
    lowered = jax.jit(f).trace(arg).lower(lowering_platforms=("tpu",))
    sys.stdout.write(lowered.as_text("hlo", debug_info=True))
    with open(sys.argv[0][:-3] + ".mlir", "w") as companion:  # prog.mlir beside prog.hlo: the memory kinds
        companion.write(lowered.as_text())
    """)


def _offload(path: Path, capsys) -> dict:
    main(["offload", "--json", str(path)])
    return json.loads(capsys.readouterr().out)


def _both_routes(doc: dict) -> list[tuple[object, object, str, str]]:
    """(nodes from the finding, nodes from errors' path, table from each) per E1200 of ``doc``."""
    host = host_set(doc["details"].get("host_positions", []))
    out = []
    for err in doc["details"]["errors"]:
        f = matching_finding(err, load_document(doc)["diagnostics"])  # JSON from the CLI: typed at the boundary
        assert f is not None and f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH
        hops = hops_from_json(err["path"])
        assert [(h.instruction, h.shape_index) for h in f.path] == [(h.instruction, h.shape_index) for h in hops]
        origin = err["origin_instruction"] or ""
        out.append((finding_nodes(f, host, "en"), finding_nodes(dataclasses.replace(f, path=hops), host, "en"), path_table(f.path, host, origin, "en"),
                    path_table(hops, host, origin, "en")))
    return out


def test_corpus_paths_drawn_alike_from_the_finding_and_from_the_analysis(capsys):
    drawn = 0
    for path in FILES:
        doc = _offload(path, capsys)
        for (nodes, nodes_e, table, table_e), err in zip(_both_routes(doc), doc["details"]["errors"]):
            assert nodes == nodes_e and table == table_e, path.name
            assert [n.instruction for n in nodes[:-1]] == [h["instruction"] for h in err["path"]]
            assert nodes[-1].kind == "output"
            drawn += 1
    assert drawn >= 10  # the corpus has many E1200s; an empty loop must not pass


def test_python_lines_drawn_from_string_and_object_locations(tmp_path, capsys):
    pytest.importorskip("jax")
    hlo = hlo_of_script(JAX_PROGRAM, tmp_path)
    script = hlo.with_suffix(".py")  # the Python lines the module's metadata names
    doc = _offload(hlo, capsys)
    assert doc["details"]["outcome"] == "E1200"
    [(nodes, nodes_e, table, table_e)] = _both_routes(doc)
    assert nodes == nodes_e and table == table_e
    assert nodes[0].lines[0] == "x.1"  # the host argument, then its compute: sin (line 5), tanh (line 6)
    assert f"\u2937 {script}:5 (f)" in nodes[1].lines and f"\u2937 {script}:6 (f)" in nodes[2].lines
    assert "{'file'" not in table and "&#x27;file&#x27;" not in table
    # the diagnostics' own JSON (source objects) reads into the same hops
    diag_path = doc["diagnostics"]["findings"][0]["path"]
    f = matching_finding(doc["details"]["errors"][0], load_document(doc)["diagnostics"])
    assert f is not None and hops_from_json(diag_path) == f.path


def test_explain_e1200_path_is_drawn_from_its_diagnostics_twin(capsys):
    """A logged E1200's boxes are its finding's path (the model), the log's trace only without one."""
    from xladoctor.report.html_explain import explain_body

    log = Path(__file__).parent / "data" / "logs" / "traceback_e1200.log"
    main(["explain", "--json", str(log)])
    doc = json.loads(capsys.readouterr().out)
    trace = [h["instruction"] for f in doc["findings"] if f["code"] == "E1200" for h in f["analysis"]["trace"]]
    assert len(trace) >= 2
    drawn = explain_body(doc, "x")
    assert all(f'data-instruction="{name}"' in drawn for name in trace)
    twin = next(d for d in doc["diagnostics"]["findings"] if d["code"] == "E1200")
    assert [h["instruction"] for h in twin["path"]] == trace
    twin["path"][0]["instruction"] = "from.the.model"
    drawn = explain_body(doc, "x")
    assert 'data-instruction="from.the.model"' in drawn and f'data-instruction="{trace[0]}"' not in drawn
    del doc["diagnostics"]  # an older document: the trace, read by the same adapter
    assert f'data-instruction="{trace[0]}"' in explain_body(doc, "x")


def test_offload_article_headline_and_path_read_the_finding(capsys):
    """The E1200 article's headline, message and boxes follow the diagnostics finding; a compiled
    module (no finding) still shows its analysis from the document's own entry."""
    from xladoctor.report.html_offload import offload_body

    doc = _offload(Path(__file__).parent / "data" / "offload" / "J1_annotate_device_placement_jax_style.hlo", capsys)
    twin = doc["diagnostics"]["findings"][0]
    twin["fields"]["output_layout"] = "f32[1]{0:S(7)}"
    twin["message"] = "E1200: from the model"
    twin["path"][-1]["instruction"] = "model.hop"
    body = offload_body(doc, "x")
    assert "f32[1]{0:S(7)}" in body and "E1200: from the model" in body and 'data-instruction="model.hop"' in body
    doc["diagnostics"]["findings"] = []  # what a compiled module's document holds
    body = offload_body(doc, "x")
    assert doc["details"]["errors"][0]["output_layout"] in body and 'data-instruction="model.hop"' not in body
    assert f'data-instruction="{doc["details"]["errors"][0]["path"][-1]["instruction"]}"' in body


def _cards(body: str) -> str:
    start = body.index('<div class="fixes">')
    return body[start:body.index("</article>", start)]


def test_offload_fix_cards_are_drawn_from_the_findings_fixes(capsys):
    """E1200's two cards read the finding's ``Fix`` values and fields (the remedy's layout, the
    returned instruction, its command line); a compiled module's document, without a finding,
    reads its ``errors[i].fix`` into the same ``Fix`` values and draws the same cards."""
    from xladoctor.report.html_base import code_block
    from xladoctor.report.html_offload import offload_body

    path = Path(__file__).parent / "data" / "offload" / "J1_annotate_device_placement_jax_style.hlo"
    doc = _offload(path, capsys)
    err, twin = doc["details"]["errors"][0], doc["diagnostics"]["findings"][0]
    assert [x["kind"] for x in twin["fixes"]] == ["host-output", "move-to-device"]
    assert twin["fields"]["host_layout"] == err["fix"]["host"]["entry_result_layout"]
    assert twin["fields"]["returned_value"] == err["fix"]["device"]["after_instruction"]
    cards = _cards(offload_body(doc, "x"))
    assert err["fix"]["host"]["entry_result_layout"] in cards and err["fix"]["device"]["after_instruction"] in cards
    assert all(shlex.join(x["command"]) in html.unescape(cards) for x in twin["fixes"])
    # the model, not the analysis' entry, is what the cards show
    twin["fields"]["host_layout"] = "f32[9]{0:S(5)}<b>"
    twin["fixes"][1]["text"] = "bring it back; JAX: from-the-model"
    cards = _cards(offload_body(doc, "x"))
    assert "+ f32[9]{0:S(5)}&lt;b&gt;" in cards and "<b>" not in cards.replace("<b>In JAX", "")
    assert "from-the-model" in cards
    # no finding (a compiled module): the analysis' own entry, through the adapter's constructors
    doc = _offload(path, capsys)
    from_model = _cards(offload_body(doc, "x"))
    doc["diagnostics"]["findings"] = []
    from_entry = _cards(offload_body(doc, "x"))
    commands = [shlex.join(x["command"]) for x in twin["fixes"]]
    assert all(c not in html.unescape(from_entry) for c in commands)  # the analysis names no file to rerun
    for c in commands:
        from_model = from_model.replace(code_block(c, "sh", label="copy"), "")
    assert from_model == from_entry


def test_each_fix_kind_has_a_card_and_cards_are_inert():
    """Every FixKind is drawn by its own table entry; prose, code and commands are escaped."""
    from xladoctor.findings import Fix, FixKind
    from xladoctor.report.finding_html import FIX_CARDS, fix_cards

    assert set(FIX_CARDS) == set(FixKind)
    hostile = "<script>alert(1)</script>"
    facts = {"output_index": [0], "output_layout": hostile, "host_layout": hostile, "result_name": hostile,
             "returned_value": hostile, "returned_location": hostile}
    for kind in FixKind:
        fix = Fix(kind, f"{hostile}; JAX: {hostile}", hostile, ("xladoctor", hostile))
        out = fix_cards((fix,), facts, "en")
        assert "<script>" not in out and "&lt;script&gt;" in out, kind
    listed = fix_cards((Fix(FixKind.RELAYOUT, "relayout", "code()"), Fix(FixKind.ADVICE, "advice")), {}, "en")
    assert listed.count('<li class="fix-item">') == 2 and ">relayout</span>" in listed and "code()" in listed


def test_explain_fixes_are_the_diagnostics_twins(capsys):
    """A logged finding's fix list is its finding's ``Fix`` values, the entry's own sentences
    only in a document without diagnostics."""
    from xladoctor.report.html_explain import explain_body

    log = Path(__file__).parent / "data" / "logs" / "traceback_e1200.log"
    main(["explain", "--json", str(log)])
    doc = json.loads(capsys.readouterr().out)
    n = next(i for i, f in enumerate(doc["findings"]) if f["fixes"])
    twin = doc["diagnostics"]["findings"][n]
    assert [x["text"] for x in twin["fixes"]] == doc["findings"][n]["fixes"]
    assert html.escape(twin["fixes"][0]["text"]) in explain_body(doc, "x")
    twin["fixes"][0]["text"] = "from the model <i>"
    body = explain_body(doc, "x")
    assert "from the model &lt;i&gt;" in body
    del doc["diagnostics"]
    assert "from the model" not in explain_body(doc, "x")
