"""The E0102 drawing reads a side's dimensions with the shape parser, not a regex over the printed shape."""

from __future__ import annotations

import json
from pathlib import Path

from xladoctor.cli.main import main
from xladoctor.report.html_explain import layout_dims

LOG = Path(__file__).parent.parent / "src" / "xladoctor" / "examples" / "tpu_job.log"


def test_e0102_sides_of_a_real_log_become_physical_dimension_rows(capsys):
    main(["explain", str(LOG), "--json"])
    (e0102,) = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "E0102"]
    expected, actual = e0102["analysis"]["expected"], e0102["analysis"]["actual"]
    rows = layout_dims(expected)
    # minor_to_major {2,1,0}: dimension 2 (40) is minor-most and padded to 128 by the T(8,128) tile
    assert [(r["dim"], r["size"], r["padded_size"]) for r in rows] == [(2, 40, 128), (1, 1280, 1280), (0, 16, 16)]
    assert [r for r in rows if r["padded_size"] != r["size"]] == expected["padded_dimensions"]
    assert [(r["dim"], r["padded_size"]) for r in layout_dims(actual)] == [(1, 1280), (2, 40), (0, 16)]


def test_a_tuple_or_a_shape_xla_refuses_draws_no_rows():
    assert layout_dims({"shape": "(f32[2,3]{1,0}, s32[4]{0})"}) == []
    assert layout_dims({"shape": "f32[2,3]{1,0"}) == []
    assert layout_dims({"shape": "f32[2,3]{1,0}"}) == [
        {"dim": 1, "size": 3, "padded_size": 3, "tile_entry": None, "physical_position": 0},
        {"dim": 0, "size": 2, "padded_size": 2, "tile_entry": None, "physical_position": 1}]
