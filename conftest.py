"""The doctests of ``src/xladoctor`` run with the suite (``--doctest-modules`` in pyproject.toml).

Only modules whose text holds an example (``>>>``) are collected from ``src/``: importing every
module of the package would start the optional ones (jax/, the compiler workers, ``__main__``,
the pytest plugin pytest already loaded) for no doctest at all, and cost the start-up of each.
"""

from __future__ import annotations

from pathlib import Path

_SRC = Path(__file__).resolve().parent / "src"


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if collection_path.suffix != ".py" or _SRC not in collection_path.resolve().parents:
        return None
    return ">>> " not in collection_path.read_text(encoding="utf-8", errors="replace")
