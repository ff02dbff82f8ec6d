"""One line per module: a digest of the offload pipeline's every step, to show a change to the passes changes nothing.

    python bench/pass_states.py > after.txt                  # this tree
    python /tmp/base/bench/pass_states.py > before.txt       # the base (git archive BASE src bench tests)
    diff before.txt after.txt                                # nothing: the same run, pass for pass

    python bench/pass_states.py --extra DIR ...              # and every *.txt / *.hlo under DIR (jax dumps)

For each module of the corpus (tests/hlo_corpus.py's, ``--generated`` offload_gen.py modules from
seeds 0..N-1, the ``--extra`` files) and each pipeline (TPU, GPU, scheduled), with the whole
private copy and with the lean one (dead steps left out): the MD5 of the module printed after
every pass with every instruction's users in order, each pass' ``changed``, the dead code removed
and the result; then the digest of ``analyze_host_offload``'s result.  A module the parser refuses
prints ``parse`` and its error's class.  ``compare_outputs.py`` compares what the commands print;
this compares every step between (issue 36: the passes made cheaper per instruction, h44t).
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "bench")]

from offload_gen import build_hlo, hlo_spec  # noqa: E402

from hlo_corpus import CORPUS  # noqa: E402
from xladoctor.ir.module import HloModule  # noqa: E402
from xladoctor.offload import analyze_host_offload  # noqa: E402
from xladoctor.offload.analysis import lean_copy, private_copy  # noqa: E402
from xladoctor.offload.passes.host_offloader import OffloadOptions  # noqa: E402
from xladoctor.offload.pipeline import PipelineConfig, offload_pipeline  # noqa: E402
from xladoctor.syntax.hlo_parser import parse_module  # noqa: E402
from xladoctor.syntax.hlo_printer import print_module  # noqa: E402

CONFIGS = [PipelineConfig(True, True, OffloadOptions("shipped"), "tpu"),
           PipelineConfig(True, True, OffloadOptions("shipped"), "cuda"),
           PipelineConfig(False, True, OffloadOptions("shipped"), "tpu")]


def _state(module: HloModule) -> str:
    users = "\n".join(f"{i.name}: {[u.name for u in i.users]}" for c in module.computations for i in c.instructions)
    return f"{print_module(module)}\n{users}"


def _run(module: HloModule, config: PipelineConfig, lean: bool) -> str:
    if lean:
        copy, left_out, steps = lean_copy(module, config)
    else:
        (copy, left_out), steps = private_copy(module, config), None
    digest = hashlib.md5()
    pipeline = offload_pipeline(config, module, left_out, dead_steps=steps,
                                after_each=lambda p, m: digest.update(f"{p.name}\n{_state(m)}".encode()))
    pipeline.run(copy)
    digest.update(repr(pipeline.changed).encode())
    digest.update(repr([i.name for i in pipeline.context.dead]).encode())
    digest.update(repr(pipeline.context.result).encode())
    return digest.hexdigest()


def _outcome(run, *args) -> str:
    try:
        return str(run(*args))
    except Exception as e:  # an input the pipeline refuses: the same refusal either way
        return f"{type(e).__name__}: {e}"


def _result(module: HloModule) -> str:
    return hashlib.md5(repr(analyze_host_offload(module)).encode()).hexdigest()


def module_line(label: str, text: str) -> str | None:
    """The module's line, or None for one without an entry (nothing to analyse)."""
    try:
        module = parse_module(text, label)
    except Exception as e:
        return f"{label} parse {type(e).__name__}"
    if module.entry is None or module.entry_computation_layout is None:
        return None
    runs = [_outcome(_run, module, config, lean) for config in CONFIGS for lean in (False, True)]
    runs.append(_outcome(_result, module))
    return f"{label} {' '.join(runs)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generated", type=int, default=120, help="offload_gen.py modules, seeds 0..N-1")
    ap.add_argument("--extra", type=Path, nargs="*", default=[], help="directories of more modules (*.txt, *.hlo)")
    args = ap.parse_args()
    texts = [(p.name, p.read_text()) for p in CORPUS]
    texts += [(f"gen{seed}", build_hlo(hlo_spec(random.Random(seed)))) for seed in range(args.generated)]
    for directory in args.extra:
        texts += [(str(p), p.read_text()) for p in sorted([*directory.rglob("*.txt"), *directory.rglob("*.hlo")])]
    for label, text in texts:
        line = module_line(label, text)
        if line is not None:
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
