"""Size guard (issue 10, "done when"): no module of the package over 500 lines, no function over 60.

One place allows more: a module under ``offload/passes/`` may hold a whole XLA pass, up to 800
lines (issue 20, "the pass pipeline as data"): a pass is cut along XLA's files, not by this
guard, and one that needs more than 800 becomes a sub-package named after the pass.

Small modules with one job each are what the developers' guide asks; this test keeps the
package there by reading every source file with ``ast`` (a function's length is its
``def`` through its last statement, decorators and docstring included, as a reader sees it).

There are no exceptions: the last one (``computation_reader._parse_instructions``) was split, and
the list of allowed ones went with it.  A module or function over a limit is split, not listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "xladoctor"
MAX_FILE_LINES = 500
MAX_PASS_FILE_LINES = 800
PASSES = "offload/passes/"
MAX_FUNCTION_LINES = 60


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _long_functions(path: Path) -> dict[str, int]:
    return _long_functions_of(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix())


def _long_functions_of(text: str, rel: str) -> dict[str, int]:
    """``rel::qualified.name`` -> lines, for every function over the limit (methods and nested
    functions included, named by their enclosing classes/functions)."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    length = (child.end_lineno or child.lineno) - first + 1
                    if length > MAX_FUNCTION_LINES:
                        out[f"{rel}::{name}"] = length
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(text, filename=rel), "")
    return out


def file_limit(rel: str) -> int:
    """The most lines the module at ``rel`` (relative to the package) may have."""
    return MAX_PASS_FILE_LINES if rel.startswith(PASSES) else MAX_FILE_LINES


def _long_files() -> dict[str, int]:
    out = {}
    for path in _sources():
        rel = path.relative_to(PACKAGE).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > file_limit(rel):
            out[rel] = n
    return out


def _all_long_functions() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in _sources():
        out.update(_long_functions(path))
    return out


def test_the_package_is_found() -> None:
    """The guard reads the real package (a wrong path would pass vacuously)."""
    names = {p.relative_to(PACKAGE).as_posix() for p in _sources()}
    assert {"cli/main.py", "findings/model.py", "syntax/computation_reader.py"} <= names
    assert len(names) > 100


def test_no_file_over_500_lines() -> None:
    too_long = _long_files()
    assert not too_long, f"split these modules (lines > {MAX_FILE_LINES}, {MAX_PASS_FILE_LINES} under {PASSES}): {too_long}"


def test_only_passes_get_800_lines() -> None:
    """The larger limit is for a pass' own module, not for anything that merely sits near one."""
    assert file_limit("offload/passes/hlo_dce.py") == 800
    assert file_limit("offload/passes/host_offloader/walk.py") == 800
    assert file_limit("offload/pipeline.py") == 500
    assert file_limit("offload/passes_helper.py") == 500
    assert file_limit("syntax/computation_reader.py") == 500


def test_no_function_over_60_lines() -> None:
    too_long = _all_long_functions()
    assert not too_long, f"split these functions (lines > {MAX_FUNCTION_LINES}): {too_long}"


def test_the_guard_measures_what_it_claims() -> None:
    """A 61-line function (decorator counted) is caught, a 60-line method is not; nested
    names are qualified by their class."""
    body = "\n".join(f"    x{i} = {i}" for i in range(59))
    method = "\n".join(f"        y{i} = {i}" for i in range(59))
    long_method = "\n".join(f"        z{i} = {i}" for i in range(60))
    src = (f"import functools\n@functools.cache\ndef long():\n{body}\n\n"
           f"class C:\n    def ok(self):\n{method}\n    def big(self):\n{long_method}\n")
    assert _long_functions_of(src, "probe.py") == {"probe.py::long": 61, "probe.py::C.big": 61}
