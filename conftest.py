"""The doctests of ``src/xladoctor`` run with the suite (``--doctest-modules`` in pyproject.toml).

Only modules whose text holds an example (``>>>``) are collected from ``src/``: importing every
module of the package would start the optional ones (jax/, the compiler workers, ``__main__``,
the pytest plugin pytest already loaded) for no doctest at all, and cost the start-up of each.
Under ``tests/`` only the test files are: ``--doctest-modules`` would otherwise import every
``.py`` there, the scripts kept as data too (``tests/data/first_hour/train.py`` lowers a program
and writes ``step.hlo`` into the directory pytest runs in).
"""

from __future__ import annotations

from pathlib import Path

_SRC = Path(__file__).resolve().parent / "src"
_TESTS = Path(__file__).resolve().parent / "tests"


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if collection_path.suffix != ".py":
        return None
    parents = collection_path.resolve().parents
    if _TESTS in parents:
        return not collection_path.name.startswith(("test_", "conftest")) or None
    if _SRC not in parents:
        return None
    return ">>> " not in collection_path.read_text(encoding="utf-8", errors="replace")
