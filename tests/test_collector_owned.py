"""base/collector: in a library call the collector is left as the caller had it; in the console
script (``own_heap``) a pause ends frozen, so no collection rescans the module, and a walk
over many files still frees each module before the next one is built (memory flat in the number
of files).

The owned heap cannot be undone for the rest of a process, so those cases run in a child.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.base.collector import collect, paused

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"


def _repeated(n_instructions: int) -> str:
    """The example module grown to ``n_instructions`` (bench/real_modules.repeat, as the benches grow it)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from real_modules import repeat
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return repeat(EXAMPLE.read_text(), n_instructions)


def test_a_library_call_freezes_nothing_and_collects_at_once():
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    frozen = gc.get_freeze_count()
    with paused():
        assert not gc.isenabled()
        Cycle()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.collect()
    seen = []
    gc.callbacks.append(lambda phase, info: seen.append(info["generation"]) if phase == "start" else None)
    try:
        collect()
    finally:
        gc.callbacks.pop()
    assert seen == [2]  # collect() itself is the full collection


_ONE_RUN = """
import gc, json, sys
from xladoctor.base.collector import own_heap
if sys.argv[1] == "owned":
    own_heap()
from xladoctor.cli.main import main
import xladoctor.route.module_analysis, xladoctor.syntax.hlo_parser, xladoctor.offload.analysis
main(["offload", sys.argv[2], "--json"])  # the lazy imports, the catalogue, the labels
young = []  # objects allocated since the last collection, as each collection starts: what it scans
gc.callbacks.append(lambda phase, info: young.append(gc.get_count()[0]) if phase == "start" else None)
main(["offload", sys.argv[3], "--json"])
sys.stdout.flush()
sys.stderr.write(json.dumps({"young": max(young, default=0), "frozen": gc.get_freeze_count(),
                             "enabled": gc.isenabled()}))
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.hlo"
    path.write_text(_repeated(20_000))
    return path


def _one_run(mode: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _ONE_RUN, mode, str(EXAMPLE), str(path)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stderr)


def test_the_console_heap_does_not_rescan_the_module(big):
    """In a library call the first collection after the pause scans all the pause built (the
    module: ~2 tracked objects per instruction); in the console script it is frozen and scanned by none."""
    owned, library = _one_run("owned", big), _one_run("library", big)
    assert library["young"] > 40_000 and library["frozen"] == 0 and library["enabled"]
    assert owned["young"] < 5_000 and owned["frozen"] > 40_000 and owned["enabled"], owned


_MANY_FILES = """
import json, sys, tracemalloc
from xladoctor.base.collector import own_heap
own_heap()
from xladoctor.route.dispatch import check_path
from xladoctor.route.options import Options
check_path(sys.argv[1], True, Options())
tracemalloc.start()
held = [tracemalloc.get_traced_memory()[0]]
for path in sys.argv[2:]:
    check_path(path, True, Options())
    held.append(tracemalloc.get_traced_memory()[0])
print(json.dumps(held))
"""


def test_the_console_heap_stays_flat_over_many_files(tmp_path):
    text = _repeated(3_000)
    paths = []
    for i in range(6):
        paths.append(tmp_path / f"m{i}.hlo")
        paths[-1].write_text(text.replace("HloModule ", f"HloModule m{i}_", 1))
    out = subprocess.run([sys.executable, "-c", _MANY_FILES, str(EXAMPLE), *map(str, paths)], capture_output=True,
                         text=True, timeout=300, check=True)
    held = json.loads(out.stdout)
    # a module is ~10x its text: one more per file (frozen, never freed) would be 4 here
    assert held[-1] - held[1] < len(text), (held, len(text))
