"""Dump ``offload --json`` and ``check --json`` of every corpus module, to show a refactor changes no output.

    python bench/compare_outputs.py dump OUT_DIR     # one file per module and command
    python bench/compare_outputs.py diff A_DIR B_DIR # exit 1 and name each module whose output differs

The corpus is tests/hlo_corpus.py's (bundled examples, tests/data/offload) plus 200 modules
bench/offload_gen.py builds from seeds 0..199, plus bench/ir_shapes.py's shapes at small sizes,
plus the modules the fuzzer found to break a build (tests/data/fuzz_found).  User order decides which walk XLA reports
first, so an IR change that reorders users shows up here as a changed verdict or message.
The CLI runs in-process (its exit code is kept with the output): 2 cores, 300-odd modules.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]


def _run(argv: list[str]) -> str:
    from xladoctor.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    return f"rc={rc}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"


def _shape_modules(out: Path) -> list[Path]:
    """bench/ir_shapes.py's shapes at sizes the code before issue 20 still answered in seconds."""
    sys.path.insert(0, str(ROOT / "bench"))
    from ir_shapes import SHAPES
    paths = []
    for kind, n in (("wide_root", 300), ("fan_out", 300), ("deep_calls", 9), ("diamond_calls", 8),
                    ("wide_params", 500)):
        p = out / f"{kind}_{n}.hlo"
        p.write_text(SHAPES[kind](n))
        paths.append(p)
    return paths


def dump(out: Path, generated: int = 200) -> None:
    from hlo_corpus import CORPUS, generated_hlo
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [(p.parent.name, p) for p in CORPUS] + [("gen", p) for p in generated_hlo(Path(tmp), generated)]
        paths += [("shape", p) for p in _shape_modules(Path(tmp))]
        paths += [("fuzz", p) for p in sorted((ROOT / "tests" / "data" / "fuzz_found").glob("*.hlo"))]
        for where, p in paths:
            for cmd in ("offload", "check"):
                text = _run([cmd, str(p), "--json"]).replace(str(p.parent), "DIR")
                (out / f"{where}__{p.name}.{cmd}.txt").write_text(text)


def diff(a: Path, b: Path) -> int:
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    bad = [n for n in names if not (a / n).exists() or not (b / n).exists()
           or (a / n).read_bytes() != (b / n).read_bytes()]
    for n in bad[:20]:
        print(f"differs: {n}")
    print(f"{len(names) - len(bad)} of {len(names)} outputs byte-identical")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"]:
        dump(Path(sys.argv[2]))
        raise SystemExit(0)
    raise SystemExit(diff(Path(sys.argv[2]), Path(sys.argv[3])))
