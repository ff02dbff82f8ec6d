"""``check DIR`` keeps a small part of each file's document, so a folder of many modules needs the
memory of its largest file, not of all of them (issue 20), and ``--json`` still writes the
document the whole entries make, byte for byte.

Measured with tracemalloc (what stays allocated, not time) on copies of a real jax program's
module.  The peak RSS of 1 / 10 / 30 / 100 files is measured with ``/usr/bin/time -v`` and
recorded in bench/README.md, not asserted.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from xladoctor.cli.main import main
from xladoctor.report.check_json import file_entry
from xladoctor.route.dispatch import check_path
from xladoctor.route.folder import check_items as _check_all
from xladoctor.route.folder import expand
from xladoctor.route.folder_results import JsonSpool, Wanted
from xladoctor.route.options import Options

OPTS = Options()


class _Quiet:
    def advance(self, n: int = 1) -> None:
        pass


def _folder(tmp_path, text: str, n: int):
    d = tmp_path / f"dump{n}"
    d.mkdir()
    for i in range(n):
        (d / f"m{i:02d}.hlo").write_text(text.replace("HloModule ", f"HloModule m{i}_", 1))
    return d


@pytest.fixture(scope="module")
def module_text(jax_hlo_corpus) -> str:
    text = jax_hlo_corpus.text("scan_remat_offload_tpu", "pre")
    assert "annotate_device_placement" in text or "MoveToHost" in text  # analysed, not triaged away
    return text


def _held(folder, keep_whole: bool) -> int:
    """Bytes still allocated after every file of ``folder`` was checked and kept."""
    items = expand([str(folder)])
    spool = JsonSpool()
    gc.collect()
    tracemalloc.start()
    try:
        if keep_whole:  # what check kept before: every file's whole document
            kept = [file_entry(check_path(it.path, False, OPTS)) for it in items]
        else:
            kept = _check_all(items, OPTS, 1, _Quiet(), Wanted(text=True, json=True, html=False), spool)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        spool.close()
    assert len(kept) == len(items)
    return held


def test_check_dir_keeps_little_of_each_file(tmp_path, module_text):
    small, large = _folder(tmp_path, module_text, 2), _folder(tmp_path, module_text, 8)
    _held(small, False)  # warm: lazy imports, the catalogue and the labels are nobody's file
    whole = (_held(large, True) - _held(small, True)) / 6
    kept = (_held(large, False) - _held(small, False)) / 6
    assert whole > 20_000, whole  # the module's summary and offload document are worth keeping small
    assert kept < whole / 5, (kept, whole)


def test_check_dir_json_is_the_document_of_the_whole_entries(tmp_path, module_text, capsys):
    from xladoctor.cli.commands._common import print_json
    from xladoctor.findings.schema_files import CHECK_SCHEMA_VERSION
    from xladoctor.report.check_json import check_diagnostics

    folder = _folder(tmp_path, module_text, 4)
    assert main(["check", str(folder), "--json", "--jobs", "1"]) == 0
    written = capsys.readouterr().out
    entries = [file_entry(check_path(it.path, False, OPTS)) for it in expand([str(folder)])]
    doc = {"command": "check", "files": entries, "findings": sum(f["findings"] for f in entries),
           "input_errors": 0, "diagnostics": check_diagnostics(entries, "en")}
    print_json(doc, CHECK_SCHEMA_VERSION, "check")  # the whole document as one string, as before
    assert written == capsys.readouterr().out
    assert main(["check", str(folder), "--json", "--jobs", "2"]) == 0
    assert capsys.readouterr().out == written
