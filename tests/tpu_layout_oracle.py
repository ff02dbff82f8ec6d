"""libtpu as the oracle for TPU default layouts: a seeded grid of (type, dims) and a probe.

``get_default_layout`` of the TPU client (libtpu, through jax) on each
generation's compile-only topology is what ``xladoctor.ir.tpu_layouts`` models.
This file draws the grid (pure Python, so the committed table can be checked
without jax), asks libtpu in a child process (libtpu aborts the whole process on
some inputs and holds a lock file while loaded), and writes the reviewed table:

    .venv/bin/python tests/tpu_layout_oracle.py write tests/data/tpu_layouts/default_layouts.jsonl
    .venv/bin/python tests/tpu_layout_oracle.py compare --seed 7 --count 5000   # agreement with the model

Needs ``jax`` and ``libtpu`` (``pip install jax libtpu``); no TPU.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parent / "data" / "tpu_layouts" / "default_layouts.jsonl"
TABLE_SEED = 20261201
TABLE_COUNT = 800

# XLA element type -> the numpy / ml_dtypes name jax's client takes.  Every type the TPU
# client accepts; it rejects f6e2m3fn and f6e3m2fn ("Unknown NumPy dtype").
NUMPY_NAMES = {
    "pred": "bool", "s1": "int1", "s2": "int2", "s4": "int4", "s8": "int8", "s16": "int16", "s32": "int32",
    "s64": "int64", "u1": "uint1", "u2": "uint2", "u4": "uint4", "u8": "uint8", "u16": "uint16", "u32": "uint32",
    "u64": "uint64", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "f8e5m2": "float8_e5m2", "f8e4m3": "float8_e4m3", "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz", "f8e3m4": "float8_e3m4", "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e4m3fnuz": "float8_e4m3fnuz", "f8e8m0fnu": "float8_e8m0fnu", "f4e2m1fn": "float4_e2m1fn",
    "c64": "complex64", "c128": "complex128",
}
TYPES = tuple(NUMPY_NAMES)

# The three examples come first in every grid.
SEED_CASES = (("bf16", (16, 1280, 40)), ("s8", (3, 5, 7)), ("s4", (33, 65)))

_EDGES = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512,
          513, 1023, 1024, 1025, 1280, 2048, 4096)
_MAX_ELEMENTS = 1 << 36  # libtpu aborts when a padded size may overflow int64; stay far below


def _dimension(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(_EDGES)
    if roll < 0.65:
        return rng.randint(1, 9)
    if roll < 0.8:
        return rng.choice((8, 16, 32, 64, 128, 256)) * rng.randint(1, 12)
    if roll < 0.99:
        return rng.randint(1, 5000)
    return 0


def grid(seed: int, count: int) -> list[tuple[str, tuple[int, ...]]]:
    """``count`` (type, dims) cases: the seed examples, then every type in turn with random dims, ranks 0..5."""
    rng = random.Random(seed)
    cases: list[tuple[str, tuple[int, ...]]] = list(SEED_CASES)[:count]
    while len(cases) < count:
        element_type = TYPES[len(cases) % len(TYPES)]
        rank = rng.choice((0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5))
        dims = tuple(_dimension(rng) for _ in range(rank))
        if math.prod(max(d, 1) for d in dims) <= _MAX_ELEMENTS:
            cases.append((element_type, dims))
    return cases


def _probe_here(cases: list[tuple[str, tuple[int, ...]]]) -> dict[str, Any]:
    """Ask libtpu in this process (call through :func:`probe`)."""
    os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
    os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # other processes may hold libtpu's lock file
    import jax
    import ml_dtypes
    import numpy as np
    from jax.experimental import topologies

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from xladoctor.ir.tpu_layouts import LIBTPU_VERSION, TPU_GENERATIONS

    def dtype(name: str):
        n = NUMPY_NAMES[name]
        return np.dtype(getattr(ml_dtypes, n)) if hasattr(ml_dtypes, n) else np.dtype(n)

    from importlib.metadata import version

    layouts: dict[str, list[str]] = {}
    for generation, topology in TPU_GENERATIONS.items():
        device = topologies.get_topology_desc(topology, "tpu").devices[0]
        layouts[generation] = [str(device.client.get_default_layout(dtype(t), dims, device)) for t, dims in cases]
    return {"jax": jax.__version__, "libtpu": version("libtpu"), "modelled_libtpu": LIBTPU_VERSION,
            "layouts": layouts}


def probe(cases: list[tuple[str, tuple[int, ...]]], timeout: float = 300) -> dict[str, Any]:
    """libtpu's default layout of every case on every generation, from a child process."""
    env = dict(os.environ, ALLOW_MULTIPLE_LIBTPU_LOAD="1", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, __file__, "_probe"], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"libtpu probe failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def libtpu_available() -> str | None:
    """None when jax and libtpu import here, else why not."""
    import importlib.util

    for module in ("jax", "libtpu", "ml_dtypes"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install jax libtpu)"
    if not sys.platform.startswith("linux"):
        return "libtpu runs on Linux only"
    return None


def read_table(path: Path = TABLE) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append(json.loads(line))
    return rows


def compare(cases, layouts: dict[str, list[str]]) -> tuple[int, list[str]]:
    """(agreeing count, one line per disagreement) of the model against libtpu's layouts."""
    from xladoctor.ir.tpu_layouts import tpu_default_layout

    agree, bad = 0, []
    for generation, column in layouts.items():
        for (element_type, dims), real in zip(cases, column):
            ours = str(tpu_default_layout(element_type, dims, generation))
            if ours == real:
                agree += 1
            else:
                bad.append(f"{generation} {element_type}{list(dims)}: libtpu {real}, model {ours}")
    return agree, bad


def _write(path: Path) -> None:
    cases = grid(TABLE_SEED, TABLE_COUNT)
    result = probe(cases)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# get_default_layout from libtpu {result['libtpu']} (jax {result['jax']}), compile-only "
                f"topologies; grid seed {TABLE_SEED}; written by tests/tpu_layout_oracle.py write\n")
        for i, (element_type, dims) in enumerate(cases):
            row = {"type": element_type, "dims": list(dims)}
            row.update({g: column[i] for g, column in result["layouts"].items()})
            f.write(json.dumps(row) + "\n")
    print(f"wrote {len(cases)} cases x {len(result['layouts'])} generations to {path}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["_probe"]:
        cases = [(t, tuple(d)) for t, d in json.loads(sys.stdin.read())]
        print(json.dumps(_probe_here(cases)))
        return 0
    if argv[:1] == ["write"] and len(argv) == 2:
        _write(Path(argv[1]))
        return 0
    if argv[:1] == ["compare"]:
        import argparse

        p = argparse.ArgumentParser(prog="tpu_layout_oracle.py compare")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--count", type=int, default=2000)
        args = p.parse_args(argv[1:])
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
        cases = grid(args.seed, args.count)
        result = probe(cases)
        agree, bad = compare(cases, result["layouts"])
        total = agree + len(bad)
        print(f"libtpu {result['libtpu']}: {agree}/{total} agree (seed {args.seed}, {args.count} cases x "
              f"{len(result['layouts'])} generations)")
        print("\n".join(bad[:50]))
        return 0 if not bad else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
