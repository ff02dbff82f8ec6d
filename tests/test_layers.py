"""Imports only point down: the layer order of CONTRIBUTING.md's "Architecture" section, enforced.

Every module under ``src/xladoctor/`` is parsed with :mod:`ast` and every import in it is
checked, wherever it is written: at module level, inside a function (the lazy imports that
keep start-up fast), and under ``if TYPE_CHECKING:``.  Type-only imports count: a type
annotation that names a class from a higher layer is the same knowledge of that layer as
a call, and it is what turns into a run-time import the day someone needs an ``isinstance``.

Each top-level unit (a package such as ``offload/`` or a module such as ``errors.py``) has
a layer, and inside its layer a rank.  An import is allowed when it stays inside its unit,
goes to a lower layer, or goes to a lower rank of the same layer.  The ranks are what let
analyses use each other without a cycle: ``catalogue`` (the log scanner's field analysis of
an E0102 message) uses ``inputs``' size explanation, ``oracle`` compares with ``offload``'s
result, never the other way.  Inside ``commands/`` one more rule holds: a command module
never imports another command (``check`` does not reach into ``hlo``); what two commands
share lives in a lower layer or in a private ``commands/_*.py`` helper.  Inside ``offload/``
the passes (``offload/passes/``, one XLA pass each) sit below what orders and reads them: a
pass never imports the pipeline, the analysis or the modules that read its result
(:data:`OFFLOAD_ABOVE_PASSES`); the vocabulary passes and readers share (annotations, kinds,
result, positions, rules, loop_trips) sits beside ``offload/passes/``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "xladoctor"
SRC = Path(__file__).resolve().parent.parent / "src" / PACKAGE

# Lowest first.  Inside a layer, units are listed in rank order (a unit may import the ones
# before it).  Some are placed before they exist, so whoever adds them finds their place:
# `labels` (UI text per language), `findings` (the typed findings model), `pipeline` (read ->
# sniff -> parse -> analyse -> findings, for every command and xladoctor.jax), `log_report`,
# `pytest_plugin`.  `__init__` is the package's own front (`import xladoctor`: lazy
# re-exports); `__version__`, a constant defined there, may be read from anywhere.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("__version__", "base")),
    ("ir", ("ir",)),
    ("syntax", ("syntax",)),
    ("analyses", ("triage", "inputs", "offload", "oracle", "catalogue")),
    ("findings", ("findings",)),
    ("renderers", ("report",)),
    ("route", ("route",)),
    ("front", ("jax", "__init__", "cli", "__main__", "testing")),
)
# offload/'s modules above its passes: what runs the pipeline and what reads its result.
OFFLOAD_ABOVE_PASSES = ("analysis", "pipeline", "fixes", "report", "later_failures", "platform_checks", "no_start")
UNIT_PLACE: dict[str, tuple[int, int]] = {
    unit: (layer_no, rank) for layer_no, (_, units) in enumerate(LAYERS) for rank, unit in enumerate(units)}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    line: int
    target: str  # the imported module, dotted


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool, modules: frozenset[str]) -> list[Import]:
    """Every import of ``module``'s source, resolved to absolute dotted names.

    ``from . import x`` yields ``pkg.x`` when x is a module of the tree (``modules``), else
    ``pkg`` (x is a name defined there), except the package's ``__version__``, which is its
    own unit: reading the version is not reaching into the front door.
    """
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(Import(module, node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            if node.module:
                found.append(Import(module, node.lineno, base))
            else:
                found.extend(Import(module, node.lineno, _from_import_target(base, a.name, modules))
                             for a in node.names)
    return found


def _from_import_target(base: str, name: str, modules: frozenset[str]) -> str:
    if f"{base}.{name}" in modules or (base == PACKAGE and name == "__version__"):
        return f"{base}.{name}"
    return base


def unit_of(dotted: str) -> str:
    """``xladoctor.offload.rules`` -> ``offload``; ``xladoctor`` itself -> ``__init__``."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer_name(unit: str) -> str:
    return LAYERS[UNIT_PLACE[unit][0]][0]


def violation(imp: Import) -> str | None:
    """Why ``imp`` points the wrong way, or None."""
    if imp.target != PACKAGE and not imp.target.startswith(PACKAGE + "."):
        return None
    src, dst = unit_of(imp.module), unit_of(imp.target)
    where = f"{imp.module}:{imp.line} imports {imp.target}"
    for unit in (src, dst):
        if unit not in UNIT_PLACE:
            return f"{where} ({unit} has no layer: add it to LAYERS in tests/test_layers.py and CONTRIBUTING.md)"
    if src == dst:
        return _command_to_command(imp, where) or _pass_to_pipeline(imp, where)
    if UNIT_PLACE[dst] < UNIT_PLACE[src]:
        return None
    same = UNIT_PLACE[dst][0] == UNIT_PLACE[src][0]
    how = f"{src} -> {dst}, both {_layer_name(src)}, against their order" if same else \
        f"layer {_layer_name(src)} -> layer {_layer_name(dst)}"
    return f"{where} ({how})"


def _command_to_command(imp: Import, where: str) -> str | None:
    """``commands.check`` importing ``commands.hlo``: shared code belongs lower down."""
    commands = f"{PACKAGE}.cli.commands."
    if not (imp.module.startswith(commands) and imp.target.startswith(commands)):
        return None
    src = imp.module.split(".")[3:4]
    dst = imp.target.split(".")[3:4]
    if not src or not dst or src == dst or dst[0].startswith("_") or src[0].startswith("_"):
        return None
    return f"{where} (command {src[0]} -> command {dst[0]}: move what they share below commands/)"


def _pass_to_pipeline(imp: Import, where: str) -> str | None:
    """``offload.passes.hlo_dce`` importing ``offload.pipeline``: a pass knows nothing of its order."""
    if not imp.module.startswith(f"{PACKAGE}.offload.passes."):
        return None
    above = imp.target.split(".")[2:3] if imp.target.startswith(f"{PACKAGE}.offload.") else []
    if not above or above[0] not in OFFLOAD_ABOVE_PASSES:
        return None
    return f"{where} (a pass -> offload.{above[0]}, which runs or reads the passes: passes sit below it)"


def tree_violations(root: Path) -> list[str]:
    out = []
    paths = sorted(root.rglob("*.py"))
    modules = frozenset(module_name(p, root) for p in paths)
    for path in paths:
        module = module_name(path, root)
        for imp in imports_of(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", modules):
            why = violation(imp)
            if why:
                out.append(why)
    return out


def test_every_import_points_down() -> None:
    found = tree_violations(SRC)
    assert not found, "imports against the layer order:\n" + "\n".join(found)


# Imports by name at run time, invisible to the check above; each one is read and placed here:
# the CLI loads the command modules below it, the oracle its own submodules on first use.
KNOWN_DYNAMIC_IMPORTS = {"xladoctor.cli.main": "commands below it", "xladoctor.oracle": "its own submodules"}


def dynamic_imports(root: Path) -> set[str]:
    """Modules that call ``importlib.import_module`` or ``__import__``."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
                if name in ("import_module", "__import__"):
                    found.add(module_name(path, root))
    return found


def test_dynamic_imports_are_the_known_ones() -> None:
    assert dynamic_imports(SRC) == set(KNOWN_DYNAMIC_IMPORTS), \
        "a new importlib.import_module/__import__ call escapes the layer check: import by name, or read it and add it"


def test_every_unit_has_a_layer() -> None:
    units = {p.stem if p.is_file() else p.name for p in SRC.iterdir()
             if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists())}
    missing = sorted(units - set(UNIT_PLACE))
    assert not missing, f"top-level units without a layer: {missing}"


def test_contributing_architecture_names_every_unit() -> None:
    readme = (SRC.parent.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = readme.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    units = {p.name if p.is_dir() else p.stem for p in SRC.iterdir()
             if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists())}
    shown = {u for u in units if (f" {u}/" in section or f" {u}.py" in section)}
    assert units - {"__init__", "__main__"} <= shown, sorted(units - shown - {"__init__", "__main__"})


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / PACKAGE
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(("files", "expected"), [
    # ir reaching up into syntax, lazily inside a function
    ({"ir/__init__.py": "", "ir/shape.py": "def f():\n    from ..syntax.attributes import quote\n"},
     "xladoctor.ir.shape:2 imports xladoctor.syntax.attributes (layer ir -> layer syntax)"),
    # a type-only import counts
    ({"base/__init__.py": "", "base/errors.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..report.html import X\n"},
     "xladoctor.base.errors:3 imports xladoctor.report.html (layer base -> layer renderers)"),
    # analyses only along their order
    ({"inputs/__init__.py": "", "inputs/compare.py": "import xladoctor.catalogue.scanner\n"},
     "xladoctor.inputs.compare:1 imports xladoctor.catalogue.scanner "
     "(inputs -> catalogue, both analyses, against their order)"),
    # `from .. import x` resolves to the unit of x
    ({"catalogue/__init__.py": "", "catalogue/data.py": "from .. import cli\n", "cli/__init__.py": ""},
     "xladoctor.catalogue.data:1 imports xladoctor.cli (layer analyses -> layer front)"),
    # one command using another
    ({"cli/__init__.py": "", "cli/commands/__init__.py": "", "cli/commands/check.py": "from .hlo import summarize\n"},
     "xladoctor.cli.commands.check:1 imports xladoctor.cli.commands.hlo "
     "(command check -> command hlo: move what they share below commands/)"),
    # the package root's lazy re-exports are the front door; only its version is for everyone
    ({"report/__init__.py": "", "report/sarif.py": "from .. import __version__, parse_module\n"},
     "xladoctor.report.sarif:1 imports xladoctor (layer renderers -> layer front)"),
    # a pass reaching up to the pipeline that orders it
    ({"offload/__init__.py": "", "offload/pipeline.py": "", "offload/passes/__init__.py": "",
      "offload/passes/hlo_dce.py": "def f():\n    from ..pipeline import PIPELINE\n"},
     "xladoctor.offload.passes.hlo_dce:2 imports xladoctor.offload.pipeline (a pass -> offload.pipeline"),
    # a unit nobody placed
    ({"newthing.py": "from .base.errors import InputError\n"},
     "xladoctor.newthing:1 imports xladoctor.base.errors (newthing has no layer"),
])
def test_planted_upward_import_fails(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    found = tree_violations(_plant(tmp_path, files))
    assert len(found) == 1 and found[0].startswith(expected), found


def test_downward_and_private_imports_pass(tmp_path: Path) -> None:
    root = _plant(tmp_path, {
        "syntax/__init__.py": "", "syntax/p.py": "from ..ir.shape import Shape\nfrom ..base.errors import E\n",
        "catalogue/__init__.py": "", "catalogue/fields.py": "def f():\n    from ..inputs.messages import m\n",
        "cli/__init__.py": "", "cli/commands/__init__.py": "",
        "cli/commands/check.py": "from . import _confirm\nfrom ._common import x\n",
        "report/__init__.py": "", "report/html.py": "from .escape_more import y\nimport os\nimport jax\n",
        "offload/__init__.py": "", "offload/pipeline.py": "from .passes.hlo_dce import f\n",
        "offload/passes/__init__.py": "", "offload/passes/hlo_dce.py": "from ..annotations import g\n",
    })
    assert tree_violations(root) == []
