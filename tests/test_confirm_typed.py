"""``--confirm``'s result is typed in-process (issue 37 item 1): ``oracle.confirm.confirm`` returns
a ``Confirmation``, the findings adapter and the text/HTML views read its attributes, and its JSON
is written once, in the document, as an object that carries the value.  Only a document that
crossed a process or came from a file is read back, once, by ``Confirmation.from_json``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from xladoctor.findings import wire
from xladoctor.oracle.comparison import Prediction, compare, prediction_of
from xladoctor.oracle.confirmation import Confirmation, ConfirmObject, Judge, confirmation_of
from xladoctor.oracle.verdict import Verdict
from xladoctor.report.confirm import confirm_lines
from xladoctor.report.offload_json import offload_document
from xladoctor.route.module_analysis import analyse_module, parse_hlo
from xladoctor.route.options import Options

SRC = Path(__file__).resolve().parents[1] / "src" / "xladoctor"
E1200 = SRC / "examples" / "e1200_offloaded_activation.hlo"


def _checked(verdict: Verdict, judge: Judge | None = None):
    text = E1200.read_text()
    module = parse_hlo(text, str(E1200))
    mc = analyse_module(module, text, str(E1200), Options())
    comparison = compare(prediction_of(mc.result, module), verdict)
    mc.confirm = Confirmation.of(comparison, "tpu", "v5e:2x2", "hlo", "tpu", judge)
    return mc


def _no_reading(*_args, **_kwargs):
    raise AssertionError("a confirm object was read back from JSON in-process")


@pytest.mark.parametrize("lang", ["en", "fa"])
def test_the_document_carries_the_typed_result_and_the_views_read_it(lang, monkeypatch):
    judge = Judge("compile_only", None, False, "libtpu compile-only, v5e:2x2 topology")
    mc = _checked(Verdict("e1200", start="tuple.1", topology="v5e:2x2"), judge)
    expected = confirm_lines(mc.confirm.in_lang(lang), "   ", lang)
    monkeypatch.setattr(Confirmation, "from_json", staticmethod(_no_reading))
    doc = offload_document(mc.report("offload", lang), mc.details())
    confirm = doc["confirm"]
    assert isinstance(confirm, ConfirmObject) and confirm.confirmation == mc.confirm.in_lang(lang)
    assert dict(confirm) == mc.confirm.in_lang(lang).to_json()
    assert confirm_lines(confirmation_of(confirm), "   ", lang) == expected
    assert expected[-1].strip().startswith(("agree: same verdict", "همخوان:"))
    # the findings adapter read the same value: the judge's words on each finding it judged
    assert {f.fields.get("judge") for f in mc.findings(lang)} == {judge.says}


def test_across_a_process_the_json_is_read_once_into_the_same_value():
    mc = _checked(Verdict("compiles", topology="v5e:2x2"))
    doc = offload_document(mc.report("offload"), mc.details())
    back = wire.from_wire(wire.to_wire(doc))
    assert isinstance(back["confirm"], ConfirmObject) and not isinstance(back["confirm"], type(None))
    assert back["confirm"].confirmation.to_json() == doc["confirm"].confirmation.to_json() == dict(doc["confirm"])
    assert confirm_lines(confirmation_of(back["confirm"])) == confirm_lines(mc.confirm)
    assert mc.confirm.agree is False and mc.confirm.is_error is False  # E1200 predicted, the compiler accepts


def test_a_plain_confirm_object_is_refused_by_the_views():
    """A renderer handed JSON that no ``load_document`` typed is a bug of its caller, said at once."""
    plain = {"available": False, "reason": "no libtpu", "install": "pip", "platform": "tpu", "topology": "v5e:2x2"}
    with pytest.raises(TypeError):
        confirmation_of(plain)
    assert confirmation_of(wire.load_document({"confirm": plain})["confirm"]).reason == "no libtpu"


@pytest.mark.parametrize("doc", [
    {"available": False, "reason": "r", "install": "pip install 'xladoctor[tpu]'", "platform": "tpu",
     "topology": "v5e:2x2"},
    {"available": True, "platform": "tpu", "topology": "TPU v5 lite", "input": "stablehlo", "agree": None,
     "reason": "no verdict", "predicted": Prediction("compiles").to_json(),
     "verdict": Verdict("timeout", reason="60 s", topology="TPU v5 lite").to_json(), "predicted_for": "tpu",
     "judge": {"kind": "chip", "device": "TPU v5 lite", "ran": True, "says": "TPU v5 lite chip, compiled and ran"},
     "run": {"outcome": "halt", "cpu": "c", "seed": 0, "wrong": []}},
])
def test_the_json_round_trips_byte_for_byte(doc):
    c = Confirmation.from_json(doc)
    assert c.to_json() == doc and list(c.to_json()) == list(doc)
    assert c.is_error is (doc.get("run", {}).get("outcome") == "halt")


def test_no_view_reads_a_confirm_objects_json():
    """report/ draws the confirmation from its attributes: no Verdict/Prediction/Confirmation is
    rebuilt from JSON there (it was, in report/confirm.py, before)."""
    types = {"Verdict", "Prediction", "Confirmation", "Judge"}
    for path in sorted((SRC / "report").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        calls = [n.func.value.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr == "from_json" and isinstance(n.func.value, ast.Name)]
        assert not types & set(calls), path.name
