"""The HLO modules several tests run every route over: the bundled examples, the host-offload
scenario corpus (tests/data/offload) and modules bench/offload_gen.py builds from fixed seeds."""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = [*sorted((ROOT / "src" / "xladoctor" / "examples").glob("*.hlo")),
          *sorted((Path(__file__).parent / "data" / "offload").glob("*.hlo"))]


def generated_hlo(out: Path, count: int) -> list[Path]:
    """``count`` modules from offload_gen (seeds 0..count-1), written to ``out`` as gen_NN.hlo."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from offload_gen import build_hlo, hlo_spec
    finally:
        sys.path.remove(str(ROOT / "bench"))
    paths = []
    for seed in range(count):
        p = out / f"gen_{seed:02d}.hlo"
        p.write_text(build_hlo(hlo_spec(random.Random(seed))))
        paths.append(p)
    return paths
