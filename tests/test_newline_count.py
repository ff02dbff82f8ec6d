"""The compiled core's newline count (``catalogue/_newline_count.c``) gives ``bytes.count``'s answers.

Built here from its one C file into a temporary folder (seconds; skips, saying why, where there is
no C compiler or no Python headers), then compared with ``bytes.count`` on the edges its SSE2 loop
has: empty, one byte, no trailing newline, ``\\r\\n``, every start and stop around its 16- and
64-byte steps and its 255-step flush, negative and clipped indices, and each buffer kind a log
reaches it as (bytes, bytearray, mmap, memoryview); and ``catalogue/newlines``' counts with it in
place against the pure-Python package's, on a mapped file read in pieces split at every boundary.
"""

from __future__ import annotations

import importlib.util
import mmap
import os
import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest

from xladoctor.catalogue import newlines

SOURCE = Path(newlines.__file__).with_name("_newline_count.c")


def _missing() -> str | None:
    """Why the count cannot be built here, or None."""
    if not any(shutil.which(cc) for cc in (os.environ.get("CC", "cc"), "gcc", "clang")):
        return "no C compiler (cc, gcc or clang) on PATH"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "Python's headers (Python.h) are not installed"
    return None


@pytest.fixture(scope="module", params=[[], ["-DXLADOCTOR_NEWLINE_SSE2_ONLY"]], ids=["as-built", "sse2-only"])
def native(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """``_newline_count`` built as setup.py builds it (``-O3``), imported from a temporary folder; and
    again without its AVX2 loop, so that the SSE2 loop is tested on a core that has AVX2 too."""
    why = _missing()
    if why:
        pytest.skip(f"no C build here: {why}")
    out = tmp_path_factory.mktemp("native")
    flags = ["-O3", *request.param]
    code = ("from setuptools import Extension, setup\n"
            f"setup(name='nl', ext_modules=[Extension('_newline_count', [{str(SOURCE)!r}], extra_compile_args={flags!r})],"
            f" script_args=['build_ext', '--build-lib', {str(out)!r}, '--build-temp', {str(out / 'tmp')!r}])\n")
    built = subprocess.run([sys.executable, "-c", code], cwd=out, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (so,) = out.glob("_newline_count*.so")
    spec = importlib.util.spec_from_file_location("_newline_count", so)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _texts() -> list[bytes]:
    rng = random.Random(11)
    flush = 255 * 64  # the SSE2 loop's byte counters are summed every this many bytes
    return [b"", b"\n", b"a", b"a\nb", b"a\r\nb\r\n", b"\r\r\n\n\r", b"\n" * 70, b"x" * 63 + b"\n",
            b"\n" * (2 * flush + 17), b"\n" * flush + b"a" * 64,
            bytes(rng.choice(b"ab\r\n") for _ in range(3 * flush + 100)),
            bytes(rng.choice(b"\n\xff\x0a\x0b\x09") for _ in range(1000))]


def test_count_is_bytes_count_at_every_boundary(native: ModuleType) -> None:
    for text in _texts():
        n = len(text)
        edges = sorted({*range(0, min(n, 130) + 1), *range(max(0, n - 130), n + 1),
                        *(k for k in (16, 64, 128, 255 * 64, 255 * 64 + 1, 2 * 255 * 64, 255 * 128, 255 * 128 + 1)
                          if k <= n)})
        before = [0]  # before[i]: newlines in text[:i]
        for byte in text:
            before.append(before[-1] + (byte == 10))
        for a in edges:
            for b in edges:
                assert native.count(text, a, b) == (before[b] - before[a] if a < b else 0), (n, a, b)
        assert native.count(text, 0, n) == text.count(b"\n")


def test_count_reads_indices_as_bytes_count(native: ModuleType) -> None:
    text = b"a\nb\nc\n\nd"
    for a in (-100, -9, -8, -3, -1, 0, 3, 8, 9, 100):
        for b in (-100, -9, -3, -1, 0, 2, 8, 9, 100, sys.maxsize):
            assert native.count(text, a, b) == text.count(b"\n", a, b), (a, b)
    with pytest.raises(TypeError):
        native.count("a\nb", 0, 3)  # a str has no buffer
    with pytest.raises(TypeError):
        native.count(text, 0)


def test_count_reads_each_buffer_kind_in_place(native: ModuleType, tmp_path: Path) -> None:
    text = _texts()[10]
    path = tmp_path / "log"
    path.write_bytes(text)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        view = memoryview(bytearray(text))
        for data in (text, bytearray(text), mapped, view, view[5:]):
            want = bytes(data).count(b"\n", 3, len(data) - 2)
            assert native.count(data, 3, len(data) - 2) == want
        view.release()


def test_newlines_module_counts_the_same_with_it(native: ModuleType, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``count_newlines`` (bytes, and mapped in pieces of every size) with the compiled count in place
    gives the pure-Python package's answers (which copy each piece out of the mapping)."""
    rng = random.Random(5)
    text = bytes(rng.choice(b"ab\r\n") for _ in range(300_000))
    path = tmp_path / "nl.log"
    path.write_bytes(text)
    spans = [(0, len(text)), (0, 0), (len(text), len(text)), (1, len(text) - 1),
             (newlines.COUNT_PIECE - 1, 2 * newlines.COUNT_PIECE + 1)]
    spans += [(a, rng.randrange(a, len(text) + 1)) for a in (rng.randrange(len(text)) for _ in range(30))]
    spans += [(a, a + rng.randrange(300)) for a in (rng.randrange(len(text) - 300) for _ in range(30))]
    with open(path, "rb", buffering=0) as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        answers = {}
        for kernel in (None, native.count):
            monkeypatch.setattr(newlines, "_native_count", kernel)
            answers[kernel is None] = [
                (newlines.count_newlines(text, a, b), newlines.count_newlines(mapped, a, b),
                 newlines.count_newlines(mapped, a, b, bytearray(size)))
                for a, b in spans for size in ((1, 63, 4096, 1 << 17) if b - a < 5000 else (4093, 1 << 17))]
    assert answers[True] == answers[False]
    assert answers[True][0] == (text.count(b"\n"),) * 3


def test_a_mapped_scan_counting_ahead_finds_what_a_continuous_scan_does(native: ModuleType, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the compiled count, a mapped log's planner counts each stretch it has searched once it has
    a region (``NewlineCounter.ahead``), and a region's start a little behind that is counted back:
    small stretches and blocks put many regions across both edges; every finding's lines are the
    continuous scan's, and a log without an error is never counted."""
    from test_log_fastscan import continuous, key
    from xladoctor.catalogue import fastscan, prefilter
    from xladoctor.catalogue.scanner import LogScanner

    monkeypatch.setattr(newlines, "_native_count", native.count)
    monkeypatch.setattr(fastscan, "NATIVE", True)
    monkeypatch.setattr(fastscan, "MAP_MIN_BYTES", 0)
    monkeypatch.setattr(fastscan, "RELEASE_EVERY", 1 << 16)
    counted: list[tuple[int, int]] = []
    between = newlines.NewlineCounter._between

    def spy(self: newlines.NewlineCounter, start: int, stop: int) -> int:
        counted.append((start, stop))
        return between(self, start, stop)

    monkeypatch.setattr(newlines.NewlineCounter, "_between", spy)
    noise = [f"I1031 09:00:00.000000  7 tpu.cc:1] step {i} nothing to see\n" for i in range(3000)]
    errors = ["RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm.\n",
              "INVALID_ARGUMENT: Tensor which is moved to host (starting from tuple.64) is returned from the "
              "entry computation but the layout for this output is not set to host memory.\n"]
    logs = []
    for seed in range(3):  # regions 20-70 kB apart: starts before and after every stretch's edge
        rng = random.Random(seed)
        text = "".join("".join(noise[:rng.randrange(300, 1200)]) + rng.choice(errors) for _ in range(40))
        logs.append(tmp_path / f"g{seed}.log")
        logs[-1].write_text(text + "".join(noise[:rng.randrange(3)]))
    clean = tmp_path / "clean.log"
    clean.write_text("".join(f"I1031 09:00:00.000000  7 tpu.cc:1] step {i} nothing to see\n" for i in range(5000)))
    for wide in (1 << 12, 5000, 1 << 18):
        monkeypatch.setattr(prefilter, "WIDE", wide)
        for log in logs:
            counted.clear()
            assert key(fastscan.scan_path(str(log), LogScanner(), parallel=False).finish()) == key(continuous(log))
            assert counted and max(stop for _, stop in counted) > log.stat().st_size // 2  # counted ahead
        counted.clear()
        assert fastscan.scan_path(str(clean), LogScanner(), parallel=False).finish() == [] and counted == []
