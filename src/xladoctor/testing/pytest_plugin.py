"""pytest plugin: E1200 and E0102 as test assertions (registered by the ``pytest11`` entry point).

Why a plugin: a team's own test suite is where a program change that brings back an
E1200 (or an executable fed arguments in another layout) should fail, on the CPU CI
machine, before TPU time is spent.  The asserts call :func:`xladoctor.jax.check_offload`
and :func:`xladoctor.jax.check_inputs`; on failure the assertion message is their text
report (path, Python lines, the fix as code), which pytest prints under the test.

Every pytest run in an environment where xladoctor is installed loads this module,
also without the ``[jax]`` extra and also for this project's own tests, so it imports
neither jax nor any analysis at load time: only an assert or fixture that is used does.

* ``assert_no_e1200(fn, *args, **kwargs)`` and ``assert_inputs_match(compiled, *args,
  **kwargs)``, importable from here, return the report when the check passes;
* fixtures ``xladoctor_offload`` and ``xladoctor_inputs`` are those two callables, with
  the command-line options applied: ``--xladoctor-confirm`` also compiles each program with
  the real TPU compiler (``[tpu]`` extra) and fails when it rejects it,
  ``--xladoctor-platform`` picks the platform the programs are lowered for (default tpu).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from ..base.labels import label

__all__ = ["assert_no_e1200", "assert_inputs_match"]

_NEEDS_JAX = label("pytest.needs_jax")
PLATFORMS = ("tpu", "cuda", "gpu", "rocm", "cpu")
"""``xladoctor.jax.offload_check.PLATFORMS``, spelt out: this module imports nothing of jax at load."""


def _jax_checks() -> Any:
    """``xladoctor.jax``, imported on first use (it imports jax)."""
    try:
        from .. import jax as checks
    except ImportError as e:  # the [jax] extra is missing: a failure that says what to install
        pytest.fail(f"{_NEEDS_JAX} ({e})", pytrace=False)
    return checks


def assert_no_e1200(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Fail unless ``xladoctor.jax.check_offload(fn, *args, **kwargs)`` is clean.

    Arguments are exactly :func:`~xladoctor.jax.check_offload`'s: the function's own
    positional and keyword arguments, ``jit_kwargs=`` for ``jax.jit`` options,
    ``platform=``, ``rule=``, ``confirm=``, ``topology=``.  With ``confirm=True`` a
    rejection by the real TPU compiler fails too (``report.ok`` covers both).  Returns
    the report.
    """
    __tracebackhide__ = True
    report = _jax_checks().check_offload(fn, *args, **kwargs)
    if not report.ok:
        raise AssertionError(label("pytest.would_fail", program=_program_name(fn), report=report))
    return report


def assert_inputs_match(compiled: Any, *args: Any, **kwargs: Any) -> Any:
    """Fail when ``compiled(*args, **kwargs)`` would be refused (E0102 or JAX's layout
    ``ValueError``), as :func:`xladoctor.jax.check_inputs` predicts: every mismatching leaf
    is in the message, with both layouts, sizes and the ``device_put`` fix.  Returns the report."""
    __tracebackhide__ = True
    report = _jax_checks().check_inputs(compiled, *args, **kwargs)
    if not report.ok:
        raise AssertionError(label("pytest.would_refuse", report=report))
    return report


def _program_name(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return name if isinstance(name, str) else type(fn).__name__


# -- pytest hooks and fixtures -------------------------------------------------------------

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("xladoctor", label("pytest.group"))
    group.addoption("--xladoctor-confirm", action="store_true", default=False, help=label("pytest.confirm"))
    # choices: an unknown name was a ValueError in every test that used the fixture, not one usage error
    group.addoption("--xladoctor-platform", default="tpu", metavar="PLATFORM", choices=PLATFORMS,
                    help=label("pytest.platform"))


@pytest.fixture
def xladoctor_offload(request: pytest.FixtureRequest) -> Any:
    """``assert_no_e1200`` with the session's ``--xladoctor-confirm``/``--xladoctor-platform``
    as defaults (a call's own ``confirm=``/``platform=`` still wins)."""
    config = request.config
    defaults = {"platform": config.getoption("xladoctor_platform"),
                "confirm": bool(config.getoption("xladoctor_confirm"))}

    @functools.wraps(assert_no_e1200)
    def check(fn: Any, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        return assert_no_e1200(fn, *args, **{**defaults, **kwargs})

    return check


@pytest.fixture
def xladoctor_inputs() -> Any:
    """``assert_inputs_match``: fail when a compiled executable would refuse the arguments."""
    return assert_inputs_match
