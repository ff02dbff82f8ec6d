"""The catalogue's data files as bytes: what a log scan's start-up reads of the catalogue.

Every log scan checks the shipped scan table against the data files' bytes
(:func:`.scan_table.packaged`), a clean log needing nothing else of the catalogue; this module is
that read alone, so the scan imports neither the loader nor the model, TOML reader and label
reader it imports (issue 36 item 6).  :mod:`.loader` re-exports its names.
"""

from __future__ import annotations

import os
from functools import lru_cache

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
"""The catalogue's files, opened directly (``importlib.resources`` would pull pathlib, tempfile and
zipfile into every start-up; the package is always installed as files, as the labels are)."""


def _data_files() -> list[tuple[str, bytes]]:
    """Each data file's name and bytes, by name.  Read once per process: the scan table's check
    (:func:`.scan_table.packaged`) and the catalogue of a log with a finding take the same bytes,
    where each read all 32 files (issue 36 item 6)."""
    return list(_read_data_files())


@lru_cache(maxsize=1)
def _read_data_files() -> tuple[tuple[str, bytes], ...]:
    return tuple(sorted((name, read_bytes(os.path.join(DATA, name))) for name in os.listdir(DATA)
                        if name.endswith(".toml")))


_O_READ = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_bytes(path: str) -> bytes:
    """A small file's bytes in four system calls (open, read, the read that finds its end, close)
    where ``open(path, "rb").read()`` makes eight or nine (fstat twice, ioctl, lseek): every start
    of a log scan reads the 32 data files, and on the gVisor machines the tool is judged on a
    system call costs 15-40x what it costs on a plain Linux host (issue 36 item 6)."""
    fd = os.open(path, _O_READ)
    try:
        chunks = [os.read(fd, 1 << 16)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 16))
    finally:
        os.close(fd)
    return b"".join(chunks)


def file_crc(data: bytes) -> int:
    """A data file's CRC-32: whether :mod:`.catalogue_data` was made from these bytes."""
    from zlib import crc32

    return crc32(data)
