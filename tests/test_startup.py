"""Start-up: each command imports only what it uses (the time itself is measured in bench/, never here)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("xladoctor.syntax.hlo_parser", "xladoctor.offload", "xladoctor.offload.analysis", "xladoctor.inputs.compare")


def _after(argv: list[str], listed: str, stdin: str = "") -> list[str]:
    """Run ``argv`` in a fresh interpreter, then evaluate ``listed`` (a list of module names) there."""
    code = ("import sys, io, contextlib, json\n"
            "from xladoctor.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            f"print(json.dumps({listed}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, input=stdin)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _modules_after(argv: list[str], stdin: str = "") -> set[str]:
    return set(_after(argv, "sorted(m for m in sys.modules if m.startswith('xladoctor'))", stdin))


def _loaded_of(argv: list[str], names: tuple[str, ...]) -> set[str]:
    """Which of ``names`` (any module, standard library included) are imported after running ``argv``."""
    return set(_after(argv, f"[m for m in {names!r} if m in sys.modules]"))


def test_version_imports_no_command():
    loaded = _modules_after(["--version"])
    assert not {m for m in loaded if m.startswith(("xladoctor.cli.commands.", "xladoctor.syntax", "xladoctor.ir",
                                                   "xladoctor.catalogue", "xladoctor.offload"))}, loaded


def test_version_is_answered_before_any_other_import():
    """``xladoctor --version`` (issue 36) loads the package and the CLI module and nothing else of
    ours, nor argparse, typing or re (the console script's own ``import re`` aside, measured in
    bench/bench_all.py's start-up rows)."""
    code = ("import sys\nbefore = set(sys.modules)\nfrom xladoctor.cli.main import main\nmain(['--version'])\n"
            "print(sorted(set(sys.modules) - before))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("xladoctor "), out.stderr
    new = set(json.loads(out.stdout.splitlines()[-1].replace("'", '"')))
    assert {m for m in new if m.startswith("xladoctor")} == {"xladoctor", "xladoctor.cli", "xladoctor.cli.main"}, new
    assert not {"argparse", "typing", "re", "xladoctor.base.labels", "xladoctor.base.errors"} & new, new


def test_version_reads_no_label_file():
    """--version prints no help, so neither the TOML reader nor importlib.resources is loaded."""
    assert not _loaded_of(["--version"], ("tomllib", "importlib.resources"))


def _label_tables_read(argv: list[str]) -> int:
    """How many (language, area) label tables ``argv`` read."""
    return _after(argv, "[len(sys.modules['xladoctor.base.labels']._AREAS) "
                        "if 'xladoctor.base.labels' in sys.modules else 0]")[0]


def test_a_run_that_prints_no_help_reads_no_help_words():
    """The options' help is looked up only where it can be printed: 'shape --json' prints no label,
    so no label table is read (with '--help' they are); the label files, plain tables of one-line
    strings, never need the TOML reader (labels._plain_toml)."""
    assert _label_tables_read(["shape", "f32[2,3]", "--json"]) == 0
    assert _label_tables_read(["shape", "--help"]) > 0
    assert not _loaded_of(["shape", "f32[2,3]", "--json"], ("tomllib",))
    assert not _loaded_of(["shape", "--help"], ("tomllib",))


def test_shape_reads_labels_beside_the_module_not_through_importlib_resources():
    """importlib.resources pulls pathlib, tempfile, zipfile: the label files are opened directly."""
    assert not _loaded_of(["shape", "f32[2,3]"], ("importlib.resources", "tempfile", "zipfile"))


def test_naming_a_json_schema_loads_no_model():
    """Every --json document names its schema; that is a string, not the findings model, the IR's
    instructions or importlib.resources (the schema files are read only by whoever validates)."""
    loaded = _modules_after(["shape", "f32[2,3]", "--json"])
    assert "xladoctor.findings.schema_files" in loaded and "xladoctor.base.json_plain" in loaded
    assert not {"xladoctor.findings.model", "xladoctor.findings.serialise", "xladoctor.ir.opcodes"} & loaded, loaded
    assert not _loaded_of(["shape", "f32[2,3]", "--json"], ("importlib.resources",))


def test_shape_imports_neither_the_hlo_parser_nor_the_offload_analysis():
    loaded = _modules_after(["shape", "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"])
    assert "xladoctor.cli.commands.shape" in loaded
    assert not set(HEAVY) & loaded, set(HEAVY) & loaded
    assert "xladoctor.ir.opcodes" not in loaded  # xladoctor.ir re-exports on first use
    assert not {m for m in loaded if m.startswith("xladoctor.cli.commands.") and m != "xladoctor.cli.commands.shape"
                and m != "xladoctor.cli.commands._common"}


def test_explain_and_check_on_a_log_do_not_import_the_hlo_parser(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    for argv in (["explain", str(log)], ["check", str(log)], ["explain", "E1200"]):
        loaded = _modules_after(argv)
        assert not set(HEAVY) & loaded, (argv, set(HEAVY) & loaded)


def test_check_on_a_module_without_offload_tokens_does_not_parse_it(tmp_path):
    hlo = tmp_path / "m.hlo"
    hlo.write_text("HloModule m\n\nENTRY e {\n  ROOT p = f32[2]{0} parameter(0)\n}\n")
    loaded = _modules_after(["check", str(hlo)])
    assert "xladoctor.triage.hlo_triage" in loaded and not set(HEAVY) & loaded


def test_check_help_builds_its_arguments_without_the_checks():
    """`check --help` imports the command's arguments only: the walk, the pipeline and the findings come with run()."""
    loaded = _modules_after(["check", "--help"])
    assert "xladoctor.cli.commands.check" in loaded
    assert not {m for m in loaded if m.startswith(("xladoctor.route.folder", "xladoctor.route.dispatch", "xladoctor.route.module_analysis", "xladoctor.findings",
                                                   "xladoctor.report.check_text"))}, loaded


def test_reading_a_file_does_not_import_dataclasses():
    """files.WalkEntry is a NamedTuple: dataclasses pulls inspect, ast, dis and tokenize into every start-up."""
    names = ("xladoctor.base.files", "dataclasses", "inspect")
    assert set(_after(["shape", "-"], f"[m for m in {names!r} if m in sys.modules]", stdin="f32[2]\n")) == \
        {"xladoctor.base.files"}  # read_input reads stdin through base/files


def test_explain_code_reads_only_its_own_catalogue_file():
    """`explain E1200` validates and shows data/E1200.toml alone (issue 36): the other 30 files are not
    parsed, and neither importlib.resources nor difflib is loaded."""
    read = _after(["explain", "E1200"], "[sys.modules['xladoctor.catalogue.loader'].load_catalogue.cache_info().currsize]")
    assert read == [0]
    assert not _loaded_of(["explain", "E1200"], ("importlib.resources", "difflib", "xladoctor.catalogue.scanner",
                                                 "dataclasses", "inspect"))  # catalogue.model.Frozen


def test_a_small_log_starts_no_worker_machinery(tmp_path):
    """A log under fastscan.PARALLEL_MIN_BYTES is scanned in-process: multiprocessing and
    concurrent.futures are not even imported (they were ~20 ms of a small scan's start-up)."""
    log = tmp_path / "job.log"
    log.write_text("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    for argv in (["explain", str(log)], ["check", str(log)]):
        assert not _loaded_of(argv, ("multiprocessing", "concurrent.futures", "xladoctor.base.parallel")), argv


def test_building_the_arguments_does_not_ask_the_terminal():
    """argparse checks each argument's metavar with a formatter that asked the terminal's width,
    importing shutil (bz2, lzma, fnmatch); cli._Parser gives that check a fixed width, so a run
    that prints no help imports none of them (help itself is still drawn to the terminal's width)."""
    assert not _loaded_of(["shape", "f32[2,3]"], ("shutil", "bz2", "lzma"))
    assert not _loaded_of(["--version"], ("shutil",))


# -- issue 36 item 5, second pass: shape without argparse, typing or dataclasses; the catalogue without tomllib --

SHAPE = "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"
NOT_AT_START = ("argparse", "gettext", "locale", "typing", "dataclasses", "inspect", "contextlib", "tomllib", "datetime",
                "shutil", "string", "threading", "signal", "textwrap")


def _loaded_by(argv: list[str], names: tuple[str, ...], cwd: Path | None = None) -> set[str]:
    """Which of ``names`` a run of ``argv`` imports, in an interpreter that imports nothing else (the
    helpers above import contextlib and json themselves); the list is written to stderr.  ``cwd``: a
    folder with no pyproject.toml above it (the commands read their settings from one with tomllib)."""
    code = ("import sys\nfrom xladoctor.cli.main import main\ntry:\n"
            f"    main({argv!r})\nexcept SystemExit:\n    pass\n"
            f"sys.stderr.write(repr([m for m in {names!r} if m in sys.modules]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)
    assert out.returncode == 0, out.stderr
    return set(ast.literal_eval(out.stderr.splitlines()[-1]))


def test_shape_imports_none_of_the_heavy_standard_modules():
    """``xladoctor shape SHAPE`` reads its plain command line without argparse, and the IR's values
    are written-out frozen classes (ir.value.FrozenValue), not dataclasses; no typing anywhere on its way."""
    assert not _loaded_by(["shape", SHAPE], NOT_AT_START + ("json",))
    # --json writes its document with base/json_plain (tests/test_json_plain.py: json.dumps' text)
    assert not _loaded_by(["shape", SHAPE, "--json"], NOT_AT_START + ("json",))
    assert not _loaded_by(["shape", "f32[2]", "--tpu", "v5e"], ("dataclasses", "typing", "tomllib"))  # argparse's path


def test_plain_shape_command_lines_are_read_as_argparse_reads_them():
    from xladoctor.cli.main import build_parser, plain_arguments

    for argv in (["shape", SHAPE], ["shape", SHAPE, "--json"], ["shape", "--json", SHAPE], ["shape", "-"],
                 ["shape", "", "--json", "--json"], ["shape", "(f32[2], s8[])"], ["shape", "f32[2] {0}"]):
        args = vars(build_parser("shape", None).parse_args(argv))
        assert args.pop("_run").__module__ == "xladoctor.cli.commands.shape"
        assert plain_arguments(argv) == args, argv
    for argv in ([], ["shape"], ["shape", "--js", "f32[2]"], ["shape", "--", "f32[2]"], ["shape", "a", "b"],
                 ["shape", "f32[2]", "--tpu", "v5e"], ["shape", "-h"], ["shape", "--help"], ["shape", "-1"],
                 ["explain", "E1200", "--width", "80"], ["--version", "shape", "f32[2]"]):
        assert plain_arguments(argv) is None, argv


def test_explain_code_imports_neither_tomllib_nor_typing(tmp_path):
    """The catalogue's TOML is read by catalogue/plain_toml.py; the terminal's width without shutil."""
    assert not _loaded_by(["explain", "E1200"], ("tomllib", "typing", "shutil", "json", "dataclasses", "datetime"),
                          tmp_path)


def test_a_log_scan_reads_the_catalogue_without_tomllib(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    for argv in (["explain", str(log), "--json"], ["check", str(log), "--json"]):
        assert not _loaded_by(argv, ("tomllib", "datetime"), tmp_path), argv


def test_a_log_without_an_anchor_builds_no_catalogue(tmp_path):
    """A clean log's scan needs only the anchors (catalogue/scan_table_data.py, issue 36 item 6): the
    catalogue is not built, its parsed files not loaded, fields.py not imported; nor is the loader
    with its model, TOML and label readers (catalogue/data_files.py reads the files' bytes, h52s)."""
    log = tmp_path / "job.log"
    log.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
    listed = ("[m in sys.modules for m in ('xladoctor.catalogue.loader', 'xladoctor.catalogue.model', "
              "'xladoctor.catalogue.plain_toml', 'xladoctor.catalogue.fields', 'xladoctor.catalogue.catalogue_data')]")
    for argv in (["explain", str(log), "--json"], ["check", str(log), "--json"]):
        assert _after(argv, listed) == [False] * 5, argv
    with_finding = tmp_path / "oom.log"
    with_finding.write_text("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    assert _after(["explain", str(with_finding), "--json"], listed)[:2] == [True, True]


def _type_checking_fields(path: str, name: str) -> tuple[tuple[str, ...], dict[str, object]]:
    """The fields and defaults of the NamedTuple ``name`` that a module spells for the type checker only."""
    tree = ast.parse((Path(__file__).resolve().parents[1] / "src" / "xladoctor" / path).read_text())
    (cls,) = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    body = [n for n in cls.body if isinstance(n, ast.AnnAssign)]
    fields = tuple(n.target.id for n in body if isinstance(n.target, ast.Name))
    return fields, {n.target.id: ast.literal_eval(n.value) for n in body
                    if n.value is not None and isinstance(n.target, ast.Name)}


def test_the_named_tuples_made_without_typing_have_the_type_checkers_fields():
    """files.WalkEntry and labels.Text are collections.namedtuple's at run time (typing is not imported)
    and typing.NamedTuple's for mypy: the two spellings must agree."""
    from xladoctor.base.files import WalkEntry
    from xladoctor.base.labels import Text

    for cls, path, spelled in ((WalkEntry, "base/files.py", "_WalkFields"),
                               (Text, "base/labels/__init__.py", "_TextFields")):
        fields, defaults = _type_checking_fields(path, spelled)
        assert cls._fields == fields and cls._field_defaults == defaults, cls
        assert cls.__name__ == cls.__bases__[0].__name__ and not hasattr(cls(*fields[:1] * len(fields)), "__dict__")


GRAMMAR = ("xladoctor.syntax.shape_parser", "xladoctor.syntax.reader", "xladoctor.syntax.layout_parser",
           "xladoctor.syntax.layout_warnings")
# The patterns compiled in the child, less json's own (the harness imports json before the command).
_COMPILED = ("[k[1] for name in dir(__import__('re')) if name.startswith('_cache')"
             " for k in getattr(__import__('re'), name) if isinstance(k, tuple) and isinstance(k[1], str)"
             " and k[1] not in {p.pattern for m in ('json.decoder', 'json.encoder', 'json.scanner')"
             " for p in vars(sys.modules[m]).values() if isinstance(p, __import__('re').Pattern)}]")


def test_shape_reads_no_file_module_and_compiles_no_pattern():
    """``xladoctor shape`` (issue 36 item 5): ``located`` lives in base/errors, so base/files (file
    reading, compression) is not imported; the label files are read with str methods; a plain
    spelling is read by syntax/shape_plain.py, so the grammar's modules (a dozen module-level
    patterns) are not imported; printable ASCII output goes through the terminal guard without its
    pattern.  Not one pattern is compiled (the console script's own ``re.sub`` aside)."""
    for argv in (["shape", SHAPE], ["shape", SHAPE, "--json"], ["shape", "f32[2,3]"]):
        loaded = _modules_after(argv)
        assert "xladoctor.syntax.shape_plain" in loaded and "xladoctor.base.files" not in loaded, argv
        assert not set(GRAMMAR) & loaded, (argv, set(GRAMMAR) & loaded)
        assert _after(argv, _COMPILED) == [], argv
    assert "xladoctor.cli.commands._common" not in _modules_after(["shape", SHAPE])  # print_json: --json only


def test_shape_asks_the_grammar_for_what_the_plain_reader_does_not_take():
    """A tuple, a memory space, a dynamic size, an error, a warned layout: the grammar's parser reads
    them (its errors and warnings, located as ever), and compiles only patterns it uses."""
    from xladoctor.base.labels import reader
    from xladoctor.syntax import layout_warnings

    unused = {reader._PLAIN_LINE, reader._HEADER, layout_warnings._RESULT, layout_warnings._NAME}
    for argv in (["shape", "(f32[2], s8[4])"], ["shape", "f32[8]{0:S(5)}", "--json"], ["shape", "f32[<=4]"],
                 ["shape", "f32[2,"]):
        loaded = _modules_after(argv)
        assert "xladoctor.syntax.shape_parser" in loaded, argv
        assert not set(_after(argv, _COMPILED)) & unused, argv
    out = subprocess.run([sys.executable, "-m", "xladoctor", "shape", "f32[2,3]{0,0}"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "<shape>:1:9: warning: E0002" in out.stderr, out.stderr
    out = subprocess.run([sys.executable, "-m", "xladoctor", "shape", "f32[2,"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and out.stderr.startswith("<shape>:1:7: "), out.stderr
    assert not _loaded_by(["shape", SHAPE], ("collections.abc",))


# -- issue 36 item 5, fourth pass: the modules on shape's path, named --

SHAPE_MODULES = {"xladoctor", "xladoctor.base", "xladoctor.base.errors", "xladoctor.base.escape", "xladoctor.base.labels",
                 "xladoctor.base.labels.precomputed",
                 "xladoctor.base.units", "xladoctor.cli", "xladoctor.cli.commands", "xladoctor.cli.commands.shape",
                 "xladoctor.cli.main", "xladoctor.ir", "xladoctor.ir.jax_layout", "xladoctor.ir.primitive",
                 "xladoctor.ir.shape", "xladoctor.ir.sizes", "xladoctor.ir.value", "xladoctor.syntax",
                 "xladoctor.syntax.shape_plain"}


def test_shape_imports_exactly_its_modules():
    """Each module is ~0.1 ms of cold start-up: ``shape`` takes JAX's layout spelling from
    ``ir/jax_layout`` (not the ``inputs`` package), and ``--json`` adds only the JSON plumbing
    (base/json_plain, not ``json``) and the schema's name."""
    assert _modules_after(["shape", SHAPE]) == SHAPE_MODULES
    assert _modules_after(["shape", SHAPE, "--json"]) - SHAPE_MODULES == {
        "xladoctor.base.json_plain", "xladoctor.cli.commands._common", "xladoctor.findings",
        "xladoctor.findings.schema_files"}


# -- issue 36 item 5, fifth pass: no re (nor what it brings) on shape's path --

WRAPPER_STDLIB = ("re", "enum", "functools", "collections", "operator", "types", "keyword", "reprlib")
"""What pip's console-script wrapper before pip 25 (``import re``) loads beyond a bare interpreter:
pip 25's wrapper, uv's and ``python -m`` (runpy aside) start without them, so the commands must not
bring them back (~5 ms of a ~11 ms bare start, measured in bench/startup.py)."""


def _loaded_at_start(names: tuple[str, ...]) -> set[str]:
    """Which of ``names`` the interpreter itself has loaded before any code runs (a site-packages
    ``.pth`` file may import some: they are not the command's)."""
    code = f"import sys\nsys.stderr.write(repr([m for m in {names!r} if m in sys.modules]))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    return set(ast.literal_eval(out.stderr.splitlines()[-1]))


def test_shape_and_version_import_no_re_nor_functools():
    there = _loaded_at_start(WRAPPER_STDLIB)
    if "re" in there:  # a .pth file imports it: nothing here could show that a command does
        pytest.skip(f"this interpreter imports {sorted(there)} before any code runs")
    for argv in (["shape", SHAPE], ["shape", SHAPE, "--json"], ["shape", "f32[2,3]"], ["--version"]):
        assert not _loaded_by(argv, WRAPPER_STDLIB) - there, argv


def test_the_plain_namespace_is_types_simple_namespace():
    """``_parsed`` builds a plain command line's namespace as ``type(sys.implementation)``, which is
    ``types.SimpleNamespace`` (not imported for it)."""
    import types

    from xladoctor.cli.main import _parsed

    args = _parsed(["shape", SHAPE])
    assert type(args) is types.SimpleNamespace and args.shape == SHAPE and not args.json


def test_shape_reads_no_label_file():
    """``shape``'s words come from labels/precomputed.py (generated from the TOML files, checked by
    tests/test_labels.py): the reader is not imported and no label file is opened; ``--json`` prints
    no label and imports neither; another area (``--help``'s) is still read from its file."""
    loaded = _modules_after(["shape", SHAPE])
    assert "xladoctor.base.labels.precomputed" in loaded and "xladoctor.base.labels.reader" not in loaded
    assert not {"xladoctor.base.labels.precomputed", "xladoctor.base.labels.reader"} & _modules_after(
        ["shape", SHAPE, "--json"])
    assert "xladoctor.base.labels.reader" in _modules_after(["shape", "--help"])


# -- issue 36 item 5, h44q: ``python -m xladoctor`` adds only the interpreter's runpy --

def _imported(argv: list[str], tmp_path) -> set[str]:
    """Every module ``argv`` (a Python command line) imports, from ``-X importtime``'s report: the
    console entry ends with ``os._exit``, so ``sys.modules`` cannot be read after it."""
    out = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")
            and not line.rstrip().endswith("imported package")}


def test_python_m_imports_what_the_console_script_does_and_runpy(tmp_path):
    """``python -m xladoctor shape`` costs ~1.6-1.9x a bare start where pip 25's script costs
    ~1.2-1.4x (bench/startup.py): the difference is ``runpy``, which the interpreter imports for
    ``-m`` with importlib.util, contextlib, functools and collections before any code of ours runs
    (``python -c "import runpy"`` alone is the whole gap, h44q).  ``__main__.py`` must add nothing
    else: what the declared console script imports, plus runpy's own."""
    script = tmp_path / "xladoctor-script.py"
    script.write_text("import sys\nfrom xladoctor.cli.console import main\nsys.exit(main())\n")
    with_m = _imported(["-m", "xladoctor", "shape", SHAPE], tmp_path)
    as_script = _imported([str(script), "shape", SHAPE], tmp_path)
    runpy_own = _imported(["-c", "import runpy"], tmp_path)
    assert "runpy" in with_m and "xladoctor.cli.commands.shape" in with_m
    assert not with_m - as_script - runpy_own, sorted(with_m - as_script - runpy_own)
    assert not as_script - with_m, sorted(as_script - with_m)


# -- issue 36 item 1, h45i: ``offload FILE`` imports what its output draws --

_FIRST_HOUR = Path(__file__).resolve().parent / "data" / "first_hour"
_EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
FIX_ONLY = {"xladoctor.route.fix", "xladoctor.cli.commands._atomic", "xladoctor.cli.commands._fix"}
"""What only ``--fix``, ``--diff``, ``-o`` or ``--html`` use: the fix, the diff, the atomic writes."""
FINDING_ONLY = {"xladoctor.findings.edits", "xladoctor.report.finding_text"}
"""What only a finding to draw uses: its fixes' edits of the text, its text."""


def test_offload_without_a_finding_imports_neither_the_fix_nor_the_findings_renderer(tmp_path):
    """A clean verdict and a NO VERDICT (a JAX lowering read without its StableHLO), as text and
    ``--json``: no fix machinery, no finding's text or edits, and each output's renderer alone."""
    alone = tmp_path / "remat_offload.hlo"
    alone.write_text((_FIRST_HOUR / "remat_offload.hlo").read_text())  # its .mlir left behind: NO VERDICT
    for path in (str(_FIRST_HOUR / "remat_offload.hlo"), str(alone)):
        text = _modules_after(["offload", path])
        as_json = _modules_after(["offload", path, "--json"])
        assert "xladoctor.offload.analysis" in text and "xladoctor.offload.analysis" in as_json
        assert not (FIX_ONLY | FINDING_ONLY) & (text | as_json), (path, (FIX_ONLY | FINDING_ONLY) & (text | as_json))
        assert "xladoctor.report.offload_text" in text and "xladoctor.report.offload_json" not in text, path
        assert "xladoctor.report.offload_json" in as_json and "xladoctor.report.offload_text" not in as_json, path
        assert "xladoctor.report.snippet" not in as_json, path


def test_offload_with_a_finding_imports_its_renderer_and_edits_but_no_fix():
    """An E1200: the finding's text and its fixes' edits (the JSON carries them) are imported; the
    fix and the writes only with ``--fix``."""
    e1200 = str(_EXAMPLES / "e1200_offloaded_activation.hlo")
    text = _modules_after(["offload", e1200])
    as_json = _modules_after(["offload", e1200, "--json"])
    assert text >= FINDING_ONLY and "xladoctor.findings.edits" in as_json
    assert "xladoctor.report.finding_text" not in as_json
    assert not FIX_ONLY & (text | as_json), FIX_ONLY & (text | as_json)
    assert {"xladoctor.route.fix", "xladoctor.cli.commands._fix"} <= _modules_after(["offload", e1200, "--fix", "host",
                                                                                        "--diff"])


def test_the_offload_results_frozen_values_are_not_dataclasses():
    """offload/result.py's values are ir.value.FrozenValue's (no class made by dataclasses per run);
    they compare, hash, print and copy as the frozen dataclasses they were."""
    import dataclasses
    import pickle

    from xladoctor.offload import result
    from xladoctor.offload.kinds import Status

    frozen = [result.PathHop, result.OutputMismatch, result.PassFailure, result.HostComputeConversion,
              result.InsertedInstruction, result.DusOutcome, result.DroppedOffload, result.OutputMovedToHost,
              result.WalkStart]
    assert not [c for c in frozen if dataclasses.is_dataclass(c)]
    hop = result.PathHop("a", (0,), "copy", "f32[2]")
    assert hop == result.PathHop("a", (0,), "copy", "f32[2]", None, "") and hash(hop) == hash(("a", (0,), "copy",
                                                                                               "f32[2]", None, ""))
    assert repr(hop) == "PathHop(instruction='a', shape_index=(0,), opcode='copy', shape='f32[2]', location=None, " \
                        "computation='')"
    with pytest.raises(AttributeError):
        hop.opcode = "add"  # type: ignore[misc]
    failure = result.PassFailure(Status.INTERNAL, "m")
    assert failure.replace(first=True) == result.PassFailure(Status.INTERNAL, "m", None, True)
    dropped = result.DroppedOffload("m", "no users", ("u",))
    assert not hasattr(dropped, "__dict__") and pickle.loads(pickle.dumps(dropped)) == dropped


def test_a_clean_offload_reads_no_catalogue_and_no_stablehlo_reader():
    """No finding and no NO VERDICT: no title to look up, so the catalogue is not imported (nor, with
    no --select/--ignore, to list its codes); no NAME.mlir beside, so the StableHLO reader is not."""
    clean = str(Path(__file__).resolve().parent / "data" / "offload" / "01_basic_dus_ds.hlo")
    for argv in (["offload", clean], ["offload", clean, "--json"]):
        loaded = _modules_after(argv)
        assert "xladoctor.offload.analysis" in loaded
        assert not {m for m in loaded if m.startswith(("xladoctor.catalogue", "xladoctor.syntax.stablehlo_main"))}, \
            (argv, sorted(m for m in loaded if m.startswith(("xladoctor.catalogue", "xladoctor.syntax.stablehlo"))))
    assert "xladoctor.catalogue.loader" in _modules_after(["offload", clean, "--select", "E12"])
    with_mlir = str(_FIRST_HOUR / "remat_offload.hlo")  # its remat_offload.mlir beside it is read
    assert "xladoctor.syntax.stablehlo_main" in _modules_after(["offload", with_mlir])


# -- issue 36 item 6, h45s: a log's report imports no IR, and each output form only its own writer --

_NOT_FOR_A_CLEAN_LOG = ("xladoctor.ir.instruction", "xladoctor.ir.module", "xladoctor.ir.shape", "xladoctor.ir.opcodes",
                        "xladoctor.syntax.companion", "xladoctor.oracle.confirmation", "xladoctor.report.finding_text",
                        "xladoctor.report.confirm", "xladoctor.report.snippet", "xladoctor.triage.provenance",
                        "xladoctor.syntax.tensors_file", "xladoctor.findings.module_details",
                        "xladoctor.findings.finding", "xladoctor.findings.source_line", "xladoctor.ir.metadata")


def test_a_clean_log_imports_no_ir_and_no_finding_renderer(tmp_path):
    """``findings.model`` takes ``SourceLocation`` from ``ir.metadata`` (not ``ir.instruction``, which
    brings the opcodes, shapes and packed fields), ``check`` looks for a StableHLO companion only
    beside an HLO-named file, and the finding and ``--confirm`` renderers come with a finding; whether
    the input is a module is asked of ``syntax.module_sniff``, not of provenance and tensors_file;
    of the details, only a log's two classes are created (``findings.log_details``)."""
    log = tmp_path / "job.log"
    log.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
    for argv in (["explain", str(log)], ["explain", str(log), "--json"], ["check", str(log)],
                 ["check", str(log), "--json"]):
        loaded = _modules_after(argv)
        assert "xladoctor.findings.model" in loaded, argv
        assert not set(_NOT_FOR_A_CLEAN_LOG) & loaded, (argv, set(_NOT_FOR_A_CLEAN_LOG) & loaded)
    assert "xladoctor.report.explain_json" not in _modules_after(["explain", str(log)])
    assert "xladoctor.report.explain_text" not in _modules_after(["explain", str(log), "--json"])


def test_check_json_of_one_clean_log_reads_no_label_file_and_no_text_report(tmp_path):
    """One file draws no progress bar and ``--json`` writes no text report and no file: its words
    (labels' reader of the TOML files), check_text and _atomic are not loaded (issue 36, h53s);
    the text run and a run of two files under ``--json`` still load what they draw."""
    log = tmp_path / "job.log"
    log.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
    skipped = {"xladoctor.base.labels.reader", "xladoctor.report.check_text", "xladoctor.cli.commands._atomic"}
    assert not skipped & _modules_after(["check", str(log), "--json"])
    assert "xladoctor.report.check_text" in _modules_after(["check", str(log)])
    assert "xladoctor.cli.commands._atomic" in _modules_after(["check", str(log), "--html", str(tmp_path / "r.html")])


def test_a_log_with_a_finding_still_draws_it(tmp_path):
    """What was made lazy comes back with a finding: check's text report renders it."""
    log = tmp_path / "job.log"
    log.write_text("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    assert {"xladoctor.report.finding_text", "xladoctor.findings.finding"} <= _modules_after(["check", str(log)])
    assert {"xladoctor.report.explain_text", "xladoctor.findings.finding"} <= _modules_after(["explain", str(log)])


def test_the_finding_classes_are_found_where_they_always_were():
    """``findings.model`` names a finding's classes (PEP 562): the same class by every route."""
    from xladoctor.findings import Finding as from_package
    from xladoctor.findings import finding, model

    assert model.Finding is finding.Finding is from_package
    assert (model.Hop, model.Location, model.Fix, model.Edit) == (finding.Hop, finding.Location, finding.Fix,
                                                                   finding.Edit)
    from xladoctor.findings.source_line import SourceLine
    from xladoctor.ir.metadata import SourceLocation

    assert (model.SourceLine, model.SourceLocation) == (SourceLine, SourceLocation)
    with pytest.raises(AttributeError):
        model.NotAClass  # noqa: B018


def test_check_looks_for_a_companion_beside_the_files_the_companion_rule_names():
    from xladoctor.route.folder import COMPANION_OWNERS
    from xladoctor.syntax.companion import HLO_SUFFIXES

    assert COMPANION_OWNERS == HLO_SUFFIXES


def test_the_details_are_found_where_they_always_were():
    """``findings.details`` names every details class and ``offload_of`` (each loaded with its own
    module on first use), and nothing else."""
    import xladoctor.findings.details as details
    from xladoctor.findings import log_details, module_details

    for name in details.__all__:
        if name != "Details":
            value = getattr(details, name)
            assert value is getattr(log_details if name in ("ScannedLog", "SkippedInput") else module_details, name)
    with pytest.raises(AttributeError):
        details.Nothing  # noqa: B018


def test_a_log_with_a_finding_draws_it_without_the_ir_or_a_temporary_file(tmp_path):
    """``ir.frames`` (which ``report.finding_text`` asks whether a frame is a library's) takes
    ``SourceLocation`` from ``ir.metadata``, so check's finding renderer brings no instruction,
    opcode or packed field; ``tempfile`` (shutil, random, bz2, lzma) comes with ``--json``'s spool only."""
    log = tmp_path / "job.log"
    log.write_text("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    loaded = _loaded_of(["check", str(log)], ("xladoctor.report.finding_text", "xladoctor.ir.frames",
                                               "xladoctor.ir.instruction", "xladoctor.ir.opcodes", "tempfile"))
    assert loaded == {"xladoctor.report.finding_text", "xladoctor.ir.frames"}, loaded


# -- issue 36, h48s: ``offload FILE`` and ``check FILE`` without argparse; the values without dataclasses --

def _usage(argv: list[str]) -> tuple[int, str, str]:
    """``python -m xladoctor ARGV``'s exit code, stdout and stderr at a fixed width."""
    env = {**os.environ, "COLUMNS": "80"}
    out = subprocess.run([sys.executable, "-m", "xladoctor", *argv], capture_output=True, text=True, timeout=120,
                         env=env, stdin=subprocess.DEVNULL)
    return out.returncode, out.stdout, out.stderr


def test_usage_errors_are_argparse_s_as_before():
    """A command line the plain reader does not take goes to argparse, whose usage errors are
    printed as they always were (these texts are the ones 4bc2283 printed)."""
    assert _usage(["offload"])[0] == 2 and _usage(["offload"])[2].endswith(
        "xladoctor offload: error: the following arguments are required: file\n")
    code, out, err = _usage(["offload", "x.hlo", "--bogus"])
    assert (code, out) == (2, "") and err.endswith("xladoctor: error: unrecognized arguments: --bogus\n"), err
    code, out, err = _usage(["nosuch"])
    assert code == 2 and err.endswith("xladoctor: error: argument COMMAND: invalid choice: 'nosuch' (choose from "
                                      "'check', 'shape', 'hlo', 'explain', 'offload', 'fleet', 'inputs', 'relayout')\n")
    code, out, err = _usage(["check", "x.hlo", "--jobs", "x"])
    assert code == 2 and err.endswith("xladoctor check: error: argument --jobs/-j: invalid int value: 'x'\n"), err
    code, out, err = _usage(["offload", "--help"])
    assert code == 0 and out.startswith("usage: xladoctor offload [-h]") and not err


def test_plain_offload_and_check_command_lines_are_read_as_argparse_reads_them():
    """``offload FILE`` and ``check FILE`` (with ``--json``, and offload's ``--trace``) give the
    namespace argparse gives, defaults and check's own option strings included; anything else is
    argparse's."""
    from xladoctor.cli.main import _TOPOLOGY, build_parser, plain_arguments
    from xladoctor.oracle.topologies import DEFAULT_TOPOLOGY

    assert _TOPOLOGY == DEFAULT_TOPOLOGY
    for argv in (["offload", "m.hlo"], ["offload", "m.hlo", "--json"], ["offload", "--json", "m.hlo"],
                 ["offload", "m.hlo", "--trace"], ["offload", "--trace", "-", "--json"], ["offload", ""],
                 ["check", "m.hlo"], ["check", "--json", "m.hlo"], ["check", "-", "--json", "--json"]):
        args = vars(build_parser(argv[0], None).parse_args(argv))
        assert args.pop("_run").__module__ == f"xladoctor.cli.commands.{argv[0]}"
        assert plain_arguments(argv) == args, argv
    for argv in (["offload"], ["offload", "m.hlo", "--js"], ["offload", "--", "m.hlo"], ["offload", "a", "b"],
                 ["offload", "m.hlo", "--fix", "host"], ["offload", "m.hlo", "-h"], ["offload", "-1"],
                 ["check"], ["check", "a", "b"], ["check", "m.hlo", "--trace"], ["check", "--", "--json"],
                 ["check", "m.hlo", "-j", "2"], ["check", "m.hlo", "--help"]):
        assert plain_arguments(argv) is None, argv


def test_plain_explain_command_lines_are_read_as_argparse_reads_them():
    """``explain LOG`` and ``explain CODE`` (with ``--json``) give the namespace argparse gives,
    every default included; its other options, ``--list``, ``--help`` and errors are argparse's."""
    from xladoctor.cli.main import build_parser, plain_arguments

    for argv in (["explain", "job.log"], ["explain", "job.log", "--json"], ["explain", "--json", "E1200"],
                 ["explain", "-"], ["explain", "", "--json", "--json"]):
        args = vars(build_parser("explain", None).parse_args(argv))
        assert args.pop("_run").__module__ == "xladoctor.cli.commands.explain"
        assert plain_arguments(argv) == args, argv
    for argv in (["explain"], ["explain", "--json"], ["explain", "--list"], ["explain", "a", "b"],
                 ["explain", "job.log", "--hlo", "m.hlo"], ["explain", "job.log", "--js"], ["explain", "--", "x"],
                 ["explain", "job.log", "-h"], ["explain", "job.log", "--format", "sarif"]):
        assert plain_arguments(argv) is None, argv


def test_explain_on_a_log_imports_no_argparse(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    for argv in (["explain", str(log)], ["explain", str(log), "--json"], ["explain", "E1200"]):
        assert not _loaded_by(argv, ("argparse", "gettext", "locale"), tmp_path), argv
    assert "argparse" in _loaded_by(["explain", str(log), "--width", "80"], ("argparse",), tmp_path)


def test_offload_and_check_on_a_module_import_no_argparse():
    """The plain reader's namespace is all ``run`` reads: neither argparse nor gettext is imported."""
    module = str(_EXAMPLES / "e1200_offloaded_activation.hlo")
    for argv in (["offload", module], ["offload", module, "--json"], ["check", module], ["check", module, "--json"]):
        assert not _loaded_by(argv, ("argparse", "gettext")), argv
    assert "argparse" in _loaded_by(["offload", module, "--fix", "host", "--diff"], ("argparse",))


def test_the_written_out_records_behave_as_the_dataclasses_they_were():
    """ir/value.py's FrozenValue and ir/record.py's MutableValue in place of dataclasses on
    ``offload``'s way (each ~4.5M instructions to make): equality, hash (or none), repr, copies and
    pickling as before."""
    import copy
    import pickle

    from xladoctor.findings.module_details import ModuleSummary, OffloadDetails
    from xladoctor.ir.metadata import OpMetadata, SourceLocation
    from xladoctor.ir.module import ProgramShape, SourceTables, StackFrame
    from xladoctor.offload.result import HostOffloadResult
    from xladoctor.triage.provenance import Provenance

    loc = SourceLocation("m.py", 3)
    assert loc == SourceLocation("m.py", 3, None, None) and hash(loc) == hash(("m.py", 3, None, None))
    assert repr(loc) == "SourceLocation(file='m.py', line=3, function=None, column=None)" and loc != ("m.py", 3)
    with pytest.raises(AttributeError):
        loc.line = 4  # type: ignore[misc]
    md = OpMetadata(op_name="jit(f)/add", source_line=3)
    assert pickle.loads(pickle.dumps(md)) == md and copy.copy(md) == md and md.extra == ()
    assert repr(StackFrame(1, 2)) == "StackFrame(file_location_id=1, parent_frame_id=2)"
    tables = SourceTables()
    assert tables == SourceTables() and not tables and tables.file_names is not SourceTables().file_names
    with pytest.raises(TypeError):
        hash(tables)  # a dataclass with eq and not frozen has no hash
    prov = Provenance(None, "lowered")
    assert repr(prov) == ("Provenance(platform=None, stage='lowered', evidence=[], conflicting=False, frontend=None, "
                          "possibly_cpu=False)")
    result = HostOffloadResult("shipped")
    changed = result.replace(warnings=["w"])
    assert result.warnings == [] and changed.warnings == ["w"] and changed.rule == "shipped" and changed != result
    assert changed.errors is result.errors  # dataclasses.replace shares the fields it does not change
    details = OffloadDetails(result, (), prov, None)
    assert details.replace(text="t").text == "t" and details.replace(text="t").result is result
    assert ModuleSummary({"a": 1}) == ModuleSummary({"a": 1}) and repr(ProgramShape([], None)) == \
        "ProgramShape(parameters=[], result=None)"  # type: ignore[arg-type]


def test_the_passes_written_out_values_compare_and_print_as_the_dataclasses_did():
    """The passes' records are plain classes (the compiled core's modules): the values among them
    keep a dataclass' equality, hash and repr (bench/pass_states.py digests the result's repr)."""
    from xladoctor.offload.kinds import CopyMove
    from xladoctor.offload.passes.conditional_code_motion import Boundary
    from xladoctor.offload.passes.host_offload_legalize.state import LegalizeMove, LegalizeResult
    from xladoctor.offload.passes.host_offloader.state import OffloadOptions
    from xladoctor.offload.pipeline import PipelineConfig

    options = OffloadOptions()
    assert repr(options) == "OffloadOptions(rule='shipped', disable_host_compute=False, allow_h2h_copy=False)"
    config = PipelineConfig(True, options=options)
    assert config == PipelineConfig(True, True, OffloadOptions("shipped"), "tpu") != PipelineConfig(False)
    assert hash(config) == hash((True, True, options, "tpu")) and hash(options) == hash(("shipped", False, False))
    assert repr(config) == ("PipelineConfig(inline_calls=True, legalize=True, options=" + repr(options) +
                            ", platform='tpu')")
    assert len({Boundary("inside", ()), Boundary("inside", ())}) == 1
    result = LegalizeResult()
    result.moves.append(LegalizeMove("copy.1", CopyMove.KEPT, "mth"))
    assert repr(result) == ("LegalizeResult(changed=False, starts=[], moves=[LegalizeMove(copy='copy.1', action="
                            f"{CopyMove.KEPT!r}, start='mth', new_copies=(), after=(), shapes=())], notes=[], "
                            "rerouted=[], removed=[], failures=[], warnings=[])")
    other = LegalizeResult()
    assert other != result and (other.moves.append(result.moves[0]) or other == result)
    with pytest.raises(TypeError):
        hash(result)


def test_a_module_without_metadata_compiles_no_metadata_pattern():
    """syntax/hlo_lexicon compiles its metadata and number patterns on first use (~1 ms of start-up):
    a module without ``metadata={...}`` (jax's ``as_text("hlo")``, the train steps) compiles
    neither; the E1200 example, with metadata, compiles both and reads as before."""
    compiled = "[len(sys.modules['xladoctor.syntax.hlo_lexicon']._METADATA), " \
               "len(sys.modules['xladoctor.syntax.hlo_lexicon']._NUMBERS)]"
    clean = str(Path(__file__).resolve().parent / "data" / "offload" / "01_basic_dus_ds.hlo")
    assert _after(["offload", clean], compiled) == [0, 0]
    assert _after(["offload", str(_EXAMPLES / "e1200_offloaded_activation.hlo")], compiled) == [2, 6]


def test_an_offload_run_compiles_no_lazy_pattern_it_does_not_use():
    """base/lazy_pattern.py: the seldom-used regexes of the offload route (value grammars, header tokens,
    escapes, dump and torch_xla names, ...) are compiled by their first use (issue 36): a plain module,
    named as no dump names one, compiles none of them.  ``[found, compiled]`` over every LazyPattern in
    the loaded modules' globals (and hlo_lexicon's VALUE_GRAMMARS)."""
    survey = ("(lambda L: (lambda ps: [len(ps), sum(p._pattern is not None for p in ps)])("
              "list({id(p): p for p in [*(v for m in list(sys.modules.values()) "
              "if m and m.__name__.startswith('xladoctor') for v in vars(m).values() if isinstance(v, L)), "
              "*(g for g, _ in sys.modules['xladoctor.syntax.hlo_lexicon'].VALUE_GRAMMARS.values())]}.values())))"
              "(sys.modules['xladoctor.base.lazy_pattern'].LazyPattern)")
    clean = str(Path(__file__).resolve().parent / "data" / "offload" / "01_basic_dus_ds.hlo")
    found, compiled = _after(["offload", clean], survey)
    assert found >= 20 and compiled == 0, (found, compiled)


def test_check_on_one_module_imports_no_log_scanner():
    """The pool's size is asked of catalogue.fastscan only for several files: ``check FILE.hlo``
    imports neither the log scanner nor its tables (3 dataclasses and six modules)."""
    module = str(_EXAMPLES / "e1200_offloaded_activation.hlo")
    for argv in (["check", module], ["check", module, "--json"]):
        loaded = _modules_after(argv)
        assert not {"xladoctor.catalogue.fastscan", "xladoctor.catalogue.scanner"} & loaded, argv
    log = str(Path(__file__).resolve().parent / "data" / "first_hour" / "remat_offload.hlo")
    assert "xladoctor.catalogue.fastscan" in _modules_after(["check", module, log])


def test_check_on_one_module_creates_no_log_details_class():
    """A module's entry asks whether its details are a log's only where findings.log_details was
    imported (no instance of its classes exists otherwise); a log and a skipped file still draw."""
    module = str(_EXAMPLES / "e1200_offloaded_activation.hlo")
    assert "xladoctor.findings.log_details" not in _modules_after(["check", module, "--json"])
    folder = Path(__file__).resolve().parent / "data" / "first_hour"
    assert "xladoctor.findings.log_details" in _modules_after(["check", str(folder), "--json"])  # .mlir skipped


@pytest.mark.parametrize("argv", [["offload"], ["offload", "--json"], ["check"], ["check", "--json"],
                                  ["offload", "--format", "sarif"]])
def test_a_module_run_imports_neither_dataclasses_nor_typing(argv: list[str], tmp_path: Path) -> None:
    """The findings model and Options are written out (base/plain_dataclass.py) and the modules on a
    module's way import typing for the type checker only: dataclasses (with inspect, ast, dis and
    tokenize) and typing were ~15 ms of ``xladoctor offload FILE``'s start-up (issue 36).  The module
    is copied out of the repository so that no pyproject.toml is found (tomllib imports typing)."""
    hlo = tmp_path / "step.hlo"  # an E1200: a finding, its fixes and their edits are made
    hlo.write_text((Path(__file__).parent / "data" / "first_hour" / "step.hlo").read_text())
    names = ("dataclasses", "inspect", "typing", "ast", "xladoctor.findings.finding", "xladoctor.findings.edits")
    assert _loaded_of([*argv, str(hlo)], names) == {"xladoctor.findings.finding", "xladoctor.findings.edits"}


def test_a_log_run_imports_neither_dataclasses_nor_typing(tmp_path: Path) -> None:
    """The log scanner's LogMatch, Region and LogScan and the log's details are written out
    (base/plain_dataclass.py): explain LOG and check LOG import no dataclasses, inspect or typing."""
    log = tmp_path / "job.log"
    log.write_text("I1031 step 1\nRESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    names = ("dataclasses", "inspect", "typing", "ast", "xladoctor.catalogue.log_match")
    for argv in (["explain", str(log)], ["check", str(log)], ["explain", "--json", str(log)], ["check", "--json", str(log)]):
        assert _loaded_of(argv, names) == {"xladoctor.catalogue.log_match"}, argv


def test_a_clean_log_imports_no_re_and_no_json(tmp_path):
    """re's import is ~25M instructions (its enum flags and compiler), json's ~5M more: a clean log's
    scan compiles nothing, and ``--json`` writes its document with base/json_plain, check's files
    spooled in memory (h52s)."""
    log = tmp_path / "job.log"
    log.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
    for argv in (["explain", str(log), "--json"], ["check", str(log), "--json"]):
        assert not _loaded_by(argv, ("re", "json", "tempfile"), tmp_path), argv


def test_check_text_of_a_clean_log_imports_no_re(tmp_path):
    """The text report asks report.colour whether colour is on (re comes only when a line is
    painted) and escapes an ASCII, printable path without a pattern (base/escape, h53s); a path
    with a control character still compiles one."""
    log = tmp_path / "job.log"
    log.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
    assert not _loaded_by(["check", str(log)], ("re",), tmp_path)
    odd = tmp_path / "job\x1b.log"
    odd.write_text("I1031 step 1\n")
    assert _loaded_by(["check", str(odd)], ("re",), tmp_path) == {"re"}


def test_explain_text_of_a_clean_log_loads_no_catalogue(tmp_path):
    """"no XLA error found" is one label: the catalogue's loader, its TOML reader and model, the
    glossary and serialise come with a finding to draw (report/explain_text, h53s)."""
    log = tmp_path / "job.log"
    log.write_text("I1031 09:00:01.000001  4001 tpu_compiler.cc:101] step 1 loss=0.5000\n" * 50)
    heavy = ("xladoctor.catalogue.loader", "xladoctor.catalogue.model", "xladoctor.base.labels.glossary",
             "xladoctor.findings.serialise")
    assert not _loaded_by(["explain", str(log)], heavy, tmp_path)
    found = tmp_path / "oom.log"
    found.write_text("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.\n")
    assert {"xladoctor.catalogue.loader", "xladoctor.findings.serialise"} <= _loaded_by(["explain", str(found)], heavy, tmp_path)


def test_escape_field_of_ascii_is_the_patterns_answer():
    """escape_field's ASCII shortcut (no re) answers as the pattern did for every ASCII character."""
    from xladoctor.base.escape import _FIELD_UNSAFE, _escape_char, _pattern, escape_field

    for i in range(128):
        text = f"a{chr(i)}b"
        assert escape_field(text) == _pattern(_FIELD_UNSAFE).sub(_escape_char, text), i


def test_the_tensors_sniff_is_its_pattern_without_importing_re():
    """module_sniff.is_tensors_file matches HEADER only past two plain checks every match passes."""
    import re

    from xladoctor.syntax.module_sniff import BEGIN, HEADER, is_tensors_file

    heads = ["[g]\nTensorsGraphInfo:", " \ufeff[g_1] \n\t TensorsGraphInfo:\n", "[é٣]\nTensorsGraphInfo:",
             "[g]\n\nTensorsGraphInfo:", "[g] x\nTensorsGraphInfo:", "[]\nTensorsGraphInfo:", "[g]TensorsGraphInfo:",
             "[2024-01-01] TensorsGraphInfo:", "x[g]\nTensorsGraphInfo:", "[g]\nTensorsGraph", BEGIN + "\n", "",
             "I1031 step 1\n", "[g]\u2028TensorsGraphInfo:", "[g]\n\u3000TensorsGraphInfo: y"]
    for head in heads:
        start = head.lstrip("\ufeff \t\r\n")
        assert is_tensors_file(head) == (start.startswith(BEGIN) or re.match(HEADER, start) is not None), head
    assert [is_tensors_file(h) for h in heads[:3]] == [True, True, True]
