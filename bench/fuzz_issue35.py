"""Issue 35's targets for the fuzzing campaign (bench/fuzz_campaign.py imports them):

* ``pairs``: an HLO module and its companion StableHLO (``NAME.mlir`` beside it): matching, of another
  program, mutated, or garbage.  ``hlo``, ``offload`` and ``check --full`` read the pair; none may
  crash, an error is one line, and ``offload`` and ``check --full`` must give the same exit code
  (the same verdict whichever command reads the file).
* ``configs``: a folder with a log and a configuration (``xladoctor.toml`` or ``pyproject.toml``),
  valid, mutated, of the wrong types, or large; ``check`` reads it: exit 0/1/2, one located line on 2.
* ``fixes``: a module with an E1200 (the corpus and ``offload_gen`` modules), LF or CRLF, its header
  and ROOT spread over lines or not, trailing white space added; ``--fix host|device`` as the
  command applies it (``fixed_text``) must parse back as the fixed module, keep the line endings, and
  change only the header and the statements the fix changes.
* ``zstd`` and stdin go through ``compressed`` (``run_compressed`` picks .zst when the module is there,
  and a quarter of its inputs go to ``explain -`` on stdin instead of ``fleet``'s scan).
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
_CORPUS = [*sorted((ROOT / "src" / "xladoctor" / "examples").glob("*.hlo")),
           *sorted((ROOT / "tests" / "data" / "offload").glob("*.hlo"))]
_PAIR = (ROOT / "tests" / "data" / "first_hour" / "lowered" / "step.hlo",
         ROOT / "tests" / "data" / "first_hour" / "lowered" / "step.mlir")
_KINDS = ("device", "pinned_host", "unpinned_host", "host", "", "pinned_host\"", "\u202e")
_MLIR_TYPES = ("f32", "bf16", "i32", "i1", "ui8", "f64", "complex<f32>", "i4")


def zstd_module() -> Any:
    """``compression.zstd`` (3.14+) or its backport, or None: the campaign runs without it too."""
    import importlib
    try:
        return importlib.import_module("compression.zstd" if sys.version_info >= (3, 14) else "backports.zstd")
    except ImportError:
        return None


# ----------------------------------------------------------------------------------------- pairs

def _tensor(shape: Any, rng: random.Random) -> str:
    from xladoctor.ir.shape import Shape

    if not isinstance(shape, Shape) or not shape.is_array or rng.random() < 0.1:
        return f"tensor<{rng.randint(1, 9)}x{rng.choice(_MLIR_TYPES)}>"
    dims = "".join(f"{d}x" for d in shape.dimensions)
    name = shape.element_type.name
    mlir = {"pred": "i1", "s8": "i8", "s16": "i16", "s32": "i32", "s64": "i64", "u8": "ui8",
            "u32": "ui32"}.get(name, name)
    if rng.random() < 0.1:
        dims = dims.replace("1", "2", 1) or "3x"  # another program's shape
    return f"tensor<{dims}{mlir}>"


def _attrs(rng: random.Random, result: bool) -> str:
    out = []
    if rng.random() < 0.6:
        out.append(f'mhlo.memory_kind = "{rng.choice(_KINDS)}"')
    if result and rng.random() < 0.5:
        out.append(f'jax.result_info = "result[{rng.randint(0, 3)}]"')
    return " {" + ", ".join(out) + "}" if out else ""


def companion_for(module: Any, rng: random.Random) -> str:
    """A StableHLO module whose ``@main`` has the module's entry signature (or nearly), with memory kinds."""
    layout = module.entry_computation_layout
    params = list(layout.parameters) if layout is not None else []
    results = list(layout.result.tuple_shapes) if layout is not None and layout.result.is_tuple else (
        [layout.result] if layout is not None else [])
    if rng.random() < 0.15 and params:
        params.pop(rng.randrange(len(params)))
    args = ", ".join(f"%arg{i}: {_tensor(s, rng)}{_attrs(rng, False)}" for i, s in enumerate(params))
    res = ", ".join(f"{_tensor(s, rng)}{_attrs(rng, True)}" for s in results)
    # the module's own name, as JAX names both (h35h: a different name is another program, refused);
    # now and then another program's name
    name = module.name if rng.random() < 0.9 else module.name + "_other"
    return (f"module @{name} attributes {{mhlo.num_partitions = 1 : i32}} {{\n  func.func public @main({args}) -> "
            f"({res}) {{\n    return\n  }}\n}}\n")


def pair_input(rng: random.Random, random_module: Any, mutate: Any) -> tuple[str, str]:
    """(HLO text, StableHLO text): the real pair, or a generated module with a signature made for it."""
    from xladoctor.syntax.hlo_parser import parse_module

    r = rng.random()
    if r < 0.25:
        hlo, mlir = _PAIR[0].read_text(), _PAIR[1].read_text()
    else:
        hlo = rng.choice(_CORPUS).read_text() if r < 0.6 else random_module(rng)
        try:
            mlir = companion_for(parse_module(hlo, "pair.hlo"), rng)
        except Exception:
            mlir = _PAIR[1].read_text()  # a module we refuse: any StableHLO beside it
    if rng.random() < 0.4:
        mlir = mutate(mlir, rng)
    if rng.random() < 0.2:
        hlo = mutate(hlo, rng)
    return hlo, mlir


def run_pairs(payload: tuple[str, str], cli: Any, cli_fault: Any, outcome: Any) -> Any:
    hlo, mlir = payload
    with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-pair-") as d:
        path = os.path.join(d, "step.hlo")
        Path(path).write_text(hlo, encoding="utf-8", errors="surrogatepass")
        Path(d, "step.mlir").write_text(mlir, encoding="utf-8", errors="surrogatepass")
        codes, kinds = {}, []
        for argv in (["hlo", path], ["offload", path, "--json"], ["check", "--full", "--json", path]):
            rc, out, err = cli(argv)
            fault = cli_fault(rc, out, err)
            if fault is not None:
                return outcome("crash", f"{argv[0]} on a pair: {fault}")
            if rc == 2 and len(err.strip().splitlines()) != 1:
                return outcome("crash", f"{argv[0]} on a pair: the error is not one line: {err[:300]!r}")
            if rc != 2 and "--json" in argv:
                doc = json.loads(out)
                kinds += [f["kind"] for f in doc.get("files", ())]
            codes[argv[0]] = rc
    # check sniffs what it reads (text that is no module is scanned as a log): compared on modules only
    if kinds == ["hlo"] and codes["offload"] != 2 and codes["offload"] != codes["check"]:
        return outcome("disagree", f"offload exits {codes['offload']}, check --full {codes['check']} on one pair")
    return outcome("ok")


# --------------------------------------------------------------------------------------- configs

_CONFIG_PIECES = ['select = ["E1200"]', 'ignore = ["E"]', 'ignore = ["E9999"]', 'select = "E1200"', "select = [1]",
                  'format = "json"', 'format = "html"', "format = 3", 'frob = "x"', "[tool]", "[tool.xladoctor]",
                  "tool = 5", "[tool.xladoctor.x]", 'select = ["E03"]', 'ignore = ["e0102"]', "=", '"', "[[",
                  "select = [", '\u202e = "x"', 'select = ["\x1b[2J"]', "select = []", "# c"]


def config_input(rng: random.Random, mutate: Any) -> tuple[str, str]:
    """(file name, contents): a configuration made of real keys and hostile ones, sometimes mutated or large."""
    name = rng.choice(("xladoctor.toml", "pyproject.toml"))
    lines = [rng.choice(_CONFIG_PIECES) for _ in range(rng.randint(0, 6))]
    if name == "pyproject.toml" and rng.random() < 0.7:
        lines.insert(0, "[tool.xladoctor]")
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.4:
        text = mutate(text, rng)
    if rng.random() < 0.03:
        text += "# " + "x" * (2 << 20) + "\n"  # past the 1 MiB bound: refused from its size
    return name, text


def run_configs(payload: tuple[str, str], log: str, cli: Any, cli_fault: Any, outcome: Any) -> Any:
    name, text = payload
    with tempfile.TemporaryDirectory(prefix="xladoctor-fuzz-config-") as d:
        Path(d, name).write_text(text, encoding="utf-8", errors="surrogatepass")
        Path(d, "job.log").write_text(log)
        for argv in (["check", d], ["explain", os.path.join(d, "job.log")]):
            rc, out, err = cli(argv)
            fault = cli_fault(rc, out, err)
            if fault is not None:
                return outcome("crash", f"{argv[0]} with a config: {fault}")
            if rc == 2 and (len(err.strip().splitlines()) != 1 or not re.match(r".*:\d+:\d+: ", err)):
                return outcome("crash", f"{argv[0]} with a config: not one located line: {err[:300]!r}")
    return outcome("ok")


# ----------------------------------------------------------------------------------------- fixes

_ROOT_LINE = re.compile(r"^(\s*ROOT [^\n]*?\w\()([^\n]*?), ([^\n]*)$", re.M)


def _spread(text: str) -> str:
    text = text.replace(")->", ")\n  ->", 1)
    return _ROOT_LINE.sub(lambda m: f"{m.group(1)}{m.group(2)},\n      {m.group(3)}  ", text, count=1)


def fix_input(rng: random.Random) -> str:
    """A module with an E1200 (usually), as a user may have written it: CRLF, spread, trailing blanks."""
    if rng.random() < 0.5:
        text = rng.choice(_CORPUS).read_text()
    else:
        if str(HERE) not in sys.path:
            sys.path.insert(0, str(HERE))
        from offload_gen import build_hlo, hlo_spec
        text = build_hlo(hlo_spec(random.Random(rng.getrandbits(32))))
    if rng.random() < 0.5:
        text = _spread(text)
    if rng.random() < 0.3:
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        lines[i] += rng.choice((" ", "\t", "  // c", " /* c */"))
        text = "\n".join(lines)
    if rng.random() < 0.2:
        text = text.rstrip("\n")
    if rng.random() < 0.5:
        text = text.replace("\n", "\r\n")
    return text


def _removed(original: str, fixed: str) -> list[str]:
    a, b = original.split("\n"), fixed.split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [line for tag, i1, i2, _, _ in ops if tag in ("replace", "delete") for line in a[i1:i2]]


def run_fixes(text: str, outcome: Any) -> Any:
    """fix -> parse -> the same module but the fixed outputs; the file's line endings and other bytes kept."""
    from xladoctor.route.fix import fixed_text
    from xladoctor.base.errors import InputError
    from xladoctor.offload import fix_device, fix_host
    from xladoctor.route.module_analysis import analyse_module, parse_hlo
    from xladoctor.syntax.hlo_printer import print_module

    try:
        module = parse_hlo(text, "fix.hlo")
    except InputError:
        return outcome("ok")  # a spread that cut a string: not a module; refused in one line
    result = analyse_module(module, text, "fix.hlo").result
    if not result.errors:
        return outcome("ok")
    crlf = "\r\n" in text
    for how, fix in (("host", fix_host), ("device", fix_device)):
        fixed = fix(module, result)
        out, reparsed, respelt = fixed_text(text, module, fixed, "fix.hlo")
        if print_module(parse_hlo(out, "out.hlo")) != print_module(fixed):
            return outcome("crash", f"--fix {how}: the written module does not read back as the fix")
        if crlf and out.count("\n") != out.count("\r\n") or not crlf and "\r" in out:
            return outcome("crash", f"--fix {how}: line endings changed")
        if respelt:
            continue  # printed whole, said so in one line (a name XLA's uniquer renames)
        changed = {i.name for i in fixed.entry_computation().instructions} | {"ROOT"}
        for line in _removed(text, out):
            stripped = line.strip()
            if not (stripped.startswith(("HloModule", "->")) or line.startswith("      ")
                    or stripped.split(" ")[0] in changed):
                return outcome("crash", f"--fix {how}: changed a line the fix does not touch: {line[:200]!r}")
    return outcome("ok")
