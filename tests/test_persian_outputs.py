"""Every sentence a reader of ``--lang fa`` meets is Persian, in every command's text, its HTML
and its concise list; only XLA's own messages (matched against its output) stay English.

Found English under ``--lang fa`` (2026-12-03): the whole ``offload`` text report and its
``--fix`` lines, the analysis' own warnings (libtpu's failures later in compilation, rendered
in English while the module was analysed), ``explain MODULE.hlo`` and ``explain --list`` not
drawn for a right-to-left reader.  Each is run here as a user runs it, on a real jax program.
"""

from __future__ import annotations

import contextlib
import io
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xladoctor.base.labels import Said, in_lang, label
from xladoctor.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"
E1200 = EXAMPLES / "e1200_offloaded_activation.hlo"
RLM = "\u200f"
PERSIAN = re.compile(r"[\u0600-\u06ff]")
LATER = "fails on this pattern later in compilation"


def run(*argv: object) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue()


def test_an_english_label_can_be_said_again_in_persian_and_is_a_str_otherwise():
    """The analysis renders its warnings before anyone knows the language: a ``Said`` keeps the
    key and values (nested labels too) so a renderer can translate it, and is a plain ``str``
    for JSON, comparison and the process pool's pickling."""
    said = label("offload.later_donation", libtpu="libtpu 0.0.42.1", memory="hbm", param=0,
                 output=label("offload.later_output", index="{0}"), instruction="copy.1")
    assert isinstance(said, Said) and said.startswith("libtpu 0.0.42.1 fails after HostOffloader")
    again = pickle.loads(pickle.dumps(said))
    assert again == said and in_lang(again, "fa") == in_lang(said, "fa")
    persian = in_lang(said, "fa")
    assert PERSIAN.search(persian) and "خروجی {0}" in persian and "fails after" not in persian
    assert in_lang("XLA's own message", "fa") == "XLA's own message"
    assert in_lang(said, "en") is said


def test_offload_text_and_its_fix_lines_are_persian(tmp_path):
    rc, out = run("offload", E1200, "--lang", "fa", "--bidi", "logical")
    assert rc == 1
    for english in ("predicted for", "keep it on host", "bring it back", "host memory:", "path:"):
        assert english not in out, english
    assert "Tensor which is moved to host" in out  # XLA's own message, as XLA writes it
    ours = [line for line in out.splitlines() if line.strip() and "Tensor which" not in line
            and not line.strip().startswith(("E1200:", "See https", "custom-call", "tuple."))
            and not re.match(r"\s*(-->|\d* \|)", line)]  # a source snippet: the file's own lines, as written
    assert ours and all(PERSIAN.search(line) and line.lstrip().startswith(RLM) for line in ours), ours
    p = subprocess.run([sys.executable, "-m", "xladoctor", "offload", str(E1200), "--lang", "fa", "--bidi", "logical",
                        "--fix", "host", "-o", str(tmp_path / "fixed.hlo")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "fixed E1200" not in p.stdout and "remaining" not in p.stdout
    assert "اصلاح شد" in p.stdout and "باقی ماند" in p.stdout


@pytest.fixture(scope="module")
def scan_module(tmp_path_factory):
    """A program xladoctor warns about (a later failure it cannot predict exactly), lowered for TPU
    and saved as ``as_text`` gives it, with its StableHLO beside it."""
    jax = pytest.importorskip("jax")
    sys.path.insert(0, str(Path(__file__).parent))
    from test_offload_later import nested_stacks_read_whole

    fn, args = nested_stacks_read_whole()
    lowered = jax.jit(fn).trace(*args).lower(lowering_platforms=("tpu",))
    folder = tmp_path_factory.mktemp("scan")
    (folder / "scan.hlo").write_text(lowered.as_text("hlo"))
    (folder / "scan.mlir").write_text(lowered.as_text())
    return folder / "scan.hlo"


def test_the_later_failure_warnings_are_persian_in_text_and_html(scan_module, tmp_path):
    rc, english = run("check", scan_module)
    assert rc == 0 and LATER in english  # the warning is given
    rc, out = run("check", scan_module, "--lang", "fa", "--bidi", "logical")
    assert LATER not in out and "روی این الگو بعدتر در کامپایل شکست می‌خورد" in out
    rc, out = run("offload", scan_module, "--stablehlo", scan_module.with_suffix(".mlir"), "--lang", "fa",
                  "--bidi", "logical", "--html", tmp_path / "o.html")
    assert LATER not in out and "بعدتر در کامپایل" in out
    page = (tmp_path / "o.html").read_text()
    visible = page.split('id="xladoctor-diagnostics"')[0]  # the page, not its embedded JSON
    assert LATER not in visible and "بعدتر در کامپایل" in visible
    rc, doc = run("offload", scan_module, "--stablehlo", scan_module.with_suffix(".mlir"), "--lang", "fa", "--json")
    assert LATER not in doc and "بعدتر در کامپایل" in doc  # the document in the language asked, as its diagnostics
    rc, doc = run("offload", scan_module, "--stablehlo", scan_module.with_suffix(".mlir"), "--json")
    assert LATER in doc  # and in English by default, as before


def test_warnings_stay_persian_when_a_worker_checked_the_module(tmp_path):
    """Checking a folder runs each module in a worker process: its document reached the text in
    English (the label's words, not the label), so a dropped offload's warning was English there
    and Persian for the same module checked alone."""
    module = Path(__file__).parent / "data" / "offload" / "D3_move_to_host_only_used_by_non_aliasing_custom_call.hlo"
    for name in ("a.hlo", "b.hlo"):
        (tmp_path / name).write_text(module.read_text())
    for target in (tmp_path / "a.hlo", tmp_path):
        _, out = run("check", target, "--lang", "fa", "--bidi", "logical")
        warnings = [line for line in out.splitlines() if "هشدار" in line]
        assert warnings and all("moves nothing to host" not in line and "چیزی را به میزبان نمی‌برد" in line
                                for line in warnings), (target, warnings)


def test_explain_of_a_module_and_the_code_list_are_drawn_for_their_reader():
    rc, out = run("explain", E1200, "--lang", "fa", "--bidi", "logical")
    assert rc == 1
    persian = [line for line in out.splitlines() if PERSIAN.search(line)]
    assert persian and all(line.lstrip().startswith(RLM) for line in persian)
    rc, out = run("explain", "--list", "--lang", "fa", "--bidi", "visual")
    row = next(line for line in out.splitlines() if line.startswith("E1200"))
    # the title reordered for a terminal: «عدم تطابق خروجی» drawn right to left, shaped
    assert row.split()[1] == "CompileTimeHostOffloadOutputLocationMismatch"
    assert "عدم" not in row and any("\ufb50" <= ch <= "\ufeff" for ch in row)


def test_inputs_text_and_page_are_persian(tmp_path):
    """``inputs --lang fa`` printed its whole report in English, and its page the sentences of the
    document (summary, padding, the runtimes' comparisons, the dimension diagram's words)."""
    (tmp_path / "exp.txt").write_text("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}\n")
    (tmp_path / "sup.txt").write_text("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}\n")
    argv = ["inputs", tmp_path / "exp.txt", "--supplied-shapes", tmp_path / "sup.txt", "--lang", "fa"]
    rc, out = run(*argv, "--bidi", "logical")
    assert rc == 1
    for english in ("expected 5,242,880 bytes because", "minor-most", "fixes:", "accepts", "rejects",
                    "# or:", "'s position", "what each runtime would print"):
        assert english not in out, english
    assert "x = jax.device_put(x, Format(" in out  # the code to paste stays whole
    assert "INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch:" in out  # the runtime's own words
    assert "Executable(unknown) expected parameter 0" in out
    rc, _ = run(*argv, "--html", tmp_path / "i.html")
    page = (tmp_path / "i.html").read_text().split('id="xladoctor-diagnostics"')[0]
    for english in ("bytes because", "minor-most", "layout ignored", ">dim 2<"):
        assert english not in page, english
    rc, english_out = run(*argv[:-2])
    assert "expected 5,242,880 bytes because dimension 2 (40) is padded to 128 in the minor-most slot" in english_out


def test_the_cpu_lowering_note_and_its_evidence_are_persian(tmp_path):
    """The note that a CPU lowering's verdict cannot stand for TPU/GPU had a Persian label but
    its evidence, and in check's text and page the whole note, stayed English."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    def step(x):
        return jax.device_put(jnp.sin(x), jax.memory.Space.Host), x * 2

    lowered = jax.jit(step).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower()
    (tmp_path / "x.hlo").write_text(lowered.as_text("hlo"))
    (tmp_path / "x.mlir").write_text(lowered.as_text())
    _, out = run("check", tmp_path, "--lang", "fa", "--bidi", "logical", "--html", tmp_path / "c.html")
    note = next(line for line in out.splitlines() if "CPU" in line)
    assert "lowered for CPU" not in note and "drops them" not in note and "پایین برده شده" in note
    page = (tmp_path / "c.html").read_text().split('id="xladoctor-diagnostics"')[0]
    assert "lowered for CPU" not in page and "پایین برده شده" in page


def test_a_persian_warning_on_the_page_is_prose_not_code(tmp_path):
    """The page drew a warning the document already gave in Persian as left-to-right code type
    (``<bdi dir="ltr" class="mono">``), its sentence reordered."""
    module = Path(__file__).parent / "data" / "offload" / "D3_move_to_host_only_used_by_non_aliasing_custom_call.hlo"
    run("check", module, "--lang", "fa", "--html", tmp_path / "c.html")
    page = (tmp_path / "c.html").read_text()
    said = re.search(r'<(\w+)[^>]*>MoveToHost &quot;mth&quot; چیزی', page) or re.search(r'<(\w+)[^>]*>MoveToHost "mth" چیزی', page)
    assert said is not None and said.group(1) == "span", said


DROPPED_ENGLISH = ("it has no users", "its only users are custom calls", "dead code, removed before the pass")


def test_a_dropped_offloads_reason_is_persian(tmp_path):
    """Why a MoveToHost moves nothing was written in English into the analysis (offload/passes/host_offloader/start_discovery.py,
    offload/passes/host_offloader/verdict.py), so ``offload dropped: mth (its only users are ...)`` stayed English under
    ``--lang fa``, in the text, the warning and the JSON."""
    module = Path(__file__).parent / "data" / "offload" / "D3_move_to_host_only_used_by_non_aliasing_custom_call.hlo"
    sys.path.insert(0, str(Path(__file__).parent))
    from hlo_corpus import generated_hlo

    dead = generated_hlo(tmp_path, 1)[0]  # seed 0: a MoveToHost HloDCE removes before the pass
    for path, persian in ((module, "تنها کاربرانش custom call"), (dead, "کد مرده")):
        _, english = run("offload", path)
        assert any(e in english for e in DROPPED_ENGLISH), path  # the reason is given
        _, out = run("offload", path, "--lang", "fa", "--bidi", "logical")
        dropped = [line for line in out.splitlines() if "حذف شد" in line or "نمی‌برد" in line]
        assert dropped and not any(e in out for e in DROPPED_ENGLISH), out
        assert persian in out.replace("\u2066", "").replace("\u2069", ""), out
        assert "shipped XLA" not in out and "XLA⁩ منتشرشده" in out  # the rule in the first line, too
    _, out = run("check", module, "--lang", "fa", "--bidi", "logical", "--html", tmp_path / "c.html")
    assert not any(e in out for e in DROPPED_ENGLISH), out
    page = (tmp_path / "c.html").read_text().split('id="xladoctor-diagnostics"')[0]
    assert not any(e in page for e in DROPPED_ENGLISH)
    _, doc = run("offload", module, "--lang", "fa", "--json")
    assert not any(e in doc for e in DROPPED_ENGLISH) and "کاربرانش" in doc
    _, doc = run("offload", module, "--json")
    assert "its only users are custom calls that do not alias it (foo)" in doc  # English by default, as before


CONFIRM_ENGLISH = ("confirm with the real", "xladoctor predicts", "compiler says", "same verdict", "agree:",
                   "E1200 (starting from", "no error predicted", "DISAGREE", "cannot compare")


def test_the_confirm_lines_are_persian_from_every_kind_of_verdict():
    """Each line of ``--confirm`` in Persian, for each kind the compiler can answer with (the
    document's reason said again from its JSON, as a worker process sends it)."""
    from xladoctor.oracle.comparison import Prediction, compare
    from xladoctor.oracle.confirmation import Confirmation
    from xladoctor.oracle.verdict import Verdict
    from xladoctor.report.confirm import confirm_lines

    e1200 = Prediction("e1200", "tuple.7", "tuple")
    cases = [(e1200, Verdict("e1200", start="tuple.1", topology="v5e:2x2")),
             (e1200, Verdict("compiles", topology="v5e:2x2")),
             (Prediction("compiles"), Verdict("crash", check_line="Check failed: x", topology="v5e:2x2")),
             (e1200, Verdict("e1200", start="param.3", topology="v5e:2x2")),
             (e1200, Verdict("timeout", reason=label("oracle.timeout", seconds="60"), topology="v5e:2x2"))]
    for predicted, verdict in cases:
        c = compare(predicted, verdict)
        doc = Confirmation.from_json(pickle.loads(pickle.dumps({"available": True, "topology": "v5e:2x2", "input": "hlo",
                                                                "predicted_for": "tpu", **c.to_json()})))
        english = "\n".join(confirm_lines(doc))
        assert any(e in english for e in CONFIRM_ENGLISH) and c.reason in english
        persian = "\n".join(confirm_lines(doc, lang="fa"))
        assert not any(e in persian for e in CONFIRM_ENGLISH), persian
        assert "تأیید با کامپایلر واقعی" in persian and "پیش‌بینی xladoctor" in persian
    assert "در 60 ثانیه نتیجه‌ای نیامد" in persian  # the verdict's reason, a label, said again
    unavailable = Confirmation.from_json({"available": False, "reason": label("oracle.switched_off", env="XLADOCTOR_NO_ORACLE")})
    assert confirm_lines(unavailable, lang="fa") == ["کامپایلر واقعی: اجرا نشد (کامپایلر واقعی TPU خاموش است "
                                                     "(XLADOCTOR_NO_ORACLE تنظیم شده است))"]


def test_offload_and_check_confirm_are_persian_with_libtpu(tmp_path):
    """``offload X --confirm --lang fa`` and ``check DIR --confirm --lang fa`` printed the real
    compiler's lines in English (report/confirm.py, the oracle's summaries and reasons), in the
    text, the page and the JSON."""
    from xladoctor.oracle import available

    if not available():
        pytest.skip("the libtpu compile-only oracle is not installed here")
    rc, out = run("offload", E1200, "--confirm", "--lang", "fa", "--bidi", "logical")
    assert rc == 1
    lines = out[out.index("تأیید"):]
    assert not any(e in lines for e in CONFIRM_ENGLISH), lines
    assert "همخوان" in lines and "E1200" in lines
    _, out = run("check", EXAMPLES, "--confirm", "--lang", "fa", "--bidi", "logical", "--html", tmp_path / "c.html")
    assert out.count("تأیید با کامپایلر واقعی") == 2 and not any(e in out for e in CONFIRM_ENGLISH), out
    page = (tmp_path / "c.html").read_text().split('id="xladoctor-diagnostics"')[0]
    assert "تأیید با کامپایلر واقعی" in page and not any(e in page for e in CONFIRM_ENGLISH)
    _, doc = run("check", EXAMPLES, "--confirm", "--lang", "fa", "--json")
    assert "same verdict" not in doc and "نتیجهٔ یکسان" in doc
    _, english = run("check", EXAMPLES, "--confirm")
    assert "confirm with the real TPU compiler (v5e:2x2, from hlo text):" in english
    assert "agree: same verdict (start tuple.7 ~ tuple.1)" in english  # English as before


def test_the_redundant_move_to_host_warning_is_persian():
    """A host computation's outputs already in host memory make their MoveToHosts redundant; the
    warning that says so was an f-string in offload/passes/host_offloader/host_compute.py, English under ``--lang fa``."""
    module = Path(__file__).parent / "data" / "offload" / "47_async_host_offloaded_call_remove_redundant_copies.hlo"
    _, english = run("check", module)
    assert "Host computation async-start: redundant MoveToHost removed: gte_0_host, gte_1_host" in english
    _, out = run("check", module, "--lang", "fa", "--bidi", "logical")
    warning = next(line for line in out.splitlines() if "هشدار" in line)
    assert "redundant" not in warning and "Host computation" not in warning and "زائد حذف شدند" in warning
    _, doc = run("offload", module, "--lang", "fa", "--json")
    assert "redundant MoveToHost removed" not in doc and "زائد حذف شدند" in doc
