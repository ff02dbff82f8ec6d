"""Session-wide fixtures shared by the test files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# With the [gpu] extra installed (part of [test]), jax would try the CUDA plugin first on a
# machine without a GPU and print a traceback before falling back; the suite runs jax on the CPU
# (the compilers it judges with are compile-only clients), here and in every child process.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# libtpu takes /tmp/libtpu_lockfile even compile-only (get_topology_desc): a second test run, or
# any process holding libtpu on this machine, made the first import of it fail, and where that was
# at collection the whole run stopped there.  The suite never runs on a chip, so it may share.
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")

# Test helpers (jax_programs, jaxlib_oracle) are imported as top-level modules;
# keep that working even if tests/ later becomes a package.
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture(scope="session")
def jax_hlo_corpus(tmp_path_factory):
    """HLO texts of the real jax programs in ``jax_programs.py`` (pre, post, dumps).

    Generated once per session in a child process (``XLA_FLAGS`` must be set
    before jax starts its backend); a few seconds on CPU.
    """
    pytest.importorskip("jax")
    from jax_programs import generate_in_subprocess

    return generate_in_subprocess(tmp_path_factory.mktemp("jax_hlo"))


CHROMIUM = "/usr/bin/chromium"
"""Debian's chromium, driven by Playwright (no browser downloads; CI installs the package)."""


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium for the HTML tests; they skip, saying why, where it is missing."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not installed (CI installs Debian's chromium)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def tpu_worker():
    """A compile-only TPU worker (libtpu, v5e:2x2); the test skips, saying why, where there is none."""
    from xladoctor.oracle import OracleWorker, unavailable_reason

    if unavailable_reason():
        pytest.skip(unavailable_reason())
    with OracleWorker("v5e:2x2", timeout=120, want_text=False) as w:
        yield w


@pytest.fixture(scope="module")
def dumping_worker():
    """A compile-only TPU worker that dumps the module before every pass into a folder (the test
    files comparing our pre-passes with libtpu's ``before_host-offload-legalize`` module)."""
    import shutil
    import tempfile

    from xladoctor.oracle import OracleWorker
    from xladoctor.oracle.prepass import DUMP_FLAGS

    folder = tempfile.mkdtemp(prefix="prepass-test-")
    saved = os.environ.get("XLA_FLAGS")
    os.environ["XLA_FLAGS"] = f"--xla_dump_to={folder} {DUMP_FLAGS}"
    try:
        with OracleWorker("v5e:2x2", timeout=120, want_text=False) as w:
            if w.unavailable is not None:
                pytest.skip(f"real TPU compiler unavailable: {w.unavailable}")
            yield w, folder
    finally:
        if saved is None:
            os.environ.pop("XLA_FLAGS", None)
        else:
            os.environ["XLA_FLAGS"] = saved
        shutil.rmtree(folder, ignore_errors=True)
