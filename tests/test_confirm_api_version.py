"""Issue 38 (a): ``--confirm`` on a StableHLO whose custom calls name ``api_version = 0 : i32``
(API_VERSION_UNSPECIFIED, which JAX never writes).  jaxlib 0.10.2 accepts it and libtpu compiles
it on ``annotate_device_placement`` (measured), so it is compiled as given and the confirm object
says so (``warning``), in every format; JAX's own StableHLO gets no such word.  The pair is the
first-hour lowering (``tests/data/first_hour/lowered``: ``jit(step).lower(...)``, both texts)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from json_schema_check import schema_errors
from xladoctor.cli.main import main
from xladoctor.oracle.api_version import unspecified_in_stablehlo

LOWERED = Path(__file__).parent / "data" / "first_hour" / "lowered"


def _unspecified_pair(tmp_path: Path) -> Path:
    """step.hlo beside a step.mlir whose placement call names api_version 0."""
    text = (LOWERED / "step.mlir").read_text()
    marked = text.replace('@annotate_device_placement(%1) {backend_config = ""',
                          '@annotate_device_placement(%1) {api_version = 0 : i32, backend_config = ""')
    assert marked != text
    (tmp_path / "step.mlir").write_text(marked)
    shutil.copy(LOWERED / "step.hlo", tmp_path / "step.hlo")
    return tmp_path / "step.hlo"


def test_unspecified_api_versions_are_counted_as_stablehlo_prints_them():
    assert unspecified_in_stablehlo((LOWERED / "step.mlir").read_text()) == 0  # JAX writes none
    assert unspecified_in_stablehlo("stablehlo.custom_call @f(%0) {api_version = 0 : i32, x = 1}") == 1
    assert unspecified_in_stablehlo('"stablehlo.custom_call"(%0) <{api_version = 0 : i32}>') == 1
    assert unspecified_in_stablehlo("mhlo.custom_call @f(%0) {api_version = #mhlo<api_version API_VERSION_UNSPECIFIED>}") == 1
    for other in ("api_version = 1 : i32", "api_version = 4 : i32", "api_version = 0.5", "my_api_version = 0 : i32"):
        assert unspecified_in_stablehlo(f"stablehlo.custom_call @f(%0) {{{other}}}") == 0, other


def test_confirm_compiles_it_as_given_and_says_so(tmp_path, capsys):
    from xladoctor.oracle import unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    hlo = _unspecified_pair(tmp_path)
    assert main(["offload", str(hlo), "--confirm", "--json"]) == 1  # E1200, predicted and confirmed
    doc = json.loads(capsys.readouterr().out)
    assert not schema_errors(doc, "offload")
    c = doc["confirm"]
    assert c["input"] == "stablehlo" and c["agree"] is True and c["verdict"]["kind"] == "e1200"
    assert c["warning"].startswith("the StableHLO gives api_version = 0 (API_VERSION_UNSPECIFIED) to 1 of its custom calls")
    assert "normalised" not in c  # nothing was changed
    assert main(["offload", str(hlo), "--confirm"]) == 1
    assert "  warning: the StableHLO gives api_version = 0 (API_VERSION_UNSPECIFIED) to 1 of its custom calls" in capsys.readouterr().out
    assert main(["check", str(hlo), "--confirm", "--lang", "fa", "--bidi", "logical"]) == 1
    assert "هشدار:" in capsys.readouterr().out
    # JAX's own lowering, the same program: no warning
    assert main(["offload", str(LOWERED / "step.hlo"), "--confirm", "--json"]) == 1
    assert "warning" not in json.loads(capsys.readouterr().out)["confirm"]
