"""Runs ``bench/offload_campaign.py`` as CI does (TPU or GPU): one shared driver for the
fixed-seed campaign tests, so both compilers are held to the same agreement checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def run_agreeing_campaign(*args: str, count: int, timeout: int) -> dict[str, Any]:
    """The campaign's JSON summary after asserting what every fixed-seed run must show: no
    unexplained disagreement, >= 90% decided, both compiling and E1200 programs in the sample."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "offload_campaign.py"), *args,
                           "--count", str(count), "--json", "--shrink-budget", "5"],
                          capture_output=True, text=True, env=env, timeout=timeout)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert doc["disagree"] == 0, json.dumps(doc["disagreements"], indent=1)[:4000]
    assert doc["decided"] >= count * 0.9
    assert doc["verdicts"].get("E1200", 0) >= 20 and doc["verdicts"].get("compiles", 0) >= 20
    return doc
