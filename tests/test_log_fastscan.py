"""The fast log scan (byte prefilter, regions, worker processes) finds exactly what one continuous scan does,
in bounded memory, and never hangs on endless inputs."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from log_corpus import write_log
from xladoctor.catalogue import fastscan, newlines, parallel_scan
from xladoctor.catalogue.prefilter import AnchorFinder
from xladoctor.catalogue.scanner import LogScanner

LOGS = Path(__file__).parent / "data" / "logs"
EXAMPLE_LOG = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples" / "tpu_job.log"


def key(findings):
    return [(f.code, f.line, f.count, f.lines, f.text, f.fields, f.analysis) for f in findings]


def continuous(path: Path):
    """The reference: one scanner over the whole text, finding candidates with str.find per anchor."""
    scanner = LogScanner()
    scanner._every_anchor = None
    with open(path, "rb") as f:
        return scanner.scan_binary(f)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    d = tmp_path_factory.mktemp("logs")
    return [write_log(d / f"g{seed}.log", 6000, seed, error_every=150 + 100 * seed,
                      long_line_every=1500 if seed % 2 else 0) for seed in range(4)]


def test_regions_find_what_a_continuous_scan_finds(generated):
    for path in [*sorted(LOGS.glob("*.log")), EXAMPLE_LOG, *generated]:
        want = key(continuous(path))
        assert want
        with open(path, "rb") as f:
            assert key(fastscan.scan_stream(f).finish()) == want, path
        with open(path, "rb") as f:  # small blocks: anchors and regions straddle block ends
            assert key(fastscan.scan_stream(f, block=1 << 12).finish()) == want, path
        scanner = LogScanner()
        with open(path, "rb") as f:  # the regex fallback finds the same anchors
            fastscan.scan_stream(f, scanner, AnchorFinder(scanner.anchors).without_automaton())
        assert key(scanner.finish()) == want, path


def _stream_regions(path: Path, block: int = fastscan.BLOCK) -> list[tuple[int, int, int, int]]:
    """The regions the stream planner opens (the one-pass rules, newlines counted as it reads)."""
    regions: list = []
    planner = fastscan._Planner(AnchorFinder(LogScanner().anchors), 0, 0, None, lambda r: None, regions.append,
                                block=block)
    with open(path, "rb", buffering=0) as f:
        while planner.fill(f.readinto):
            pass
    return [(r.start, r.end, r.first_hit, r.newlines_before) for r in regions]


def _dense_anchor_log(path: Path) -> Path:
    """Stretches made of one anchor word (the automaton would return a hit every 4 bytes) between
    sparse ones, and errors inside both: the wide search falls back to span probing and back again."""
    noise = "I1031 09:00:00.000000  7 tpu.cc:1] step nothing to see\n" * 9000
    spam = "got " * 200_000 + "\n"
    err = ("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. "
           "Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.\n")
    path.write_text(noise + spam + err + noise + err + spam + noise + spam + noise * 3 + err + noise)
    return path


def test_a_mapped_file_is_planned_as_a_stream_is(generated, tmp_path, monkeypatch):
    """plan_mapped (a file mapped or read whole, newlines counted only up to each region) opens the
    same regions, with the same line numbers, as the stream planner; scan_path finds the same."""
    finder = AnchorFinder(LogScanner().anchors)
    dense = _dense_anchor_log(tmp_path / "dense.log")
    for path in [*sorted(LOGS.glob("*.log")), EXAMPLE_LOG, *generated, dense]:
        want = _stream_regions(path)
        assert want == _stream_regions(path, block=1 << 12), path
        for map_min in (0, 1 << 40):  # mapped; read whole
            monkeypatch.setattr(fastscan, "MAP_MIN_BYTES", map_min)
            monkeypatch.setattr(fastscan, "RELEASE_EVERY", 1 << 16)  # many windows, pages handed back
            with fastscan._mapped(str(path)) as data:
                assert isinstance(data, bytes) == (map_min > 0)
                regions, counter = fastscan.plan_mapped(data, 0, len(data), finder)
                got = [(r.start, r.end, r.first_hit, r.newlines_before) for r in regions]
                assert got == want, (path, map_min)
                assert counter.at == (regions[-1].start if regions else 0)  # counted no further than needed
                assert counter.count == data[:counter.at].count(b"\n")
            assert key(fastscan.scan_path(str(path), LogScanner(), parallel=False).finish()) == \
                key(continuous(path)), (path, map_min)


def test_wide_search_thins_as_span_probing_does(tmp_path):
    """find_thinned's wide calls return every hit of a sparse stretch; a dense stretch is probed
    span by span.  Either way each span's first and last hit are among what it returns, and
    nothing it returns is not a hit."""
    data = _dense_anchor_log(tmp_path / "dense.log").read_bytes()
    finder = AnchorFinder(LogScanner().anchors)
    span = fastscan.FORWARD
    every = finder.find(data, 0, len(data))
    got = finder.find_thinned(data, 0, len(data), span)
    assert set(got) <= set(every) and got == sorted(got)
    for a in range(0, len(data), span):
        in_span = [h for h in every if a <= h < a + span]
        if in_span:
            assert in_span[0] in got and in_span[-1] in got, a
    assert len(got) < len(every) // 100  # the spam was thinned, not returned


def test_empty_and_tiny_files_are_scanned(tmp_path, monkeypatch):
    monkeypatch.setattr(fastscan, "MAP_MIN_BYTES", 0)
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    assert fastscan.scan_path(str(empty), LogScanner(), parallel=False).finish() == []
    one = tmp_path / "one.log"
    one.write_text("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.")
    assert [f.code for f in fastscan.scan_path(str(one), LogScanner(), parallel=False).finish()] == ["E1000"]


def _far_traces(path: Path) -> Path:
    """host_offloader traces far (other regions, other batches) from the E1200 they belong to."""
    from log_corpus import E1200_TRACED
    noise = "".join(f"I1031 09:00:00.000000  7 tpu.cc:1] step {i} nothing to see\n" for i in range(4000))
    trace, message = E1200_TRACED.split("jax.errors", 1)
    parts = [noise, trace.format(r=1), noise, "jax.errors" + message.format(r=1), noise,  # trace far above
             "jax.errors" + message.format(r=1), noise, trace.format(r=2), noise,  # repeat, then a trace...
             "jax.errors" + message.format(r=1), noise,  # ...for a repeat that has one already
             trace.format(r=3), noise, trace.format(r=4), noise, "jax.errors" + message.format(r=5), noise]
    path.write_text("".join(parts))
    return path


def test_worker_processes_find_the_same_as_one_pass(generated, tmp_path):
    far = _far_traces(tmp_path / "far.log")
    assert [f.analysis.get("trace") for f in continuous(far)] == [
        [{"instruction": "square.1", "shape_index": "{}"}], [{"instruction": "square.4", "shape_index": "{}"}]]
    from xladoctor.base.parallel import pool as process_pool

    with process_pool(2) as pool:
        for path in [*generated, far]:
            want = key(continuous(path))
            for min_chunk, batch_bytes in ((1 << 16, 1), (100_003, 150_000), (1 << 20, 1 << 22)):
                # many chunks with boundaries at odd offsets; every region its own batch, or a few
                got = parallel_scan.scan_file_parallel(str(path), LogScanner(), pool, 2, min_chunk=min_chunk,
                                                  batch_bytes=batch_bytes)
                assert key(got.finish()) == want, (path, min_chunk, batch_bytes)


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # fork on purpose: workers see the patched sizes
def test_workers_map_the_file_and_count_lines_lazily(generated, tmp_path, monkeypatch):
    """Workers map their chunk (every file mapped here) and count newlines up to their last region;
    the rest of a chunk is counted only when a later chunk has a region: a log whose errors are all
    at its end, one with an error at its start only, and one with none."""
    import multiprocessing

    monkeypatch.setattr(fastscan, "MAP_MIN_BYTES", 0)
    monkeypatch.setattr(fastscan, "RELEASE_EVERY", 1 << 16)
    noise = "".join(f"I1031 09:00:00.000000  7 tpu.cc:1] step {i} nothing to see\n" for i in range(20000))
    err = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.\n"
    late, early, clean = tmp_path / "late.log", tmp_path / "early.log", tmp_path / "clean.log"
    late.write_text(noise + noise + err + noise[:5000] + err)
    early.write_text(err + noise + noise)
    clean.write_text(noise)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        for path in [*generated, late, early, clean]:
            want = key(continuous(path))
            for min_chunk in (1 << 16, 100_003):
                got = parallel_scan.scan_file_parallel(str(path), LogScanner(), pool, 2, min_chunk=min_chunk,
                                                  batch_bytes=150_000)
                assert key(got.finish()) == want, (path, min_chunk)
    assert [f.line for f in continuous(late)] == [40001]


def test_the_rest_of_a_chunk_is_counted_only_before_a_later_region(tmp_path, monkeypatch):
    """A log without errors, or with its errors in its first chunk only, has no newline counted
    past its last region; one with an error at its end has every earlier chunk's rest counted."""
    from concurrent.futures import ThreadPoolExecutor

    calls: list[tuple[int, int]] = []
    counted = parallel_scan.count_range

    def spy(path: str, lo: int, hi: int) -> int:
        calls.append((lo, hi))
        return counted(path, lo, hi)

    monkeypatch.setattr(parallel_scan, "count_range", spy)
    noise = "".join(f"I1031 09:00:00.000000  7 tpu.cc:1] step {i} nothing to see\n" for i in range(20000))
    err = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.\n"
    for text, chunks_counted in ((noise, 0), (err + noise, 0), (noise + err, "all before the last")):
        log = tmp_path / "x.log"
        log.write_text(text)
        calls.clear()
        with ThreadPoolExecutor(2) as pool:
            got = parallel_scan.scan_file_parallel(str(log), LogScanner(), pool, 2, min_chunk=1 << 16)
        assert key(got.finish()) == key(continuous(log))
        bounds = parallel_scan.chunk_bounds(log.stat().st_size, 2, 1 << 16)
        if chunks_counted == 0:
            assert calls == [], text[:30]
        else:
            assert len(calls) == len(bounds) - 1 and calls[0][0] == 0


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # fork on purpose: workers see the patched cap
def test_worker_batches_respect_the_distinct_cap(tmp_path, monkeypatch):
    from xladoctor.catalogue import scanner as scanner_module

    monkeypatch.setattr(scanner_module, "MAX_DISTINCT", 25)
    msg = ("XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_step) expected parameter {p} of size 6144 "
           "(f32[5,4,3]{{0,1,2:T(4,128)}}) but got buffer with incompatible size 2048 (f32[5,4,3]{{2,1,0}})\n")
    noise = "I1031 09:00:00.000000  7 tpu.cc:1] nothing to see here at all\n" * 3000
    log = tmp_path / "many.log"
    # 10 distinct per stretch: batches stay under the cap, the whole log does not; repeats of kept ones later
    log.write_text("".join(noise + "".join(msg.format(p=10 * k + i) for i in range(10)) for k in range(6))
                   + noise + msg.format(p=3) + noise + msg.format(p=59))
    want = continuous(log)
    with ProcessPoolExecutor(2) as pool:  # forked after the monkeypatch: workers keep 25 too
        for batch_bytes in (1, 300_000, 1 << 22):  # the last: one batch over the cap, rescanned here
            s = parallel_scan.scan_file_parallel(str(log), LogScanner(), pool, 2, min_chunk=1 << 16,
                                            batch_bytes=batch_bytes)
            assert key(s.finish()) == key(want) and s.not_shown == {"E0102": 36}


def test_distinct_findings_are_capped_and_the_rest_counted(tmp_path, monkeypatch):
    from xladoctor.catalogue import scanner as scanner_module

    monkeypatch.setattr(scanner_module, "MAX_DISTINCT", 40)
    msg = ("XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_step) expected parameter {p} of size 6144 "
           "(f32[5,4,3]{{0,1,2:T(4,128)}}) but got buffer with incompatible size 2048 (f32[5,4,3]{{2,1,0}})\n")
    log = tmp_path / "many.log"
    log.write_text("".join(msg.format(p=p) for p in range(300)) + msg.format(p=3))
    s = LogScanner()
    with open(log, "rb") as f:
        fastscan.scan_stream(f, s)
    found = s.finish()
    assert len(found) == 40 and s.not_shown == {"E0102": 260}
    assert next(f for f in found if f.fields.get("parameter") == 3).count == 2  # repeats of kept ones still count


def _peak_rss_mib(argv: list[str], stdin=None) -> tuple[int, float, str]:
    # VmHWM is this program's own peak (ru_maxrss would include the pytest process it was forked from).
    code = ("import re, sys, io, contextlib\nfrom xladoctor.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    rc = main({argv!r})\n"
            "hwm = re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)\n"
            "print(rc, int(hwm) / 1024)\n"
            "print(out.getvalue()[-2000:])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, stdin=stdin)
    assert p.returncode == 0, p.stderr
    rc, mib = p.stdout.split("\n", 1)[0].split()
    return int(rc), float(mib), p.stdout


@pytest.mark.slow
def test_memory_is_bounded_without_newlines_for_explain_and_check(tmp_path):
    """80 MB with no newline and anchor words all along (the old scanner held the whole line)."""
    big = tmp_path / "oneline.log"
    piece = b"z" * 40_000 + b" Tensor which is moved to host  Ran a check "
    with open(big, "wb") as f:
        for _ in range(80_000_000 // len(piece)):
            f.write(piece)
        f.write(b"\nRESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. "
                b"Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.\n")
    for argv in (["explain", str(big), "--json"], ["check", str(big), "--json"]):
        rc, mib, _ = _peak_rss_mib(argv)
        assert rc == 1 and mib < 100, (argv, mib)
    with open(big, "rb") as stdin:  # stdin is streamed too, not spooled or read whole
        rc, mib, _ = _peak_rss_mib(["check", "-", "--json"], stdin=stdin)
    assert rc == 1 and mib < 100, mib


def test_devices_are_refused_and_endless_streams_stay_bounded(tmp_path):
    p = subprocess.run([sys.executable, "-m", "xladoctor", "explain", "/dev/zero"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("/dev/zero:1:1: is a character device"), p.stderr
    p = subprocess.run([sys.executable, "-m", "xladoctor", "check", "/dev/zero"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "is a character device" in p.stderr and "0 files checked" in p.stdout
    # Zeros on a pipe are a (binary) stream: read through in bounded memory, nothing found.
    feeder = subprocess.Popen(["head", "-c", "30000000", "/dev/zero"], stdout=subprocess.PIPE)
    rc, mib, out = _peak_rss_mib(["explain", "-", "--json"], stdin=feeder.stdout)
    feeder.wait()
    assert rc == 0 and mib < 100 and '"findings": []' in out


def test_explain_json_reports_what_was_not_shown(tmp_path, monkeypatch, capsys):
    from xladoctor.catalogue import scanner as scanner_module
    from xladoctor.cli.main import main

    monkeypatch.setattr(scanner_module, "MAX_DISTINCT", 2)  # the report reads the scanner's limit
    log = tmp_path / "x.log"
    log.write_text("".join(f"Executable(jit_step) expected parameter {p} of size 6144 (f32[5,4,3]{{0,1,2:T(4,128)}}) "
                           "but got buffer with incompatible size 2048 (f32[5,4,3]{2,1,0})\n" for p in range(5)))
    assert main(["explain", str(log), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["findings"]) == 2
    assert doc["not_shown"] == {"distinct_limit": 2, "messages": 3, "by_code": {"E0102": 3}}
    assert main(["explain", str(log)]) == 1
    assert "3 more messages not shown: only the first 2 distinct errors are kept (E0102 x3)" in \
        capsys.readouterr().out


def test_stdin_that_is_a_file_is_mapped_and_finds_the_same(generated, tmp_path):
    """``explain - < job.log``: stdin that is an uncompressed regular file of 1 MB or more, at its
    start, is mapped like a named file (``logscan._stdin_file``); a pipe, a small, compressed or
    partly read file is streamed.  Either way the document is the named file's."""
    import gzip

    big = tmp_path / "big.log"
    big.write_bytes(b"".join(p.read_bytes() for p in generated) * 3)
    assert big.stat().st_size >= fastscan.MAP_MIN_BYTES
    probe = [sys.executable, "-c", "from xladoctor.catalogue.logscan import _stdin_file; print(_stdin_file())"]
    small, packed = tmp_path / "small.log", tmp_path / "big.log.gz"
    small.write_bytes(big.read_bytes()[:1000])
    packed.write_bytes(gzip.compress(big.read_bytes()))
    for path, skip, want in ((big, 0, "0"), (big, 10, "None"), (small, 0, "None"), (packed, 0, "None")):
        with open(path, "rb") as f:
            f.seek(skip)
            got = subprocess.run(probe, stdin=f, capture_output=True, text=True, timeout=60)
        assert got.stdout.strip() == want, (path, skip, got.stderr)
    piped = subprocess.run(probe, input=b"x" * 100, capture_output=True, timeout=60)
    assert piped.stdout.strip() == b"None"

    def document(argv, stdin=None):
        out = subprocess.run([sys.executable, "-m", "xladoctor", *argv], stdin=stdin, capture_output=True, timeout=120)
        assert out.returncode == 1, out.stderr
        return json.loads(out.stdout)

    named = document(["explain", str(big), "--json"])
    assert named["findings"]
    with open(big, "rb") as f:
        mapped = document(["explain", "-", "--json"], stdin=f)
    with open(packed, "rb") as f:  # streamed
        assert document(["explain", "-", "--json"], stdin=f) == mapped
    assert mapped["findings"] == named["findings"] and mapped["source"] == "<stdin>"


def test_one_process_counts_newlines_only_up_to_a_recorded_line(tmp_path, monkeypatch):
    """A finding keeps the lines of its first MAX_LINES_RECORDED messages: once every finding has
    them, no newline is counted until a new finding turns up, whose line is still right.  (With
    the compiled count a mapped log is counted ahead instead: tests/test_newline_count.py.)"""
    from xladoctor.catalogue.scanner import MAX_LINES_RECORDED

    monkeypatch.setattr(fastscan, "NATIVE", False)
    monkeypatch.setattr(fastscan, "MAP_MIN_BYTES", 0)
    monkeypatch.setattr(fastscan, "RELEASE_EVERY", 1 << 16)
    counted_to: list[int] = []
    count = newlines.count_newlines  # a mapped file's newlines are copied out of the mapping

    def spy(data, start: int, stop: int, buf: bytearray | None = None) -> int:
        counted_to.append(stop)
        return count(data, start, stop, buf)

    monkeypatch.setattr(newlines, "count_newlines", spy)
    noise = "".join(f"I1031 09:00:00.000000  7 tpu.cc:1] step {i} nothing to see\n" for i in range(2000))
    err = "RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.\n"
    other = "INVALID_ARGUMENT: Tensor which is moved to host (starting from tuple.64) is returned from the " \
            "entry computation but the layout for this output is not set to host memory.\n"
    repeats = MAX_LINES_RECORDED + 10
    for tail in ("", other):
        log = tmp_path / "repeats.log"
        text = (noise + err) * repeats + noise + tail
        log.write_text(text)
        counted_to.clear()
        got = fastscan.scan_path(str(log), LogScanner(), parallel=False).finish()
        assert key(got) == key(continuous(log))
        assert got[0].count == repeats and len(got[0].lines) == MAX_LINES_RECORDED
        last_recorded = len((noise + err) * (MAX_LINES_RECORDED - 1) + noise)
        if tail:
            assert got[1].line == text.count("\n")  # the new finding's line, counted through the gap
            assert max(counted_to) > last_recorded
        else:
            assert counted_to and max(counted_to) <= last_recorded


def test_the_worker_pool_only_for_big_files_and_enough_cores(tmp_path, monkeypatch):
    """One process scans a log below PARALLEL_MIN_BYTES, or on fewer than PARALLEL_MIN_CPUS cores
    (two workers never beat it on 2 cores); the pool is asked for only past both."""
    log = tmp_path / "one.log"
    log.write_text("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.\n")
    pooled: list[int] = []

    def fake_parallel(path, scanner, executor, workers):
        pooled.append(workers)
        return scanner

    monkeypatch.setattr(parallel_scan, "scan_file_parallel", fake_parallel)
    monkeypatch.setattr(fastscan, "PARALLEL_MIN_BYTES", log.stat().st_size)
    for cpus, want in ((fastscan.PARALLEL_MIN_CPUS - 1, []), (fastscan.PARALLEL_MIN_CPUS, [fastscan.PARALLEL_MIN_CPUS])):
        monkeypatch.setattr(fastscan, "usable_cpus", lambda cpus=cpus: cpus)
        pooled.clear()
        found = fastscan.scan_path(str(log), LogScanner()).finish()
        assert pooled == want
        assert [f.code for f in found] == ([] if want else ["E1000"])  # the fake pool scans nothing
    monkeypatch.setattr(fastscan, "PARALLEL_MIN_BYTES", log.stat().st_size + 1)
    pooled.clear()
    assert [f.code for f in fastscan.scan_path(str(log), LogScanner()).finish()] == ["E1000"] and pooled == []


def test_newlines_copied_out_of_the_mapping_are_the_bytes(tmp_path, monkeypatch):
    """``count_newlines`` over a mapping (copied into a small reused buffer, pieces of every size,
    pages handed back as it goes) counts what ``bytes.count`` does, and the mapping still reads right
    after its pages were handed back."""
    import mmap
    import random

    monkeypatch.setattr(newlines, "_native_count", None)
    monkeypatch.setattr(newlines, "RELEASE_COUNTED", 4096)
    rng = random.Random(7)
    data = bytes(rng.choice(b"ab\n") for _ in range(50_000))
    path = tmp_path / "nl.log"
    path.write_bytes(data)
    with open(path, "rb", buffering=0) as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        for _ in range(200):
            a = rng.randrange(len(data) + 1)
            b = rng.randrange(a, len(data) + 1)
            buf = bytearray(rng.choice((1, 7, 4096, 1 << 20)))
            assert newlines.count_newlines(mapped, a, b, buf) == data.count(b"\n", a, b)
        assert newlines.count_newlines(mapped, 0, len(data)) == data.count(b"\n")
        assert mapped[:] == data


_OPENED: list[str] | None = None


def _count_opens(event: str, args: tuple) -> None:
    if _OPENED is not None and event == "open" and isinstance(args[0], str):
        _OPENED.append(args[0])


def test_a_named_log_s_first_bytes_are_read_once(tmp_path):
    """Compression magic, a zip archive and a UTF-16/32 encoding are asked of one read of the head
    (catalogue/logscan._regular_head): the log is opened for that and for its scan, no more (h53s)."""
    import sys

    from xladoctor.catalogue.logscan import scan_file

    global _OPENED
    log = tmp_path / "job.log"
    log.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    sys.addaudithook(_count_opens)
    _OPENED = []
    try:
        codes = [m.code for m in scan_file(str(log), parallel=False).findings]
        opened = [p for p in _OPENED if p == str(log)]
    finally:
        _OPENED = None
    assert codes == ["E1000"] and len(opened) == 2, (codes, opened)
