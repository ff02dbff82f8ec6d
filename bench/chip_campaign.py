"""The real TPU chip as the judge: run programs, fixes and layout cases on the chip (issue 34).

Run on the machine with the chip (the library's ``device`` tool); every job runs in a worker
process that holds the chip, one job at a time, and writes one JSON line before and after it.
The supervisor watches those lines: a job that does not finish in ``--timeout`` seconds is
``timeout`` (the worker is killed), a worker that dies mid-job leaves the job ``crash`` (with the
end of its stderr: a libtpu CHECK, a halted core), and after either -- or after any job that
halted the core or failed at run time, since a halted core poisons what runs after it in the same
process -- a fresh worker goes on with the next job.  ``--budget`` seconds after the start no new
job is begun, so a call ends inside the device tool's limit; the jobs not reached are listed.

    python bench/chip_campaign.py --jobs jobs.jsonl --out $OUT/results.jsonl --budget 500
    python bench/chip_campaign.py --make user --seeds 0:20 > jobs.jsonl   # 13 families x 20 seeds
    python bench/chip_campaign.py --make formats > jobs.jsonl
    python bench/chip_campaign.py --make public > jobs.jsonl    # bench/public_programs.py

Each result line is the job plus ``outcome`` and what the job found (bench/chip_jobs.py); the
results are committed as data under ``tests/data/chip/`` with this script and the versions
(``jax``, ``jaxlib``, ``libtpu``) the worker saw.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
RESTART_AFTER = {"halt", "runtime_error", "harness_error"}


def worker(jobs_path: str, results_path: str, start: int) -> int:
    """Run jobs from index ``start`` on; exit 3 after one that may have poisoned the process."""
    sys.path.insert(0, HERE)
    import chip_jobs

    with open(jobs_path) as f:
        jobs = [json.loads(line) for line in f if line.strip()]
    with open(results_path, "a") as out:
        for i in range(start, len(jobs)):
            out.write(json.dumps({"start": i}) + "\n")
            out.flush()
            os.fsync(out.fileno())
            t0 = time.perf_counter()
            res = chip_jobs.run_job(jobs[i])
            res["wall_s"] = round(time.perf_counter() - t0, 2)
            out.write(json.dumps({"done": i, **jobs[i], **res}) + "\n")
            out.flush()
            os.fsync(out.fileno())
            if res.get("outcome") in RESTART_AFTER:
                return 3
    return 0


def _versions() -> dict[str, str]:
    code = ("import jax, jaxlib, importlib.metadata as m, json;"
            "v={'jax': jax.__version__, 'jaxlib': jaxlib.__version__};"
            "exec(\"try: v['libtpu']=m.version('libtpu')\\nexcept Exception: pass\");"
            "d=jax.devices()[0]; v['device']=d.platform+':'+getattr(d,'device_kind','');print(json.dumps(v))")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except Exception as e:  # recorded, not fatal
        return {"error": str(e)[:200]}


def _last_state(results_path: str, seen: int) -> tuple[int | None, set[int], int]:
    """The job in flight (started, not done), the jobs done, and the file length read."""
    started, done = None, set()
    with open(results_path) as f:
        for line in f:
            rec = json.loads(line)
            if "start" in rec and "done" not in rec:
                started = rec["start"]
            elif "done" in rec:
                done.add(rec["done"])
    return started, done, seen


def supervise(jobs_path: str, results_path: str, budget: float, timeout: float) -> dict[str, Any]:
    with open(jobs_path) as f:
        jobs = [json.loads(line) for line in f if line.strip()]
    t_start = time.monotonic()
    open(results_path, "a").close()
    nxt, restarts, idle = 0, 0, 0
    while nxt < len(jobs) and time.monotonic() - t_start < budget and idle < 3:
        err_path = results_path + f".stderr{restarts}"
        with open(err_path, "w") as err:
            proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", jobs_path, results_path,
                                     str(nxt)], stdout=err, stderr=subprocess.STDOUT)
        last_progress, last_done = time.monotonic(), -1
        while proc.poll() is None:
            time.sleep(0.5)
            started, done, _ = _last_state(results_path, 0)
            if done and max(done) != last_done:
                last_done, last_progress = max(done), time.monotonic()
            elif started is not None and started != last_done and time.monotonic() - last_progress > timeout:
                proc.kill()
                proc.wait()
                _record(results_path, jobs, started, "timeout", err_path)
                break
            if time.monotonic() - t_start > budget:
                proc.kill()
                proc.wait()
                break
        started, done, _ = _last_state(results_path, 0)
        if started is not None and started not in done and proc.returncode not in (0, 3, None) \
                and time.monotonic() - t_start <= budget:
            _record(results_path, jobs, started, "crash", err_path, proc.returncode)
        _, done, _ = _last_state(results_path, 0)
        before, nxt = nxt, max(done) + 1 if done else 0
        idle = idle + 1 if nxt == before else 0  # a worker that cannot start: stop after three
        restarts += 1
        time.sleep(2)  # the chip may refuse a program started just after another ended
    _, done, _ = _last_state(results_path, 0)
    return {"jobs": len(jobs), "done": len(done), "restarts": restarts,
            "not_reached": [i for i in range(len(jobs)) if i not in done][:50],
            "seconds": round(time.monotonic() - t_start, 1)}


def _record(results_path: str, jobs: list[dict[str, Any]], i: int, outcome: str, err_path: str,
            rc: int | None = None) -> None:
    with open(err_path, errors="replace") as f:
        tail = f.read()[-3000:]
    with open(results_path, "a") as out:
        out.write(json.dumps({"done": i, **jobs[i], "outcome": outcome, "returncode": rc, "error": tail}) + "\n")


def make_jobs(what: str, seeds: str, fixes: bool) -> list[dict[str, Any]]:
    sys.path.insert(0, HERE)
    if what == "user":
        import user_programs

        lo, hi = (int(x) for x in seeds.split(":"))
        jobs = [{"kind": "user", "family": f, "seed": s} for s in range(lo, hi) for f in user_programs.FAMILIES]
        if fixes:
            jobs = [{**j, "fix": w} for j in jobs for w in ("host", "device")]
        return jobs
    if what == "fixes":  # only the programs our check gives an E1200 fix for (computed here, no chip)
        return [job for job in _fix_jobs(seeds)]
    if what == "formats":
        import chip_routes

        return chip_routes.format_jobs()
    if what == "pinned":
        import chip_routes

        return chip_routes.pinned_jobs()
    if what == "patterns":
        import chip_routes

        return chip_routes.pattern_jobs()
    if what == "unpinned":
        import chip_routes

        return chip_routes.unpinned_jobs()
    if what == "public":
        import chip_public

        return chip_public.public_jobs()
    if what == "routes":
        import chip_routes

        return chip_routes.route_jobs()
    raise SystemExit(f"unknown --make {what}")


def _fix_jobs(seeds: str) -> Any:
    import user_programs

    from xladoctor.jax import check_offload

    lo, hi = (int(x) for x in seeds.split(":"))
    for prog in user_programs.programs(lo, (hi - lo) * len(user_programs.FAMILIES)):
        try:
            report = check_offload(prog.fn, *prog.args, jit_kwargs=prog.jit_kwargs)
        except Exception:  # jax refuses the program: no fix to run
            continue
        if report.findings_of("E1200"):
            for which in ("host", "device"):
                yield {"kind": "user", "family": prog.family, "seed": int(prog.name.split(":")[1]), "fix": which}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return worker(argv[1], argv[2], int(argv[3]))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs")
    ap.add_argument("--out")
    ap.add_argument("--budget", type=float, default=500.0)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--make", choices=("user", "fixes", "formats", "routes", "unpinned", "pinned", "patterns", "public"))
    ap.add_argument("--seeds", default="0:10")
    ap.add_argument("--fixes", action="store_true")
    a = ap.parse_args(argv)
    if a.make:
        for job in make_jobs(a.make, a.seeds, a.fixes):
            print(json.dumps(job))
        return 0
    summary = supervise(a.jobs, a.out, a.budget, a.timeout)
    summary["versions"] = _versions()
    print(json.dumps(summary))
    with open(a.out + ".summary.json", "w") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
