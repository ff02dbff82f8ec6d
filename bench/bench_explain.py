"""Benchmark `xladoctor explain FILE`: MB/s and peak RSS on a large synthetic TPU log.

Generates a log (default 200 MB) in a temporary directory: glog-style noise lines,
with every ~5,000 lines an XLA error (E0102 from many replicas, coded E1200 with a
host_offloader trace, E1000, E0200), then scans it with the same code path as the
CLI and reports throughput and the process's peak resident memory.  Memory must
stay flat as the log grows: run with --mb 50 and --mb 400 and compare.

    python bench/bench_explain.py [--mb 200] [--keep]

Not part of the test suite (timings are never asserted in tests).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from xladoctor.catalogue.logscan import scan_file  # noqa: E402

NOISE = ("I1031 09:{m:02d}:{s:02d}.{us:06d}  {pid} tpu_compiler.cc:{ln}] step {i} loss={loss:.4f} "
         "throughput=1234.5 examples/s mem=12.3G/32.0G\n")
ERRORS = [
    ("E1031 09:00:00.000000  77 pjrt_client.cc:1] XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_step) "
     "expected parameter 2482 of size 5242880 (bf16[16,1280,40]{{2,1,0:T(8,128)(2,1)}}) but got buffer with "
     "incompatible size 1638400 (bf16[16,1280,40]{{1,2,0:T(8,128)(2,1)}}): while running replica {r} and "
     "partition 0 of a replicated computation (other replicas may have failed as well).\n"),
    ("I1031 09:00:00.000000  77 host_offloader.cc:812] Instruction trace leading to error:\n"
     "I1031 09:00:00.000001  77 host_offloader.cc:814]   {{Instr: square.790, ShapeIndex: {{}}}}\n"
     "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
     "Tensor which is moved to host (starting from square.790) is returned from the entry computation but "
     "the layout for this output is not set to host memory.\n"
     "See https://openxla.org/xla/errors/error_1200 for more details.\n"),
    ("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used "
     "49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.\n"),
    ("Core halted unexpectedly: INTERNAL: Accelerator device halted prematurely, perhaps due to an on-device "
     "check-failure. Node {r} halted unexpectedly at tag:pc TensorCoreSequencer:1:0x1d9: observed errors are: "
     "[Hardware]\n"),
]


def generate(path: Path, megabytes: int) -> int:
    target = megabytes * 1_000_000
    written = 0
    i = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < target:
            block = []
            for _ in range(1000):
                i += 1
                block.append(NOISE.format(m=(i // 60) % 60, s=i % 60, us=i % 1_000_000, pid=4000 + i % 97,
                                          ln=100 + i % 900, i=i, loss=1.0 / (1 + i % 1000)))
                if i % 5000 == 0:
                    block.append(ERRORS[(i // 5000) % len(ERRORS)].format(r=(i // 5000) % 256))
            text = "".join(block)
            f.write(text)
            written += len(text.encode())
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200, help="log size in MB (default 200)")
    ap.add_argument("--keep", action="store_true", help="keep the generated log")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="xladoctor-bench-"))
    path = tmp / "big.log"
    t0 = time.perf_counter()
    size = generate(path, args.mb)
    gen_s = time.perf_counter() - t0
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Read speed of the file itself, for scale (warm page cache either way).
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass
    read_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    findings, _ = scan_file(str(path))
    scan_s = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"log: {size / 1e6:.1f} MB ({gen_s:.1f} s to generate) at {path}")
    print(f"plain read: {size / 1e6 / read_s:.0f} MB/s")
    print(f"scan: {scan_s:.2f} s = {size / 1e6 / scan_s:.1f} MB/s")
    print(f"peak RSS: {peak_kib / 1024:.1f} MiB (before scan {rss_before / 1024:.1f} MiB)")
    for f in findings:
        print(f"  {f.code} line {f.line} x{f.count}")
    if not args.keep:
        os.remove(path)
        tmp.rmdir()


if __name__ == "__main__":
    main()
