"""Every speed goal of issue 12 in one run and one table: ours, the reference, the ratio, peak memory.

    python bench/bench_all.py                 # 10k and 100k instructions, a 200 MB log (~3-5 min)
    python bench/bench_all.py --big           # adds the 1M-instruction rows (several more minutes)
    python bench/bench_all.py --log-mb 1000   # a bigger log

Each measurement runs in a fresh child process, so its peak RSS (``ru_maxrss``, from
``wait4``; for commands that start workers, the largest process) is its own.  Rows:

* ``parse``: :func:`parse_module` vs jaxlib's ``hlo_module_from_text`` on the same
  text (``bench_parse.synthetic_module``, a compiled-TPU-style module).
* ``offload``: parse + host-offload analysis (``bench_offload.generate``: offload paths
  every 50 instructions; ``jax_entry`` and ``calls``: ``real_modules.py``) vs jaxlib's parse of
  the same text, through the pipeline steps ``xladoctor offload FILE`` runs (``parse_hlo`` and
  ``analyse_module``: the analysis, later failures, fixes, provenance; since 2026-12-03).
* ``check, nothing to do``: ``check`` on a module without host-offload tokens (the
  ``synthetic_module`` text with ``is_scheduled`` removed, so only the triage decides),
  in-process, vs jaxlib's parse; goal ≤ 0.3x.
* ``startup``: whole-process start-up of ``--version``, ``shape``, ``explain CODE`` and ``explain``/
  ``check`` of a two-line log vs ``python -c pass``, interleaved, medians of at least 15 runs; the
  ratio is of CPU time (issue 36: ``--version`` and ``shape`` <= 2x).
* ``log scan``: ``explain LOG --json`` and ``check LOG --json`` as whole processes on a
  generated TPU log (``bench_explain.generate``; dense, sparse, and clean: no anchor word at all),
  vs ``rg -c -F -f`` of the catalogue's anchor words (where ``rg`` is installed), ``rg -c`` and
  ``grep -c`` of the error URL, interleaved; GB/s from page cache (the log is read once first);
  ours/ref is against ``rg`` with the anchor set, wall and CPU (issue 36: at least as fast as ``rg``).
* ``check DIR``: a directory of modules and logs with ``--jobs 1`` vs one job per core.
* shapes (``--only shapes``, ``ir_shapes.py``): parse + analysis on the shapes issue 20 found
  quadratic or worse -- wide roots behind ``Sharding`` markers, one host tensor's fan-out, deep and
  diamond call graphs (sized by the instructions they inline to), a one-line module of 200,000
  parameters -- at three sizes each, with the scaling exponent from the smallest to the largest
  (goal <= 1.1), and the refusal of a call graph past the inlining bound; ``fan_return`` (issue
  36: one host tensor returned N times, every output an E1200) times all of ``offload --json``,
  findings and fix edits included (``--shapes fan_return`` runs that row alone).

Timings are best of ``--repeat``; ratios from the same run are what to compare.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path[:0] = [str(SRC), str(HERE)]


# -- child side ------------------------------------------------------------------------------

def _module_text(kind: str, n: int) -> str:
    from ir_shapes import SHAPES
    if kind in SHAPES:
        return SHAPES[kind](n)
    if kind in ("jax_entry", "calls"):
        from real_modules import module
        return module(kind, n)
    if kind in TRAIN_STEPS:  # one size: the model's (bench/train_step.py)
        from train_step import _model
        return _model()(kind == "train_scanned")
    if kind == "offload":
        from bench_offload import generate
        return generate(n, 50)[0]
    from bench_parse import synthetic_module
    text = synthetic_module(n)[0]
    return text.replace(", is_scheduled=true", "", 1) if kind == "check" else text


_CPU: list[float] = []
"""The best CPU seconds of the last :func:`_best` (the shape rows report those: on a shared
machine wall time measures the neighbours)."""


def _best(fn, repeat: int) -> float:
    best = cpu = float("inf")
    console = os.environ.get("XLADOCTOR_BENCH_HEAP") == "console"
    if console:  # the heap as the console script holds it (base/collector.own_heap): pauses end frozen
        from xladoctor.base.collector import collect, own_heap
        own_heap()
    for _ in range(repeat):
        collect() if console else gc.collect()  # console: the last call's frozen module freed too
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
        del result
    _CPU[:] = [cpu]
    return best


def child(what: str, kind: str, n: int, repeat: int) -> dict:
    if what == "jaxlib":
        from jaxlib import _hlo
    else:
        import xladoctor.cli.commands.check  # noqa: F401  (imports are not the module's memory)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if what == "ours" and kind == "check":
        return _check_child(n, repeat, base)
    text = Path(os.environ["XLADOCTOR_BENCH_MODULE"]).read_text()
    if what == "jaxlib":
        from jaxlib import _hlo
        seconds = _best(lambda: _hlo.hlo_module_from_text(text), repeat)
    elif kind == "parse":
        from xladoctor.syntax.hlo_parser import parse_module
        seconds = _best(lambda: parse_module(text), repeat)
    elif kind in ("jax_entry", "calls", "offload", *TRAIN_STEPS):  # the steps `xladoctor offload FILE` runs
        from xladoctor.route.module_analysis import analyse_module, parse_hlo
        src = os.environ["XLADOCTOR_BENCH_MODULE"]
        seconds = _best(lambda: analyse_module(parse_hlo(text, src), text, src), repeat)
    elif kind == "fan_return":  # every output a finding: what `xladoctor offload FILE --json` prints
        seconds = _best(lambda: _offload_json(os.environ["XLADOCTOR_BENCH_MODULE"]), repeat)
    else:  # the shapes of ir_shapes.py
        from xladoctor.offload import analyze_host_offload
        from xladoctor.syntax.hlo_parser import parse_module
        seconds = _best(lambda: analyze_host_offload(parse_module(text)), repeat)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {"seconds": seconds, "cpu_seconds": _CPU[0], "peak_mib": peak / 1024, "extra_mib": (peak - base) / 1024,
           "text_mb": len(text.encode()) / 1e6}
    if what == "ours" and kind.endswith("_calls"):
        out["inlined"] = _inlined_size(text)
    return out


def _offload_json(path: str) -> int:
    """``xladoctor offload PATH --json`` in this process (parse, analysis, findings with their fix
    edits, the document written out); the bytes it printed."""
    import contextlib
    import io

    from xladoctor.cli.main import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["offload", path, "--json"])
    return len(out.getvalue())


def _inlined_size(text: str) -> int:
    """Instructions the module has once every call is inlined (what the call-graph rows scale with)."""
    from xladoctor.ir.opcodes import HloOpcode
    from xladoctor.offload.passes.call_inliner import computation_post_order
    from xladoctor.syntax.hlo_parser import parse_module
    module = parse_module(text)
    size: dict = {}
    for comp in computation_post_order(module):
        size[comp] = sum(size[i.called_computations[0]] - len(i.called_computations[0].parameters)
                         if i.opcode is HloOpcode.CALL else 1 for i in comp.instructions)
    return size[module.entry]


def _check_child(n: int, repeat: int, base: int) -> dict:
    """``check`` on the module as a file, the way the CLI reads it (the text is written by another process,
    so this one's peak memory is only what checking costs)."""
    from xladoctor.route.dispatch import check_path
    from xladoctor.route.options import Options
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.before_optimizations.txt")
        subprocess.run([sys.executable, __file__, "--make-module", "check", str(n), path], check=True)
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        opts = Options()
        seconds = _best(lambda: check_path(path, True, opts), repeat)
        from xladoctor.findings.details import TriagedModule

        assert isinstance(check_path(path, True, opts).details, TriagedModule)  # not parsed
        size = os.path.getsize(path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "cpu_seconds": _CPU[0], "peak_mib": peak / 1024, "extra_mib": (peak - base) / 1024,
            "text_mb": size / 1e6}


# -- parent side -----------------------------------------------------------------------------

def _run_child(what: str, kind: str, n: int, repeat: int, module: str = "") -> dict:
    env = dict(os.environ, XLADOCTOR_BENCH_MODULE=module)
    out = subprocess.run([sys.executable, __file__, "--child", what, kind, str(n), str(repeat)],
                         capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _timed(argv: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (with reaped workers), peak RSS MiB (largest process) of one command;
    ``env`` (another tree's PYTHONPATH) where given, else this tree's src first.

    Output goes to a real file: GNU grep stops at the first match when stdout is /dev/null.
    """
    if env is None:
        env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _best_cmd(argv: list[str], repeat: int) -> tuple[float, float, float]:
    """Best wall, best CPU, largest peak RSS over ``repeat`` runs."""
    runs = [_timed(argv) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


ROWS: list[tuple[str, ...]] = []


def row(*cells) -> None:
    ROWS.append(tuple(str(c) for c in cells))
    print(" | ".join(ROWS[-1]), file=sys.stderr, flush=True)


TRAIN_STEPS = ("train_scanned", "train_unrolled")
"""The real train step of bench/train_step.py, lowered for TPU, scanned and unrolled (issue 36)."""

MODULE_ROWS = (("parse", "parse (compiled-TPU-style)"),
               ("train_scanned", "offload = parse + analysis (8-layer train step, scanned)"),
               ("train_unrolled", "offload = parse + analysis (8-layer train step, unrolled)"),
               ("jax_entry", "offload = parse + analysis (real jax ENTRY, repeated)"),
               ("calls", "offload = parse + analysis (rng_fft calls, repeated)"),
               ("offload", "offload = parse + analysis (offload paths every 50)"),
               ("check", "check, nothing to do"))


def module_rows(sizes: list[int], repeat: int, has_jaxlib: bool, kinds: list[str], tmp: Path) -> None:
    for kind, label in MODULE_ROWS:
        if kind not in kinds:
            continue
        for n in ([0] if kind in TRAIN_STEPS else sizes):
            r = 1 if n >= 1_000_000 else repeat
            path = tmp / f"{kind}-{n}.hlo"
            if kind != "check":  # written by another process: jax's memory is not the children's
                subprocess.run([sys.executable, __file__, "--make-module", kind, str(n), str(path)], check=True)
            ours = _run_child("ours", kind, n, r, str(path))
            ref = _run_child("jaxlib", kind, n, r, str(path)) if has_jaxlib and kind != "check" else None
            if kind == "check" and has_jaxlib:
                subprocess.run([sys.executable, __file__, "--make-module", kind, str(n), str(path)], check=True)
                ref = _run_child("jaxlib", kind, n, r, str(path))
            # CPU seconds decide the ratio: on the shared 2-core machine wall time measures the neighbours.
            ratio = f"{ours['cpu_seconds'] / ref['cpu_seconds']:.2f}x" if ref else "-"
            size = f"{n:,} instr" if n else f"{_instructions(path):,} instr"
            row(label, f"{size} ({ours['text_mb']:.1f} MB)", f"{ours['cpu_seconds']:.3f} CPU-s ({ours['seconds']:.3f} s wall)",
                f"{ref['cpu_seconds']:.3f} CPU-s (jaxlib parse)" if ref else "-", ratio,
                f"{ours['peak_mib']:.0f} MiB", f"{ours['extra_mib'] / ours['text_mb']:.1f}x")
            path.unlink(missing_ok=True)


def _instructions(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if " = " in line and not line.startswith("HloModule"))


# The shapes that were quadratic or worse before issue 20 (bench/ir_shapes.py), the sizes each
# row is measured at, and what "n" counts; the exponent is fitted between the first and last size.
SHAPE_ROWS = (("wide_root", "offload: N entry outputs behind Sharding markers", (1_000, 10_000, 100_000), "outputs"),
              ("fan_out", "offload: one host tensor with N returned users", (1_000, 10_000, 100_000), "users"),
              ("fan_return", "offload --json: one host tensor returned N times, each an E1200",
               (250, 500, 1_000, 2_000), "outputs"),
              ("deep_calls", "offload: L computations each calling the next twice", (10, 13, 16), "inlined"),
              ("diamond_calls", "offload: L levels of two computations calling both below", (8, 11, 14), "inlined"),
              ("wide_params", "offload: one-line module with N parameters", (2_000, 20_000, 200_000), "params"))


def shape_rows(repeat: int, has_jaxlib: bool, tmp: Path, shapes: list[str] | None = None) -> None:
    """Parse + analysis on each shape at growing sizes (CPU seconds), jaxlib's parse beside it, and the
    scaling exponent log(t2/t1) / log(n2/n1) from the smallest to the largest size (goal <= 1.1;
    for the call graphs n is the inlined instruction count, which doubles per level)."""
    import math
    for kind, label, sizes, unit in SHAPE_ROWS:
        if shapes and kind not in shapes:
            continue
        points = []
        for n in sizes:
            path = tmp / f"{kind}-{n}.hlo"
            subprocess.run([sys.executable, __file__, "--make-module", kind, str(n), str(path)], check=True)
            ours = _run_child("ours", kind, n, repeat, str(path))
            ref = _run_child("jaxlib", kind, n, repeat, str(path)) if has_jaxlib else None
            count = ours.get("inlined", n)
            points.append((count, ours["cpu_seconds"]))
            size = f"{n:,} {unit}" if unit != "inlined" else f"L={n} ({count:,} instr inlined)"
            row(label, f"{size} ({ours['text_mb'] * 1000:.0f} kB)", f"{ours['cpu_seconds']:.3f} CPU-s",
                f"{ref['cpu_seconds']:.3f} CPU-s (jaxlib parse)" if ref else "-",
                f"{ours['cpu_seconds'] / ref['cpu_seconds']:.1f}x" if ref else "-", f"{ours['peak_mib']:.0f} MiB",
                f"{ours['extra_mib'] / ours['text_mb']:.1f}x")
            path.unlink(missing_ok=True)
        (n1, t1), (n2, t2) = points[0], points[-1]
        row(f"{kind}: scaling exponent", f"{n1:,} -> {n2:,}", f"{math.log(t2 / t1) / math.log(n2 / n1):.2f}",
            "goal <= 1.1", "-", "-", "-")
    if shapes and "deep_calls" not in shapes:
        return
    path = tmp / "deep_calls-20.hlo"
    subprocess.run([sys.executable, __file__, "--make-module", "deep_calls", "20", str(path)], check=True)
    argv = [sys.executable, "-m", "xladoctor", "offload", str(path)]
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rc = subprocess.run(argv, capture_output=True, env=env).returncode
    wall, _, mem = _best_cmd(argv, repeat)
    row("offload: 20 computations each calling the next twice", "3 kB (2M instr if inlined)",
        f"refused (exit {rc}) in {wall * 1000:.0f} ms wall", "-", "-", f"{mem:.0f} MiB", "-")


STARTUP = (("startup --version", ["--version"]),
           ("startup shape", ["shape", "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"]),
           ("startup explain CODE", ["explain", "E1200"]),
           ("startup explain LOG (2 lines)", ["explain", "{log}", "--json"]),
           ("startup check LOG (2 lines)", ["check", "{log}", "--json"]))


def startup_rows(repeat: int, tmp: Path) -> None:
    """Whole-process start-up of each command beside ``python -c pass``, interleaved run by run (a
    neighbour's load hits all alike), from a folder with no pyproject.toml above it; the ratio is
    of median CPU seconds (wall time on a shared machine measures the neighbours)."""
    import statistics
    log = tmp / "small.log"
    log.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    argvs = [[sys.executable, "-c", "pass"]] + [[sys.executable, "-m", "xladoctor", *(a.replace("{log}", str(log)) for a in args)]
                                                for _, args in STARTUP]
    runs: list[list[tuple[float, float, float]]] = [[] for _ in argvs]
    for _ in range(repeat):
        for i, argv in enumerate(argvs):
            runs[i].append(_timed(argv, cwd=str(tmp)))
    bare_wall = statistics.median(r[0] for r in runs[0])
    bare_cpu = statistics.median(r[1] for r in runs[0])
    for (label, _), got in zip(STARTUP, runs[1:]):
        wall, cpu = statistics.median(r[0] for r in got), statistics.median(r[1] for r in got)
        row(label, "-", f"{wall * 1000:.0f} ms wall, {cpu * 1000:.1f} ms CPU (medians of {repeat})",
            f"{bare_wall * 1000:.0f} ms wall, {bare_cpu * 1000:.1f} ms CPU (python -c pass)",
            f"{cpu / bare_cpu:.2f}x CPU", f"{max(r[2] for r in got):.0f} MiB", "-")


def _sparse_log(path: Path, mb: int) -> int:
    """Noise with one coded E1200 every ~50 MB (production logs are mostly not errors)."""
    from bench_explain import ERRORS, generate
    generate(path, mb)
    data = path.read_bytes()
    cut = [i for i in range(0, len(data), 50_000_000)]
    with open(path, "wb") as f:
        for a in cut:
            piece = data[a:a + 50_000_000]
            piece = b"".join(line for line in piece.splitlines(keepends=True)
                             if b"openxla" not in line and b"INVALID_ARGUMENT" not in line and b"halted" not in line
                             and b"Ran out" not in line and b"trace leading" not in line and b"{Instr:" not in line)
            f.write(piece)
            f.write(ERRORS[1].format(r=0).encode())
    return path.stat().st_size


ANCHOR = "openxla.org/xla/errors/error_"


def _clean_log(path: Path, mb: int) -> int:
    """The sparse log without a line that holds any anchor word: nothing to decode or scan, the
    common case of a healthy job's log."""
    from xladoctor.catalogue.scanner import LogScanner
    anchor = re.compile(b"|".join(re.escape(a.encode()) for a in LogScanner().anchors))
    _sparse_log(path, mb)
    data = path.read_bytes()
    with open(path, "wb") as f:
        f.write(b"".join(line for line in data.splitlines(keepends=True) if not anchor.search(line)))
    return path.stat().st_size


def log_rows(tmp: Path, mb: int, repeat: int, other_src: list[Path] | None = None) -> None:
    """``explain LOG`` and ``check LOG`` as whole processes, beside ``rg -c`` of the catalogue's anchor
    words (``-F -f``: the set the scan looks for, one automaton pass), ``rg -c`` and ``grep -c`` of the
    error URL, on the same file, runs interleaved round by round (``rg`` where it is installed; the
    row says when it is not).  ``other_src``: the same commands from other trees, in the same rounds."""
    from xladoctor.catalogue.scanner import LogScanner
    anchors = tmp / "anchors.txt"
    anchors.write_text("\n".join(LogScanner().anchors) + "\n")
    rg, grep = shutil.which("rg"), shutil.which("grep")
    references = ([("rg -c -F -f anchors", [rg, "-c", "-F", "-f", str(anchors)]),
                   ("rg -n -F -f anchors", [rg, "-n", "-F", "-f", str(anchors)]), ("rg -c URL", [rg, "-c", ANCHOR])]
                  if rg else []) + ([("grep -c URL", [grep, "-c", ANCHOR])] if grep else [])
    # Another tree's src first, then this process' path (where the core's dependencies may be installed).
    trees = [("", None)] + [(f" [{src.parent.name}]", dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, (str(src), os.environ.get("PYTHONPATH")))))) for src in other_src or []]
    for kind in ("dense", "sparse", "clean"):
        log = tmp / f"{kind}.log"
        # Written by a child: this process stays small, so the children it forks start small (ru_maxrss).
        subprocess.run([sys.executable, __file__, "--make-log", kind, str(log), str(mb)], check=True)
        size = log.stat().st_size
        with open(log, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
        ours = [(f"log scan ({kind}): {cmd}{tag}", [sys.executable, "-m", "xladoctor", cmd, str(log), "--json"], env)
                for tag, env in trees for cmd in ("explain", "check")]
        cmds = [(name, [*argv, str(log)], None) for name, argv in references] + ours
        runs: list[list[tuple[float, float, float]]] = [[] for _ in cmds]
        for _ in range(repeat):  # interleaved: a neighbour's load in one round hits every command alike
            for i, (_, argv, env) in enumerate(cmds):
                runs[i].append(_timed(argv, env=env))
        best = [(min(r[0] for r in rs), min(r[1] for r in rs), max(r[2] for r in rs)) for rs in runs]
        refs = dict(zip([name for name, _ in references], best))
        ref_text = "; ".join(f"{name} {size / 1e9 / r[0]:.2f} GB/s ({r[0]:.3f} s, {r[1]:.3f} CPU-s)"
                             for name, r in refs.items()) + ("" if rg else "; rg not installed")
        ref, ref_n = refs.get("rg -c -F -f anchors"), refs.get("rg -n -F -f anchors")
        for (label, _, _), (wall, cpu, mem) in zip(ours, best[len(references):]):
            row(label, f"{size / 1e6:.0f} MB", f"{size / 1e9 / wall:.2f} GB/s wall, {size / 1e9 / cpu:.3f} GB/s "
                f"per CPU-s ({wall:.3f} s, {cpu:.3f} CPU-s)", ref_text or "-",
                f"{wall / ref[0]:.2f}x wall, {cpu / ref[1]:.2f}x CPU (x rg -n: {cpu / ref_n[1]:.2f}x CPU)"
                if ref and ref_n else "-", f"{mem:.0f} MiB",
                f"{mem * 1.048576 / (size / 1e6):.2f}x")
        log.unlink()


def dir_rows(tmp: Path, repeat: int) -> None:
    from bench_parse import synthetic_module
    d = tmp / "dump"
    d.mkdir()
    text = synthetic_module(20_000)[0]
    offload = _module_text("offload", 20_000)
    for i in range(12):
        (d / f"module_{i:02d}.before_optimizations.txt").write_text(offload if i % 3 == 0 else
                                                                    text.replace(", is_scheduled=true", "", 1))
        (d / f"module_{i:02d}.after_optimizations.txt").write_text(text)
    for i in range(4):
        subprocess.run([sys.executable, __file__, "--make-log", "dense", str(d / f"host{i}.log"), "20"], check=True)
    files = len(list(d.iterdir()))
    serial = _best_cmd([sys.executable, "-m", "xladoctor", "check", str(d), "--jobs", "1", "--json"], repeat)
    par = _best_cmd([sys.executable, "-m", "xladoctor", "check", str(d), "--json"], repeat)
    row("check DIR", f"{files} files ({sum(p.stat().st_size for p in d.iterdir()) / 1e6:.0f} MB)",
        f"{par[0]:.2f} s, {par[1]:.2f} CPU-s (all cores)", f"{serial[0]:.2f} s, {serial[1]:.2f} CPU-s (--jobs 1)",
        f"{par[0] / serial[0]:.2f}x", f"{par[2]:.0f} MiB", "-")


def machine() -> str:
    cpu = "?"
    try:
        cpu = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text()).group(1)
    except (OSError, AttributeError):
        pass
    v = subprocess.run([sys.executable, "-c", "import jaxlib; print(jaxlib.__version__)"], capture_output=True,
                       text=True).stdout.strip()
    jl = f", jaxlib {v}" if v else ""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"{cores} cores ({cpu}), Python {platform.python_version()}{jl}, {platform.system()} "
            f"{platform.release()}, load average at the end {load}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big", action="store_true", help="add the 1M-instruction rows")
    ap.add_argument("--log-mb", type=int, default=500)
    ap.add_argument("--log-src", type=Path, action="append",
                    help="another tree's src: its explain/check log rows too, in the same rounds (before/after)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=("modules", "shapes", "startup", "logs", "dirs"), nargs="*")
    ap.add_argument("--sizes", type=int, nargs="*", help="module sizes in instructions (default 10k 100k)")
    ap.add_argument("--kinds", nargs="*", choices=[k for k, _ in MODULE_ROWS],
                    default=["parse", "jax_entry", "calls", "check"], help="which module rows")
    ap.add_argument("--shapes", nargs="*", choices=[k for k, *_ in SHAPE_ROWS], help="which shape rows (default all)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--make-log", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--make-module", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make_module:
        kind, n, path = args.make_module
        Path(path).write_text(_module_text(kind, int(n)))
        return 0
    if args.make_log:
        from bench_explain import generate
        kind, path, mb = args.make_log
        {"dense": generate, "sparse": _sparse_log, "clean": _clean_log}[kind](Path(path), int(mb))
        return 0
    if args.child:
        what, kind, n, repeat = args.child
        print(json.dumps(child(what, kind, int(n), int(repeat))))
        return 0
    # Asked in a child: importing jaxlib here would inflate every later child's RSS (fork copies it).
    has_jaxlib = subprocess.run([sys.executable, "-c", "import jaxlib._hlo"], capture_output=True).returncode == 0
    only = set(args.only or ("modules", "shapes", "startup", "logs", "dirs"))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory(prefix="xladoctor-bench-") as tmp:
        if "startup" in only:
            startup_rows(max(15, args.repeat), Path(tmp))
        if "modules" in only:
            sizes = args.sizes or [10_000, 100_000]
            module_rows(sizes + ([1_000_000] if args.big else []), args.repeat, has_jaxlib, args.kinds, Path(tmp))
        if "shapes" in only:
            shape_rows(args.repeat, has_jaxlib, Path(tmp), args.shapes)
        if "logs" in only:
            log_rows(Path(tmp), args.log_mb, args.repeat, args.log_src)
        if "dirs" in only:
            dir_rows(Path(tmp), args.repeat)
    head = ("what", "size", "ours", "reference", "ours/ref", "peak RSS", "memory/text")
    print(f"bench_all.py, {started}, {machine()}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
