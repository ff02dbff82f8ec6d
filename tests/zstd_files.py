"""zstd for the tests: the standard library's ``compression.zstd`` (Python 3.14+) or its backport,
the module xladoctor reads ``.zst`` with, and the skip mark for where neither is installed."""

from __future__ import annotations

import sys
from types import ModuleType

import pytest


def _zstd() -> ModuleType | None:
    try:
        if sys.version_info >= (3, 14):
            from compression import zstd  # type: ignore[import-not-found, unused-ignore]
        else:
            from backports import zstd  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    return zstd


ZSTD = _zstd()
NEEDS_ZSTD = pytest.mark.skipif(ZSTD is None, reason="the [zstd] extra (backports-zstd) is not installed")


def zstd_compress(data: bytes, level: int = 3) -> bytes:
    """``data`` as one zstd frame (the test is skipped by NEEDS_ZSTD where zstd is missing)."""
    assert ZSTD is not None
    return bytes(ZSTD.compress(data, level))
