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


def _grown_example(n_instructions: int) -> str:
    """The E1200 example grown to ``n_instructions`` (bench/real_modules.repeat): its finding draws
    two snippets of the checked file's own lines."""
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "bench"))
    try:
        from real_modules import repeat
    finally:
        sys.path.remove(str(root / "bench"))
    return repeat((root / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo").read_text(),
                  n_instructions)


def _held_after_check(folder, capsys) -> int:
    """Bytes still allocated after ``check DIR`` (the text report, as a user runs it) has returned."""
    gc.collect()
    tracemalloc.start()
    try:
        assert main(["check", str(folder), "--jobs", "1"]) == 1
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert "-->" in capsys.readouterr().out  # the snippets of each file's lines were drawn
    return held


def test_check_dir_text_keeps_no_file_lines(tmp_path, capsys):
    """Each file's section shows snippets of its lines, read through linecache, which kept every file
    it read for the life of the process: the whole text again per file checked (h43g: 1.1 MiB more
    peak RSS per 10k-instruction file).  The lines are dropped once the file's section is drawn."""
    import linecache

    text = _grown_example(3_000)
    small, large = _folder(tmp_path, text, 2), _folder(tmp_path, text, 6)
    _held_after_check(small, capsys)  # warm: lazy imports, the catalogue and the labels
    per_file = (_held_after_check(large, capsys) - _held_after_check(small, capsys)) / 4
    assert per_file < len(text) / 20, (per_file, len(text))  # kept: the section's lines and a small entry
    assert not [p for p in linecache.cache if str(tmp_path) in p]


def test_offload_text_keeps_no_file_lines(tmp_path, capsys):
    """``offload``'s snippets read the checked file through linecache too: called in-process (a
    notebook, the pytest plugin), each module checked stayed in memory as lines."""
    import linecache

    path = tmp_path / "grown.hlo"
    path.write_text(_grown_example(500))
    assert main(["offload", str(path)]) == 1
    assert "-->" in capsys.readouterr().out
    assert str(path) not in linecache.cache


def _spooled(entry, monkeypatch=None, batch: int | None = None) -> str:
    import io

    import xladoctor.base.json_plain as json_plain

    if batch is not None:  # the spool writes the pieces json_plain.plain_stream hands over
        monkeypatch.setattr(json_plain, "_FLUSH", batch)
    spool = JsonSpool()
    try:
        spool.add(0, entry)
        out = io.StringIO()
        spool.write_to(out)
        return out.getvalue()
    finally:
        spool.close()


@pytest.mark.parametrize("batch", [1, 2, 7, 1 << 14])
def test_the_spool_writes_what_json_dumps_writes_in_any_batches(monkeypatch, batch):
    """The entry is encoded in batches of the encoder's pieces, re-indented and escaped per batch:
    newlines inside strings, bidi overrides, a lone surrogate (a non-UTF-8 byte of a file name) and
    a surrogate pair come out as the whole text made at once does."""
    import json

    from xladoctor.base.escape import json_text

    entry = {"path": "bad\udcff\u202e.hlo", "lines": ["a\nb", "\U0001f600", "\u2028"], "n": [1, 2.5, None, True],
             "nested": {"empty": {}, "list": [], "deep": [{"k": "v\t"}] * 3}}
    whole = "[\n    " + json_text(json.dumps(entry, indent=2, ensure_ascii=False).replace("\n", "\n    ")) + "\n  ]"
    assert _spooled(entry, monkeypatch, batch) == whole


def test_the_spool_never_holds_the_whole_entry_as_text():
    """``json.dumps(indent=2)`` joins every piece of the encoder at once (its peak was ``check
    --json``'s: a 100k-instruction module's summary is 30 MB of text): the spool holds a batch."""
    entry = {"instructions": [{"name": f"add.{i}", "opcode": "add", "operands": [f"p.{i}", f"q.{i}"]}
                              for i in range(60_000)]}
    import json

    size = len(json.dumps(entry, indent=2))
    spool = JsonSpool()
    try:
        gc.collect()
        tracemalloc.start()
        spool.add(0, entry)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        spool.close()
    assert peak < size / 4, (peak, size)  # json.dumps: ~4x the text (the pieces and three copies)


@pytest.mark.parametrize("in_memory", [0, 40, 1 << 18])
def test_the_spool_gives_the_same_array_in_memory_or_spilled(monkeypatch, in_memory):
    """A spool keeps its first IN_MEMORY bytes in memory (check LOG --json writes a few hundred:
    no tempfile, issue 36 item 6) and moves to a temporary file past them, in the middle of an
    entry or between two; the array written is the same, its entries in index order."""
    import io
    import json

    import xladoctor.base.json_plain as json_plain
    import xladoctor.route.folder_results as folder_results

    monkeypatch.setattr(folder_results, "IN_MEMORY", in_memory)
    monkeypatch.setattr(json_plain, "_FLUSH", 3)
    entries = {2: {"path": "b.log", "findings": [{"code": "E1000", "line": n} for n in range(5)]},
               0: {"path": "a.hlo", "note": "\u202e"}, 1: {"path": "c", "kind": "error"}}
    spool = JsonSpool()
    try:
        for index, entry in entries.items():
            spool.add(index, entry)
        assert spool._spilled == (in_memory < 100)
        out = io.StringIO()
        spool.write_to(out)
    finally:
        spool.close()
    assert json.loads(out.getvalue()) == [entries[0], entries[1], entries[2]]
    whole = json.dumps([entries[0], entries[1], entries[2]], indent=2, ensure_ascii=False).replace("\n", "\n  ")
    assert out.getvalue() == whole.replace("\u202e", "\\u202e")


def test_a_document_with_a_spool_is_written_as_json_writes_it(capsys):
    """check's document holds its files in a spool: print_json writes the rest with base/json_plain
    (no json, no re: ~30M instructions of ``check LOG --json``, h52s), the spool where it stands."""
    import json

    from xladoctor.cli.commands._common import print_json

    entries = [{"path": "a\u202e.log", "findings": [{"code": "E1000", "fields": {"bytes": 2 ** 40}}]}, {"path": "b"}]
    spool = JsonSpool()
    try:
        for i, entry in enumerate(entries):
            spool.add(i, entry)
        print_json({"command": "check", "files": spool, "summary": {"files": 2, "ok": None}}, 3, None)
    finally:
        spool.close()
    out = capsys.readouterr().out
    whole = {"schema_version": 3, "command": "check", "files": entries, "summary": {"files": 2, "ok": None}}
    assert out == json.dumps(whole, indent=2, ensure_ascii=False).replace("\u202e", "\\u202e") + "\n"
