"""Compare kept pre-pass pairs again, without the compiler: ``--keep-prepass DIR``'s files.

``bench/offload_campaign.py --compare-prepass --keep-prepass DIR`` writes each program's input
module (``NAME.input.hlo``) and libtpu's ``before_host-offload-legalize`` dump
(``NAME.dump.txt``).  This script runs our pre-passes on every input again and compares
(:mod:`xladoctor.oracle.prepass`), so a new pre-pass is measured on hundreds of programs in
seconds instead of a campaign's minutes.

    python bench/prepass_offline.py DIR            # identical count, classes with an example
    python bench/prepass_offline.py DIR --show NAME   # the first difference of one program
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from collections import defaultdict

from xladoctor.oracle.prepass import compare_prepared, prepared_module
from xladoctor.syntax.hlo_parser import parse_module


def compare_one(stem: str) -> tuple[str, str]:
    """``(class, where)`` for the pair at ``stem``."""
    with open(stem + ".input.hlo", encoding="utf-8") as f:
        ours = parse_module(f.read(), os.path.basename(stem))
    with open(stem + ".dump.txt", encoding="utf-8") as f:
        theirs = parse_module(f.read(), "dump")
    try:
        c = compare_prepared(prepared_module(ours), theirs)
    except Exception as e:  # a module our passes refuse is a finding of its own
        return f"error {type(e).__name__}", str(e)[:200]
    return c.difference_class(), c.describe()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--show", help="print the first difference of this program only")
    ap.add_argument("--by-family", action="store_true", help="also the identical count per family "
                    "(--user names: FAMILY_SEED)")
    args = ap.parse_args(argv)
    stems = sorted(p[: -len(".input.hlo")] for d in args.dirs for p in glob.glob(os.path.join(d, "*.input.hlo")))
    if args.show:
        stems = [s for s in stems if os.path.basename(s) == args.show]
    by_class: dict[str, list[tuple[str, str]]] = defaultdict(list)
    families: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for stem in stems:
        cls, where = compare_one(stem)
        by_class[cls].append((os.path.basename(stem), where))
        family = families[os.path.basename(stem).rsplit("_", 1)[0]]
        family[0] += cls == "identical"
        family[1] += 1
    identical = len(by_class.pop("identical", []))
    print(f"{identical}/{len(stems)} identical")
    if args.by_family:
        for family, (same, total) in sorted(families.items()):
            print(f"  {family}: {same}/{total}")
    for cls, items in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(items):4d}  {cls}: {', '.join(n for n, _ in items[:10])}")
        print(f"        first: {items[0][1][:400]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
