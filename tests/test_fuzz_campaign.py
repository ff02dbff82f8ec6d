"""A short, fixed-seed run of ``bench/fuzz_campaign.py`` (the long runs are reported in docs/fuzzing.md).

Every target runs (parser and shapes against jaxlib, offload, explain, check on a
folder, relayout), each input under the 256 MB address-space cap and the time cap
in a worker process.  The run must find no crash, no hang, no memory-cap hit and
no accept/reject or reading disagreement with jaxlib other than the named,
documented divergences.  A fixed seed and input count make the input set the same
on every run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("numpy")

CAMPAIGN = Path(__file__).resolve().parent.parent / "bench" / "fuzz_campaign.py"


def test_short_fixed_seed_campaign(tmp_path):
    report_path = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, str(CAMPAIGN), "--seed", "13", "--workers", "1", "--max-inputs", "5000",
         "--seconds", "240", "--json", str(report_path), "--save-dir", str(tmp_path / "found")],
        capture_output=True, text=True, timeout=600)
    report = json.loads(report_path.read_text())
    summary = {k: report[k] for k in ("inputs", "crashes", "hangs", "memory_cap_hits", "disagreements", "unexplained")}
    shown = json.dumps({k: v for k, v in report["examples"].items() if not k.startswith("known:")}, indent=1)[:4000]
    assert report["unexplained"] == 0, f"{summary}\n{shown}\n{proc.stderr[-2000:]}"
    assert report["crashes"] == report["hangs"] == report["memory_cap_hits"] == report["disagreements"] == 0
    assert report["inputs"] >= 2000, summary  # stopped by --max-inputs, not by a slow machine
    assert set(report["inputs_by_target"]) == {"parser", "shapes", "explain", "check", "relayout",
                                               "names", "npy", "compressed", "urls", "pairs", "configs", "fixes",
                                               "encodings", "layouts"}
    assert report["memory_cap_mb"] == 256
    assert proc.returncode == 0, proc.stdout[-2000:]
