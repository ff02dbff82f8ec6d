"""Every corpus module's CLI output, to show a refactor changes no byte of it.

Runs ``offload``, ``offload --json`` and ``check --json`` in-process on each module of
``tests/hlo_corpus.py`` (examples, the scenario corpus, 40 generated modules) and writes
``{module command: [exit code, stdout, stderr]}`` as JSON; with ``--against`` it compares with
an earlier run and lists what differs.

    python bench/corpus_outputs.py /tmp/before.json            # on the old code
    python bench/corpus_outputs.py /tmp/after.json --against /tmp/before.json

Exit status: 0 when nothing differs (or no ``--against``), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hlo_corpus import CORPUS, generated_hlo  # noqa: E402
from xladoctor.cli.main import main as cli  # noqa: E402

COMMANDS = (["offload"], ["offload", "--json"], ["check", "--json"])


def outputs() -> dict[str, list]:
    tmp = Path(tempfile.mkdtemp())
    out: dict[str, list] = {}
    for path in [*CORPUS, *generated_hlo(tmp, 40)]:
        for extra in COMMANDS:
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    rc = cli([extra[0], str(path), *extra[1:]])
                except SystemExit as e:
                    rc = e.code
            key = f"{path.name} {' '.join(extra)}"
            out[key] = [rc, stdout.getvalue().replace(str(tmp), "TMP"), stderr.getvalue().replace(str(tmp), "TMP")]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="where to write this run's outputs (JSON)")
    ap.add_argument("--against", help="an earlier run's JSON: list every output that differs")
    args = ap.parse_args()
    now = outputs()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(now, f, indent=0, sort_keys=True)
    print(f"{len(now)} outputs of {len(now) // len(COMMANDS)} modules written to {args.out}")
    if not args.against or not os.path.exists(args.against):
        return 0
    with open(args.against, encoding="utf-8") as f:
        before = json.load(f)
    differ = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    print(f"{len(differ)} of {len(now)} outputs differ from {args.against}")
    for key in differ:
        print(f"  {key}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
