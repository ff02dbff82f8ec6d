"""``check_offload(..., run=True)`` on the chip: the Python API as a notebook calls it (issue 34).

Each case runs in its own process (a halt or a libtpu abort ends only that one) and prints one
JSON line: what ``report.ok`` said, the judge, the run's outcome, and whether this process could
still use the chip afterwards.  Two ways the API reaches the chip:

* ``in_process``: the caller has run something on the TPU first (a notebook has), so its jax
  holds the chip and the run happens in the caller's process (``oracle/run_here.py``);
* ``worker``: the caller's jax has only the CPU (``JAX_PLATFORMS=cpu``: a chip machine whose
  notebook did not ask for the TPU), so the chip is free; a worker process runs and lets it go.
  (A caller that lowers for TPU with arrays or shardings on the chip has opened it by then:
  that is the ``in_process`` way, whatever it meant.)

Programs are user-shaped ones whose chip outcome is recorded in ``tests/data/chip/round7.jsonl``.

    JAX_PLATFORMS=tpu,cpu python bench/chip_api_run.py run > api-run.jsonl     # on the device
    python bench/chip_api_run.py case NAME MODE                               # one case, in this process
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CASES = [  # (program, mode): the chip's outcome in round7.jsonl (arrays, not ShapeDtypeStructs)
    ("device_put_host:85", "in_process"),   # ran right
    ("device_put_host:85", "worker"),
    ("in_shardings_kinds:88", "in_process"),  # ran right
    ("in_shardings_kinds:88", "worker"),
    ("host_params:90", "in_process"),         # every call refused (unpinned_host argument)
    ("host_params:90", "worker"),
    ("scan_offload:93", "in_process"),        # compile error (bitcast of a host stack)
    ("scan_offload:93", "worker"),
    ("donation:85", "in_process"),            # the process aborted at the call
    ("donation:85", "worker"),
]


def case(name: str, mode: str) -> dict:
    import jax
    import jax.numpy as jnp

    if mode == "in_process":
        jnp.ones(4).block_until_ready()  # the caller's jax now holds the chip
    import user_programs

    from xladoctor.jax import check_offload
    from xladoctor.oracle.run_here import process_holds_chip

    family, seed = name.split(":")
    prog = user_programs.build(family, int(seed))
    t0 = time.monotonic()
    report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs, run=True, seed=0)
    check = report.analysis
    doc = {"case": name, "mode": mode, "holds_chip": process_holds_chip(), "ok": report.ok,
           "outcome": check.outcome, "failures": len(check.failures),
           "codes": sorted({f.code for f in report.findings}),
           "verdict": check.confirmation.verdict.kind if check.confirmation else None,
           "judge": (check.run or {}).get("judge"), "run": (check.run or {}).get("run"),
           "seconds": round(time.monotonic() - t0, 2)}
    from xladoctor.oracle.run_chip import shared_runner

    doc["worker_left_running"] = shared_runner()._proc is not None
    try:  # the chip is this process's (again) after the call
        doc["chip_after"] = float(jnp.ones(4).sum()) == 4.0 and jax.devices()[0].platform
    except Exception as e:
        doc["chip_after"] = f"{type(e).__name__}: {str(e)[:200]}"
    return doc


def main(argv: list[str]) -> int:
    if argv[:1] == ["case"]:
        print(json.dumps(case(argv[1], argv[2]), default=str), flush=True)
        return 0
    for name, mode in CASES:
        t0 = time.monotonic()
        try:
            env = {**os.environ, **({"JAX_PLATFORMS": "cpu"} if mode == "worker" else {})}
            proc = subprocess.run([sys.executable, __file__, "case", name, mode], capture_output=True, text=True,
                                  timeout=240, env=env)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            doc = json.loads(lines[-1]) if lines else {"case": name, "mode": mode, "process": "died",
                                                       "returncode": proc.returncode, "stderr": proc.stderr[-1500:]}
        except subprocess.TimeoutExpired:
            doc = {"case": name, "mode": mode, "process": "timeout"}
        doc["wall_s"] = round(time.monotonic() - t0, 1)
        print(json.dumps(doc, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
