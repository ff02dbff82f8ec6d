"""Per-pass CPU time of the offload analysis on one module (issue 36): where the analysis goes.

    .venv/bin/python bench/pass_profile.py FILE.hlo [FILE.hlo ...] [--repeat 20]

For each file, ``--repeat`` times, in this one process, on a freshly parsed module each time: the
private copy (:func:`xladoctor.offload.analysis.lean_copy`) and each pass of the pipeline the
analysis runs (:func:`xladoctor.offload.pipeline.offload_pipeline`, timed between the pipeline's
``after_each`` calls: a pass the pipeline skips costs its check only), and the whole
``analyze_host_offload``.  Printed: the best CPU milliseconds of each step (a pass that runs twice
is listed twice, in order), and their sum.  The collector is paused as the analysis pauses it.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from xladoctor.base.collector import paused  # noqa: E402
from xladoctor.ir.module import HloModule  # noqa: E402
from xladoctor.offload import analyze_host_offload  # noqa: E402
from xladoctor.offload.analysis import lean_copy  # noqa: E402
from xladoctor.offload.passes.call_inliner import looks_pre_optimization  # noqa: E402
from xladoctor.offload.passes.host_offloader import OffloadOptions  # noqa: E402
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline  # noqa: E402
from xladoctor.syntax.hlo_parser import parse_module  # noqa: E402


def one_run(module: HloModule, config: PipelineConfig) -> list[tuple[str, float]]:
    """The copy's and each pass' CPU seconds, in the order they ran."""
    steps: list[tuple[str, float]] = []
    t0 = time.process_time()
    copy, left_out, dead_steps = lean_copy(module, config)
    mark = [time.process_time()]
    steps.append(("private copy", mark[0] - t0))

    def after(p, m) -> None:
        now = time.process_time()
        steps.append((p.name, now - mark[0]))
        mark[0] = now

    pipeline = offload_pipeline(config, module, left_out, dead_steps=dead_steps, after_each=after)
    mark[0] = time.process_time()
    pipeline.run(copy)
    return steps


def profile(path: Path, repeat: int) -> None:
    text = path.read_text()
    config = PipelineConfig(looks_pre_optimization(parse_module(text, str(path))), True, OffloadOptions("shipped"), "tpu")
    best: list[tuple[str, float]] | None = None
    whole = float("inf")
    with paused():
        for _ in range(repeat):
            # A freshly parsed module each time, as ``offload FILE`` has: what a run reads of the
            # input (attribute texts decoded on first use, say) is not already done by the last one.
            run = one_run(parse_module(text, str(path)), config)
            best = run if best is None else [(n, min(b, t)) for (n, b), (_, t) in zip(best, run)]
            module = parse_module(text, str(path))
            c0 = time.process_time()
            analyze_host_offload(module)
            whole = min(whole, time.process_time() - c0)
    assert best is not None
    print(f"{path.name}: best of {repeat}, CPU ms")
    for name, t in best:
        print(f"  {name:28s} {t * 1000:7.2f}")
    print(f"  {'sum of the steps':28s} {sum(t for _, t in best) * 1000:7.2f}")
    print(f"  {'analyze_host_offload':28s} {whole * 1000:7.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    for path in args.files:
        profile(path, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
