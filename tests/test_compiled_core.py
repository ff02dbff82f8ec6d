"""The opt-in compiled core (setup.py, ``XLADOCTOR_COMPILE=1``) gives the pure-Python package's answers.

Built here as a user's install builds it: setup.py's own module list through mypyc, into a copy
of ``src/`` in a temporary folder, then ``offload --json`` and ``check --json`` of a corpus
(bench/compare_outputs.py's: the bundled examples, tests/data/offload, generated modules and
ir_shapes' shapes) and the parser's reading of tests/test_xla_acceptance.py's texts (nested
instructions, inline computations: forms the corpus lacks) run on both trees and compared byte
for byte.  Skips, saying why, where mypyc,
a C compiler or Python's headers are missing; the build takes minutes on two cores (one large C
file), so the test is marked slow.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED = 40
"""offload_gen modules in the compared corpus (compare_outputs.py's full run has 200)."""


def _missing() -> str | None:
    """Why a compiled build cannot be made here, or None."""
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc (part of mypy) is not installed"
    if not any(shutil.which(cc) for cc in (os.environ.get("CC", "cc"), "gcc", "clang")):
        return "no C compiler (cc, gcc or clang) on PATH"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "Python's headers (Python.h) are not installed"
    return None


def _dump(src: Path, out: Path) -> str:
    """compare_outputs.py's dump of the corpus with ``src``'s package; returns where
    ``xladoctor.ir.instruction`` was imported from."""
    code = (f"import sys\nsys.path.insert(0, {str(ROOT / 'bench')!r})\nimport compare_outputs\n"
            f"sys.path.insert(0, {str(src)!r})\nfrom pathlib import Path\n"
            f"compare_outputs.dump(Path({str(out)!r}), generated={GENERATED})\n"
            "import json, test_xla_acceptance as xa, xla_corpus\n"  # the parser's rarer forms: nested, inline
            "texts = [t for t, _ in xa.REFUSED.values()] + list(xa.ACCEPTED.values())\n"
            "for k, t in enumerate(texts):\n"
            f"    Path({str(out)!r}, f'xla_acceptance_{{k:03}}.json').write_text(json.dumps(xla_corpus.our_view(t)))\n"
            "import xladoctor.ir.instruction as m\nprint(m.__file__)\n")
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH="")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def compiled_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``src/`` with setup.py's core built beside it (once for this file's tests)."""
    why = _missing()
    if why:
        pytest.skip(f"no compiled build here: {why}")
    tree = tmp_path_factory.mktemp("tree")
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    env = dict(os.environ, XLADOCTOR_COMPILE="1")
    built = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", "2"], cwd=tree, env=env,
                           capture_output=True, text=True, timeout=3000)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    assert list((tree / "src" / "xladoctor" / "ir").glob("instruction.*.so")), "no extension module was built"
    return tree / "src"


@pytest.mark.slow
def test_compiled_core_gives_the_pure_python_answers(compiled_src: Path, tmp_path: Path) -> None:
    compiled, pure = tmp_path / "compiled", tmp_path / "pure"
    assert _dump(compiled_src, compiled).endswith(".so")  # the compiled core is what ran
    assert _dump(ROOT / "src", pure).endswith(".py")
    names = sorted(p.name for p in pure.iterdir())
    assert len(names) > 2 * (GENERATED + 100)
    assert sorted(p.name for p in compiled.iterdir()) == names
    differ = [n for n in names if (pure / n).read_bytes() != (compiled / n).read_bytes()]
    assert not differ, f"{len(differ)} of {len(names)} outputs differ, e.g. {differ[:5]}"


REFUSALS = """import xladoctor, xladoctor.syntax.hlo_parser as p
for bad in (None, 3, ["HloModule m"], b"HloModule m" + bytes([255])):
    try:
        xladoctor.parse_module(bad)
    except (TypeError, xladoctor.InputError) as e:
        print(type(e).__name__, e)
for bad in (None, b"f32[2]"):
    try:
        xladoctor.parse_shape(bad)
    except TypeError as e:
        print(type(e).__name__, e)
print(p.__file__)
"""
"""What the public parser says to what is not UTF-8 text, then where it was imported from."""


@pytest.mark.slow
def test_parse_module_refuses_what_is_not_text_in_the_same_words_compiled(compiled_src: Path) -> None:
    """test_hostile_input_2.py's ``parse_module(None)`` against the compiled core: mypyc checks a
    ``str | bytes`` argument itself, in its own words, so the public function takes ``object`` and
    the refusal is ours in both builds."""
    def said(src: Path) -> list[str]:
        env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(src))
        done = subprocess.run([sys.executable, "-c", REFUSALS], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.splitlines()

    compiled, pure = said(compiled_src), said(ROOT / "src")
    assert compiled[-1].endswith(".so") and pure[-1].endswith(".py")  # each build is what ran
    assert compiled[:-1] == pure[:-1]
    assert pure[0] == "TypeError parse_module() takes the text as str (or UTF-8 bytes), not NoneType"
    assert [line.split()[0] for line in pure[:-1]] == ["TypeError", "TypeError", "TypeError", "InputError", "TypeError", "TypeError"]
    assert pure[-3:-1] == ["TypeError parse_shape() takes the shape as str, not NoneType",
                           "TypeError parse_shape() takes the shape as str, not bytes"]


def test_version_says_which_core_runs(tmp_path: Path) -> None:
    """``--version`` names the core: pure Python from a source tree without extension modules,
    the compiled core where ``ir/instruction``'s extension module sits beside its source."""
    cli_main = importlib.import_module("xladoctor.cli.main")  # the package's ``main`` is the function

    assert cli_main.version_line().endswith(("(compiled core: no)", "(compiled core: yes)"))
    fake = tmp_path / "xladoctor"
    (fake / "cli").mkdir(parents=True)
    (fake / "ir").mkdir()
    shutil.copy(cli_main.__file__, fake / "cli" / "main.py")
    (fake / "__init__.py").write_text("__version__ = '9'\n")
    (fake / "cli" / "__init__.py").write_text("")
    code = "from xladoctor.cli.main import main\nmain(['--version'])\n"
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = lambda: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,  # noqa: E731
                                 timeout=120).stdout
    assert run() == "xladoctor 9 (compiled core: no)\n"
    (fake / "ir" / f"instruction{sysconfig.get_config_var('EXT_SUFFIX')}").write_bytes(b"")
    assert run() == "xladoctor 9 (compiled core: yes)\n"


def _traverse_visits(c_source: str) -> dict[str, list[str]]:
    """Each compiled class' collector traverse (mypyc's ``<class>_traverse`` in the generated C):
    the fields it visits, in order."""
    import re
    found = re.finditer(r"(\w+)_traverse\(\w+ \*self, visitproc visit, void \*arg\)\s*\{(.*?)\n\s*int rv", c_source, re.S)
    return {m.group(1): re.findall(r"Py_VISIT\((self->[\w.]+)\)", m.group(2)) for m in found}


@pytest.mark.slow
def test_no_compiled_class_shows_the_collector_a_field_twice(compiled_src: Path) -> None:
    """A field a base class declares and a subclass annotates again (``self._users: T = ...`` in
    ``__init__``) is one field to mypyc but listed twice in its traverse: the collector then counts
    one reference as two, and a parsed module's cycles were never freed (every 100k-instruction
    parse kept ~38 MiB in a library process or ``check DIR``).  Assign such fields unannotated."""
    generated = compiled_src.parent / "build" / "__native_xladoctor_core.c"
    visits = _traverse_visits(generated.read_text())
    assert len(visits) > 50 and any(name.endswith("HloInstruction") for name in visits)
    twice = {name: sorted({f for f in fields if fields.count(f) > 1}) for name, fields in visits.items()}
    assert not {name: fields for name, fields in twice.items() if fields}


FREED = """import gc, sys
from pathlib import Path
from xladoctor.ir.instruction import HloInstruction
from xladoctor.ir.module import HloModule
from xladoctor.offload import analyze_host_offload
from xladoctor.syntax.hlo_parser import parse_module
text = Path(sys.argv[1]).read_text()
for _ in range(2):
    module = parse_module(text)
    result = analyze_host_offload(module)
    del module, result
gc.collect()
print(sum(isinstance(o, (HloModule, HloInstruction)) for o in gc.get_objects()))
import xladoctor.ir.instruction as m
print(m.__file__)
"""
"""Parse and analyse a module twice, drop both, collect: how many modules and instructions live on."""


@pytest.mark.slow
def test_a_dropped_module_is_freed_in_both_builds(compiled_src: Path) -> None:
    example = ROOT / "src" / "xladoctor" / "examples" / "e1200_offloaded_activation.hlo"
    for src, suffix in ((compiled_src, ".so"), (ROOT / "src", ".py")):
        env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(src))
        done = subprocess.run([sys.executable, "-c", FREED, str(example)], capture_output=True, text=True, env=env,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        alive, where = done.stdout.split()
        assert where.endswith(suffix) and alive == "0", (src, alive)
