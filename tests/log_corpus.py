"""Generated TPU-style logs for the scanner, `check` and fleet tests (and bench/).

Noise lines (glog, ISO timestamps, Persian text, lines that contain anchor words
without being errors) with XLA errors placed at random: every catalogue entry's
example, multi-line coded messages with host_offloader traces, one error from many
replicas, and E0102 messages with varying parameters (distinct findings).
"""

from __future__ import annotations

import random
from pathlib import Path

from xladoctor.catalogue import load_catalogue

NOISE = (
    "I1031 09:{m:02d}:{s:02d}.{us:06d}  {pid} tpu_compiler.cc:{ln}] step {i} loss={loss:.4f} throughput=1234.5 "
    "examples/s mem=12.3G/32.0G\n",
    "2025-10-31 09:{m:02d}:{s:02d},000 - INFO - epoch {i} expected parameter count ok; Tensor stats nominal\n",
    "W1031 09:{m:02d}:{s:02d}.{us:06d}  {pid} host.cc:{ln}] گزارش مرحله {i}: همه چیز درست است\n",
    "[host-{pid}] Failed to connect, retrying (attempt {i}); Ran a health check; halted=false\n",
)
E1200_TRACED = (
    "I1031 09:00:00.000000  77 host_offloader.cc:812] Instruction trace leading to error:\n"
    "I1031 09:00:00.000001  77 host_offloader.cc:814]   {{Instr: square.{r}, ShapeIndex: {{}}}}\n"
    "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
    "Tensor which is moved to host (starting from square.{r}) is returned from the entry computation but "
    "the layout for this output is not set to host memory.\n"
    "See https://openxla.org/xla/errors/error_1200 for more details.\n")
E0102 = ("E1031 09:00:00.000000  77 pjrt_client.cc:1] XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_step) "
         "expected parameter {p} of size 5242880 (bf16[16,1280,40]{{2,1,0:T(8,128)(2,1)}}) but got buffer with "
         "incompatible size 1638400 (bf16[16,1280,40]{{1,2,0:T(8,128)(2,1)}}): while running replica {r} and "
         "partition 0 of a replicated computation (other replicas may have failed as well).\n")


def error_texts() -> list[str]:
    cat = load_catalogue()
    return [e.example.rstrip("\n") + "\n" for e in cat if e.example]


def write_log(path: Path, lines: int, seed: int, error_every: int = 400, long_line_every: int = 0) -> Path:
    """About ``lines`` noise lines with an error every ~``error_every`` lines (random kinds and spots)."""
    rng = random.Random(seed)
    examples = error_texts()
    out = []
    for i in range(lines):
        out.append(rng.choice(NOISE).format(m=i // 60 % 60, s=i % 60, us=i % 1_000_000, pid=4000 + i % 97,
                                            ln=100 + i % 900, i=i, loss=1.0 / (1 + i % 1000)))
        if long_line_every and i % long_line_every == 0:
            out.append("x" * rng.randrange(20_000, 90_000) + " Tensor " + "y" * 5000 + "\n")
        if rng.randrange(error_every) == 0:
            kind = rng.randrange(4)
            if kind == 0:
                out.append(rng.choice(examples))
            elif kind == 1:
                out.append(E1200_TRACED.format(r=rng.randrange(1000)))
            else:
                out.append(E0102.format(p=rng.randrange(50), r=rng.randrange(256)))
    path.write_text("".join(out), encoding="utf-8")
    return path
