"""Where a log scan's time goes, beside ``rg``'s, on this machine (issue 36 item 6).

Stop 49 measured ``explain LOG`` at 0.89x ``rg`` on the 2-core machine and 1.41x on the device's CPU
for the same clean log, with no explanation.  This splits both sides into what each pays: a process
start (``python -c pass``, the imports), the pages of a mapped file (minor faults, from the children's
``rusage``), the planner's needle automata alone over a mapping and over bytes, and ``rg`` with and
without its memory map, so two machines can be compared phase by phase.

    python3 bench/logs_breakdown.py [--mb 500] [--repeat 5] [--kinds clean,sparse] [--json OUT]

In-process phases are best-of-``repeat`` ``perf_counter`` seconds (the device's process clock ticks at
10 ms); whole processes are best wall and best CPU with minor faults.
"""

from __future__ import annotations

import argparse
import ast
import json
import mmap
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

PHASES = r"""
import mmap, sys, time
from xladoctor.catalogue.prefilter import AnchorFinder
from xladoctor.catalogue.scanner import LogScanner
path, repeat = sys.argv[1], int(sys.argv[2])
finder = AnchorFinder(LogScanner().anchors)
ac = finder._ac
out = {}
def best(name, fn):
    times = []
    for _ in range(repeat):
        t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    out[name] = min(times)
def fresh_map(fn):
    def run():
        with open(path, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                fn(m)
            finally:
                m.close()
    return run
best("map + touch every page (find of an absent word)", fresh_map(lambda m: m.find(b"\x00\x01\x02\x03")))
best("map + MAP_POPULATE-like madvise(WILLNEED) + touch", fresh_map(
    lambda m: (m.madvise(mmap.MADV_WILLNEED), m.find(b"\x00\x01\x02\x03"))))
def populated(fn):
    def run():
        with open(path, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE, prot=mmap.PROT_READ)
            try:
                fn(m)
            finally:
                m.close()
    return run
def stretches(advice):
    def fn(m):
        for at in range(0, len(m), 8 << 20):
            m.madvise(advice, at, min(8 << 20, len(m) - at))
            ac.needles[0].find_matches_as_indexes(memoryview(m)[at:at + (8 << 20)])
    return fresh_map(fn)
best("map(MAP_POPULATE): needle automaton 0", populated(lambda m: ac.needles[0].find_matches_as_indexes(m)))
best("map(MAP_POPULATE) alone", populated(lambda m: None))
best("map + madvise(SEQUENTIAL): needle automaton 0", fresh_map(
    lambda m: (m.madvise(mmap.MADV_SEQUENTIAL), ac.needles[0].find_matches_as_indexes(m))))
best("map, per 8 MB madvise(WILLNEED) + needle automaton 0", stretches(mmap.MADV_WILLNEED))
try:
    best("map, per 8 MB madvise(POPULATE_READ) + needle automaton 0", stretches(22))
except OSError as e:
    out["POPULATE_READ"] = str(e)
best("read() into bytes", lambda: open(path, "rb").read())
with open(path, "rb") as f:
    data = f.read()
best("bytes: find of an absent word", lambda: data.find(b"\x00\x01\x02\x03"))
best("bytes: count newlines", lambda: data.count(b"\n"))
for i, automaton in enumerate(ac.needles):
    best(f"bytes: needle automaton {i}",
         lambda a=automaton: a.find_matches_as_indexes(data))
    best(f"fresh map: needle automaton {i}", fresh_map(lambda m, a=automaton: a.find_matches_as_indexes(m)))
best("bytes: exact automaton", lambda: ac.exact.find_matches_as_indexes(data))
best("fresh map: planner find (all needles)", fresh_map(lambda m: finder.find(m, 0, len(m))))
from xladoctor.catalogue import fastscan
def regions(m):
    for _ in fastscan.iter_regions(m, 0, len(m), finder):
        pass
best("fresh map: iter_regions (the planner, releasing every 8 MB)", fresh_map(regions))
kept = fastscan.release
fastscan.release = lambda data, a, b: None
best("fresh map: iter_regions, no release", fresh_map(regions))
fastscan.release = kept
best("scan_path (one process, the whole scan)", lambda: fastscan.scan_path(path, parallel=False))
print(repr(out))
"""


def _timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, the child's CPU seconds and its minor faults (``wait4``'s rusage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_minflt


def _machine() -> dict[str, object]:
    info: dict[str, object] = {"version": sys.version.split()[0], "platform": platform.platform(),
                               "nproc": os.cpu_count(), "page": mmap.PAGESIZE}
    try:
        text = Path("/proc/cpuinfo").read_text()
        model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("model name")), "?")
        flags = next((ln.split(":", 1)[1].split() for ln in text.splitlines() if ln.startswith("flags")), [])
        info["cpu"] = model
        info["simd"] = [f for f in ("sse2", "ssse3", "sse4_2", "avx", "avx2", "avx512f", "avx512bw") if f in flags]
        info["hypervisor"] = "hypervisor" in flags
    except OSError:
        pass
    import site
    info["site .pth files"] = sorted(str(p) for d in site.getsitepackages() for p in Path(d).glob("*.pth"))
    info["python"] = sys.executable
    for knob in ("/sys/kernel/mm/transparent_hugepage/enabled", "/proc/sys/vm/overcommit_memory"):
        try:
            info[knob] = Path(knob).read_text().strip()
        except OSError:
            pass
    return info


def _processes(log: Path, anchors: Path, repeat: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Best wall, best CPU, faults of the best-CPU run, for each whole process, interleaved round by round."""
    py = sys.executable
    small, head = log.with_name("small.log"), log.with_name("head.log")
    small.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    with open(log, "rb") as f:
        head.write_bytes(f.read(2 << 20))
    cmds = {"python -c pass": [py, "-c", "pass"], "python -S -c pass (no site)": [py, "-S", "-c", "pass"],
            "python -I -c pass (isolated)": [py, "-I", "-c", "pass"],
            "python -c 'import ahocorasick_rs'": [py, "-c", "import ahocorasick_rs"],
            "xladoctor --version": [py, "-m", "xladoctor", "--version"],
            "xladoctor explain LOG --json": [py, "-m", "xladoctor", "explain", str(log), "--json"],
            "xladoctor explain 2-line LOG --json": [py, "-m", "xladoctor", "explain", str(small), "--json"],
            "xladoctor explain 2 MB clean head of LOG --json": [py, "-m", "xladoctor", "explain", str(head), "--json"]}
    rg = shutil.which("rg")
    if rg:
        for tag, extra in (("", []), (" --mmap", ["--mmap"]), (" --no-mmap", ["--no-mmap"]), (" -j1", ["-j1"])):
            cmds[f"rg -c -F -f anchors{tag}"] = [rg, "-c", "-F", "-f", str(anchors), *extra, str(log)]
    if rg:
        cmds["rg --version"] = [rg, "--version"]
    runs: dict[str, list[tuple[float, float, int]]] = {k: [] for k in cmds}
    for _ in range(repeat):
        for name, argv in cmds.items():
            runs[name].append(_timed(argv, env))
    out = {}
    for name, got in runs.items():
        best_cpu = min(got, key=lambda r: r[1])
        out[name] = [min(r[0] for r in got), best_cpu[1], best_cpu[2]]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kinds", default="clean,sparse")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (str(SRC), os.environ.get("PYTHONPATH")))))
    sys.path.insert(0, str(SRC))
    from xladoctor.catalogue.scanner import LogScanner
    result: dict[str, object] = {"machine": _machine()}
    with tempfile.TemporaryDirectory() as tmp:
        anchors = Path(tmp) / "anchors.txt"
        anchors.write_text("\n".join(LogScanner().anchors) + "\n")
        for kind in args.kinds.split(","):
            log = Path(tmp) / f"{kind}.log"
            subprocess.run([sys.executable, str(HERE / "bench_all.py"), "--make-log", kind, str(log), str(args.mb)],
                           check=True, env=env)
            with open(log, "rb") as f:  # into the page cache
                while f.read(1 << 24):
                    pass
            phases = subprocess.run([sys.executable, "-c", PHASES, str(log), str(args.repeat)], env=env,
                                    capture_output=True, text=True, check=True).stdout
            result[kind] = {"bytes": log.stat().st_size, "phases_s": ast.literal_eval(phases),
                            "processes_wall_cpu_minflt": _processes(log, anchors, args.repeat, env)}
            log.unlink()
    text = json.dumps(result, indent=1)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
