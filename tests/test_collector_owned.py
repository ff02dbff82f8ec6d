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

from xladoctor.base.collector import building, collect, paused

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


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_library_build_ends_in_the_oldest_generation_unscanned():
    """building (the parse's pause): what it made is in the oldest generation at its end and the
    young count is reset, so no young collection rescans it; nothing is left frozen."""
    gc.collect()
    frozen = gc.get_freeze_count()
    with building():
        made = [_Cycle() for _ in range(5_000)]
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    assert gc.get_count()[0] < 100
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(c) in oldest for c in made[::500])
    del made
    assert gc.collect() >= 5_000  # unpinned: a full collection still frees it


def test_a_failed_build_or_a_callers_freeze_is_left_young():
    """A block that raised (a half-built module is garbage) and a caller that froze objects of its own
    (gc.unfreeze would release them) end as a plain pause: young, the caller's freeze untouched."""
    gc.collect()
    half: list[_Cycle] = []
    with pytest.raises(ValueError), building():
        half.extend(_Cycle() for _ in range(5_000))
        raise ValueError
    assert id(half[0]) not in {id(o) for o in gc.get_objects(generation=2)}  # a young collection's to find
    del half
    gc.collect()
    pinned = _Cycle()
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        with building():
            made = [_Cycle() for _ in range(5_000)]
        assert gc.get_freeze_count() == frozen
        assert id(made[0]) not in {id(o) for o in gc.get_objects(generation=2)}
    finally:
        gc.unfreeze()
    del pinned, made
    gc.collect()


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
    """The parsed module (~2 tracked objects per instruction, 40k+ here) is scanned by no young
    collection: in a library call the parse's pause ends with it promoted (``building``), so the
    first collection after the analysis' pause scans what that pause left (~8k here; before
    ``building``, the whole module); in the console script it is frozen and scanned by none."""
    owned, library = _one_run("owned", big), _one_run("library", big)
    assert library["young"] < 20_000 and library["frozen"] == 0 and library["enabled"], library
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


def test_a_library_call_collects_after_the_last_file_too():
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    with paused():
        Cycle()
    seen = []
    gc.callbacks.append(lambda phase, info: seen.append(info["generation"]) if phase == "start" else None)
    try:
        collect(last=True)
    finally:
        gc.callbacks.pop()
    assert seen == [2]


_LAST_FILE = """
import gc, json, sys
from xladoctor.base.collector import own_heap
own_heap()
from xladoctor.route.folder import check_items, expand
from xladoctor.route.folder_results import JsonSpool, Wanted
from xladoctor.route.options import Options

class Quiet:
    def advance(self, n=1):
        pass

items = expand(sys.argv[2:])
json_out = sys.argv[1] == "json"
spool = JsonSpool() if json_out else None
collections = []
gc.callbacks.append(lambda phase, info: collections.append(info["generation"]) if phase == "start" else None)
kept = check_items(items, Options(), 1, Quiet(), Wanted(text=not json_out, json=json_out, html=False), spool)
print(json.dumps({"frozen": gc.get_freeze_count(), "full": collections.count(2), "files": len(kept),
                  "drawn": "-->" in repr(kept[-1].piece)}))
"""


def _last_file(mode: str, *paths: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _LAST_FILE, mode, *map(str, paths)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """A module with no finding to draw a snippet of: the E1200 example's output laid out in host memory."""
    text = _repeated(20_000).replace("->(f32[16,256]{1,0:T(8,128)}", "->(f32[16,256]{1,0:T(8,128)S(5)}", 1)
    path = tmp_path_factory.mktemp("clean") / "clean.hlo"
    path.write_text(text)
    return path


def test_the_console_leaves_the_last_module_to_its_exit(clean, tmp_path):
    """h43g: after the run's last module only its entry is drawn and the process ends with os._exit,
    so the console script does not collect it (1.7 of 16.6 CPU-s of check at 1M instructions); a
    file before it is still freed before the next one is parsed.  h44q: with ``--json`` too, now
    that the spool streams the entry (its peak was the whole text joined at once)."""
    alone = _last_file("text", clean)
    assert alone["full"] == 0 and alone["frozen"] > 40_000 and not alone["drawn"], alone
    copy = tmp_path / "again.hlo"
    copy.write_text(clean.read_text().replace("HloModule ", "HloModule again_", 1))
    two = _last_file("text", clean, copy)
    assert two["full"] == 1 and two["frozen"] > 40_000, two  # the first module collected, not the last
    as_json = _last_file("json", clean)
    assert as_json["full"] == 0 and as_json["frozen"] > 40_000, as_json
    both = _last_file("json", clean, copy)
    assert both["full"] == 1 and both["frozen"] > 40_000, both


_WORKER = """
import gc, json, sys
from xladoctor.base.collector import own_heap
own_heap()  # a worker forked from the console script inherits it
from xladoctor.route.folder import check_path_wire
from xladoctor.route.options import Options

full = []
gc.callbacks.append(lambda phase, info: full.append(info["generation"]) if phase == "start" else None)
counts = []
for path in sys.argv[1:]:
    check_path_wire(path, True, Options())
    counts.append([full.count(2), gc.get_freeze_count()])
print(json.dumps(counts))
"""


def test_a_worker_frees_each_module_before_its_entry_is_drawn(clean, tmp_path):
    """``check -j N``: a worker cannot tell its last file, and holding a module's garbage until the
    next file starts raised the run's peak (h44q), so each module is collected after its file."""
    copy = tmp_path / "again.hlo"
    copy.write_text(clean.read_text().replace("HloModule ", "HloModule again_", 1))
    out = subprocess.run([sys.executable, "-c", _WORKER, str(clean), str(copy)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (full1, frozen1), (full2, frozen2) = json.loads(out.stdout)
    assert (full1, full2) == (1, 2) and max(frozen1, frozen2) < 5_000, out.stdout
