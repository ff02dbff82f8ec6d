"""The ``offload`` document's version 2 (issue 37 item 1): the top level is what a user or CI reads,
the analysis' own record is under one key, ``details``; ``check`` (version 3) embeds it."""

from __future__ import annotations

import json
from pathlib import Path

from xladoctor.cli.main import main
from xladoctor.report.html import render_offload_html

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"

TOP = ["schema_version", "$schema", "command", "verdict", "provenance", "stablehlo", "memory_kinds", "diagnostics",
       "details"]
DETAILS = ["model", "rule", "outcome", "error", "errors", "failures", "host_positions", "host_compute", "inserted",
           "dynamified_slices", "dynamic_update_slices", "dropped_offloads", "outputs_moved_to_host", "walks",
           "inlined_calls", "legalize", "warnings", "vlog"]


def _json(capsys, *argv) -> dict:
    main([str(a) for a in argv])
    return json.loads(capsys.readouterr().out)


def test_the_top_level_is_what_a_user_reads_and_the_analysis_is_under_details(capsys):
    doc = _json(capsys, "offload", E1200, "--json")
    assert (doc["schema_version"], list(doc), list(doc["details"])) == (2, TOP, DETAILS)
    assert doc["verdict"] == "findings" and doc["details"]["outcome"] == "E1200"
    (finding,) = doc["diagnostics"]["findings"]  # what CI acts on: the finding, its path and its fixes' edits
    assert finding["code"] == "E1200" and finding["path"] and any(f["edits"] for f in finding["fixes"])


def test_check_embeds_the_version_2_document(capsys, tmp_path):
    doc = _json(capsys, "check", E1200, "-j1", "--json")
    (entry,) = doc["files"]
    assert doc["schema_version"] == 3 and "schema_version" not in entry["offload"]
    assert list(entry["offload"]) == [k for k in TOP if k not in ("schema_version", "$schema", "verdict",
                                                                   "memory_kinds")]
    assert list(entry["offload"]["details"]) == DETAILS


def test_a_version_1_document_saved_earlier_draws_the_same_page(capsys):
    """The page reads a saved ``--json`` file of either version: version 1 had the analysis at its top."""
    doc = _json(capsys, "offload", E1200, "--json")
    old = {k: v for k, v in doc.items() if k != "details"} | doc["details"] | {"schema_version": 1}
    assert render_offload_html(old) == render_offload_html(doc)
