"""Extract the HLO module strings of XLA's own C++ tests into a parser corpus.

XLA's tests write their modules as C++ raw strings (``R"(...)"``, ``R"hlo(...)hlo"``,
any delimiter).  This script reads the test sources from a git mirror of
openxla/xla (``git --git-dir=MIRROR show COMMIT:PATH``; no work tree needed),
keeps every raw string that holds an HLO module (it names ``HloModule`` or has an
``ENTRY`` computation), and writes one text file per test source under
``tests/data/xla_tests/``: each module follows a marker line naming its source
file and the line where the raw string opens, so a failure in
``tests/test_xla_corpus.py`` points at XLA's own test.

Usage::

    python bench/extract_xla_tests.py --git-dir /work/.mirror/sfvaroglu+xla/repo

The strings are copied as written (placeholders such as ``$0`` of
``absl::Substitute`` included: jaxlib refuses those, and so must we).  XLA is
Apache-2.0; the corpus folder's README.md says where the files come from.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "xla_tests"
MARKER = "//~~ xla-test-module "  # + "path:line"; never in an HLO module of XLA's tests (checked)

# The test files read: the parser's own, the passes whose tests hold the most modules, and the
# host-offload passes xladoctor models (a path missing at the commit read is skipped).
FILES = (
    "xla/hlo/parser/hlo_parser_test.cc",
    "xla/hlo/transforms/simplifiers/algebraic_simplifier_test.cc",
    "xla/service/spmd/spmd_partitioner_test.cc",
    "xla/service/sharding_propagation_test.cc",
    "xla/service/hlo_verifier_test.cc",
    "xla/hlo/transforms/host_offloader_test.cc",
    "xla/hlo/transforms/host_offload_legalize_test.cc",
    "xla/hlo/transforms/host_offloading_prepare_test.cc",
    "xla/service/memory_space_assignment/memory_space_assignment_test.cc",
    "xla/hlo/ir/hlo_module_test.cc",
    "xla/service/while_loop_all_reduce_code_motion_test.cc",
    "xla/hlo/evaluator/hlo_evaluator_test.cc",
    "xla/service/copy_insertion_test.cc",
    "xla/hlo/transforms/simplifiers/dot_merger_test.cc",
    "xla/service/layout_assignment_test.cc",
    "xla/service/dynamic_padder_test.cc",
    "xla/service/latency_hiding_scheduler_test.cc",
    "xla/service/collective_pipeliner_test.cc",
    "xla/hlo/analysis/hlo_dataflow_analysis_test.cc",
    "xla/hlo/transforms/simplifiers/ar_crs_combiner_test.cc",
    "xla/service/hlo_module_test.cc",
    "xla/service/call_outliner_test.cc",
    "xla/hlo/analysis/while_loop_analysis_test.cc",
    "xla/service/legalize_scheduling_annotations_test.cc",
    "xla/service/buffer_assignment_test.cc",
    "xla/hlo/transforms/collectives/collective_quantizer_test.cc",
    "xla/service/collective_opt_utils_test.cc",
    "xla/service/layout_normalization_test.cc",
    "xla/service/while_loop_simplifier_test.cc",
    "xla/service/conditional_code_motion_test.cc",
    "xla/hlo/transforms/hlo_module_stitcher_test.cc",
    "xla/hlo/transforms/collectives/infeed_token_propagation_test.cc",
    "xla/service/while_loop_unroller_test.cc",
    "xla/service/call_inliner_test.cc",
    "xla/hlo/transforms/simplifiers/hlo_constant_folding_test.cc",
    "xla/service/hlo_module_dce_test.cc",
    "xla/service/hlo_instruction_test.cc",
    "xla/service/instruction_fusion_test.cc",
    "xla/hlo/transforms/collectives/async_collective_creator_test.cc",
    "xla/hlo/transforms/collectives/all_gather_combiner_test.cc",
    "xla/service/hlo_cost_analysis_test.cc",
    "xla/service/hlo_rematerialization_test.cc",
    "xla/hlo/transforms/simplifiers/hlo_dce_test.cc",
    "xla/hlo/transforms/simplifiers/tuple_simplifier_test.cc",
    "xla/hlo/transforms/simplifiers/reshape_mover_test.cc",
    "xla/hlo/transforms/simplifiers/simplify_fp_conversions_test.cc",
    "xla/hlo/transforms/simplifiers/zero_sized_hlo_elimination_test.cc",
    "xla/hlo/transforms/simplifiers/hlo_rematerialization_test.cc",
    "xla/hlo/transforms/expanders/while_loop_trip_count_annotator_test.cc",
    "xla/hlo/transforms/while_loop_trip_count_annotator_test.cc",
    "xla/service/scatter_simplifier_test.cc",
    "xla/service/gather_simplifier_test.cc",
    "xla/service/all_reduce_combiner_test.cc",
    "xla/service/reduce_scatter_combiner_test.cc",
    "xla/service/while_loop_invariant_code_motion_test.cc",
    "xla/service/conditional_simplifier_test.cc",
    "xla/service/sharding_remover_test.cc",
    "xla/service/spmd/collective_permute_motion_test.cc",
    "xla/service/hlo_schedule_test.cc",
    "xla/hlo/ir/hlo_sharding_test.cc",
    "xla/hlo/utils/hlo_sharding_util_test.cc",
    "xla/service/memory_space_propagation_test.cc",
    "xla/service/convert_memory_placement_to_internal_annotations_test.cc",
    "xla/hlo/transforms/convert_memory_placement_to_internal_annotations_test.cc",
    "xla/service/hlo_alias_analysis_test.cc",
    "xla/hlo/analysis/hlo_alias_analysis_test.cc",
    "xla/service/tuple_points_to_analysis_test.cc",
    "xla/hlo/analysis/tuple_points_to_analysis_test.cc",
)

# R"delim( ... )delim": the delimiter is up to 16 characters, no parentheses, backslash or space.
_RAW_OPEN = re.compile(r'R"([^()\\\s"]{0,16})\(')


def raw_strings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each C++ raw string literal in ``source``.

    Ordinary strings and comments are skipped so that an ``R"`` inside them is
    not taken for a literal (and the ``"`` of a raw string's body does not
    end anything)."""
    out = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "R" and (m := _RAW_OPEN.match(source, i)) and not (source[i - 1:i].isalnum() or
                                                                      source[i - 1:i] == "_"):
            close = ")" + m.group(1) + '"'
            end = source.find(close, m.end())
            if end < 0:
                break
            out.append((source.count("\n", 0, i) + 1, source[m.end():end]))
            i = end + len(close)
        elif c == '"' or (c == "'" and not source[i - 1:i].isalnum()):
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def is_hlo_module(text: str) -> bool:
    return "HloModule" in text or re.search(r"^\s*ENTRY\b", text, re.M) is not None


def extract(git_dir: str, commit: str) -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in FILES:
        proc = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            continue  # the file moved or went: the list is tried against the commit asked for
        modules = [(line, s) for line, s in raw_strings(proc.stdout) if is_hlo_module(s)]
        if modules:
            found[path] = modules
    return found


def write(found: dict[str, list[tuple[int, str]]], commit: str) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.hlo.txt"):
        old.unlink()
    total = 0
    for path, modules in found.items():
        parts = []
        for line, text in modules:
            if MARKER in text:
                raise SystemExit(f"{path}:{line}: holds the corpus marker; pick another")
            parts.append(f"{MARKER}{path}:{line}\n{text}\n")
        name = path.removeprefix("xla/").replace("/", "__").removesuffix(".cc") + ".hlo.txt"
        (OUT / name).write_text("".join(parts), encoding="utf-8")
        total += len(modules)
    (OUT / "COMMIT").write_text(commit + "\n")
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", required=True, help="a (bare) git clone of openxla/xla")
    ap.add_argument("--commit", default="HEAD")
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "--git-dir", args.git_dir, "rev-parse", args.commit],
                            capture_output=True, text=True, check=True).stdout.strip()
    found = extract(args.git_dir, commit)
    total = write(found, commit)
    print(f"{total} modules from {len(found)} files of openxla/xla {commit[:12]} -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
