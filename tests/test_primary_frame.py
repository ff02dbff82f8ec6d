"""The user's line first (issue 38): the primary frame of an offload's Python stack
(``xladoctor/ir/frames.py``), in the JAX API report and in ``check`` alike.

A real jax program written as a project writes one: ``model.py`` calls ``place_to_host`` through
its own wrapper in ``helpers.py`` (which wraps another frontend's primitive, frontend_ops.py)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from xladoctor.ir.frames import frame_roles, is_wrapper, primitive_name, traced_name
from xladoctor.ir.instruction import SourceLocation

EXAMPLES = str(Path(__file__).resolve().parents[1] / "examples")

HELPERS = textwrap.dedent('''\
    from frontend_ops import place_to_host as _annotate


    def place_to_host(x):
        """The project's own wrapper around the frontend's annotation."""
        return _annotate(x)
    ''')
MODEL = textwrap.dedent('''\
    import jax.numpy as jnp
    from helpers import place_to_host


    def layer(x, w):
        h = jnp.tanh(x @ w)
        saved = place_to_host(h)  # THE USER'S LINE
        return saved, h * 2


    def step(x, w):
        saved, y = layer(x, w)
        return saved, y.sum()
    ''')


@pytest.fixture()
def program(tmp_path, monkeypatch):
    pytest.importorskip("jax")
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "model.py").write_text(MODEL)
    for path in (EXAMPLES, str(tmp_path)):
        monkeypatch.syspath_prepend(path)
    for name in ("helpers", "model"):
        sys.modules.pop(name, None)
    import model

    return tmp_path, model


def _args():
    import jax
    import jax.numpy as jnp

    return jax.ShapeDtypeStruct((16, 256), jnp.float32), jax.ShapeDtypeStruct((256, 256), jnp.float32)


def test_the_api_report_names_the_users_line_first_and_the_helpers_after(program):
    from xladoctor.jax import check_offload

    folder, model = program
    report = check_offload(model.step, *_args())
    finding = report.findings[0]
    at = finding.offloaded_at
    assert (at.file, at.line, at.function.rsplit(".", 1)[-1]) == (str(folder / "model.py"), 7, "layer")
    assert at.text == "saved = place_to_host(h)  # THE USER'S LINE"
    assert [(c.file, c.line) for c in finding.offloaded_from] == [(str(folder / "model.py"), 12)]
    via = [(Path(h.file).name, h.line) for h in finding.offloaded_via]
    assert via == [("helpers.py", 6), ("frontend_ops.py", 34)]  # from the user's line inwards
    text = str(report)
    assert text.index("moved to host at  " + str(folder / "model.py") + ":7") < text.index("helpers.py:6")
    assert "through        " + str(folder / "helpers.py") + ":6 in place_to_host" in text
    assert report.to_json()["findings"][0]["offloaded_via"][0]["file"] == str(folder / "helpers.py")


def test_check_on_the_lowered_text_shows_the_same_line(program, capsys):
    import jax

    from xladoctor.cli.main import main

    folder, model = program
    hlo = folder / "step.hlo"
    lowered = jax.jit(model.step).trace(*_args()).lower(lowering_platforms=("tpu",))
    hlo.write_text(lowered.as_text("hlo", debug_info=True))  # with its stack frames, as users save it
    (folder / "step.mlir").write_text(lowered.as_text())  # its memory kinds, read from beside it
    code = main(["check", str(hlo)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"--> {folder / 'model.py'}:7:" in out
    assert "saved = place_to_host(h)  # THE USER'S LINE" in out
    assert "return _annotate(x)" not in out and "place_to_host_p.bind" not in out


# -- the rule, frame by frame --------------------------------------------------------------------

def _loc(path: Path, line: int, function: str) -> SourceLocation:
    return SourceLocation(str(path), line, function)


def test_the_rule_drops_library_frames_wrappers_and_the_jitted_functions_callers(tmp_path):
    user = tmp_path / "train.py"
    user.write_text("def wrap(x):\n    return put(x, host)\n\ndef step(x):\n    y = wrap(x) + 1\n    return y\n"
                    "\nout = jit(step)(x)\n")
    library = tmp_path / "site-packages" / "jax" / "api.py"
    library.parent.mkdir(parents=True)
    library.write_text("y = 1\n")
    frames = [_loc(library, 1, "device_put"), _loc(user, 2, "wrap"), _loc(user, 5, "step"), _loc(user, 8, "<module>")]
    roles = frame_roles(frames, traced="step")
    assert roles.primary == frames[2] and roles.helpers == (frames[1],) and roles.callers == ()
    # without the jitted function's name, its callers count too, and the first user line still wins
    assert frame_roles(frames).primary == frames[2] and frame_roles(frames).callers == (frames[3],)


def test_every_frame_a_wrapper_gives_the_jitted_functions_own_line(tmp_path):
    user = tmp_path / "m.py"
    user.write_text("def step(x):\n    return place_to_host(x)\n")
    frames = [_loc(user, 2, "step")]
    assert is_wrapper(frames[0])
    assert frame_roles(frames, traced="step").primary == frames[0]


def test_a_wrapper_by_name_or_by_its_line(tmp_path):
    user = tmp_path / "m.py"
    user.write_text("return helper(x)\nreturn jnp.tanh(place(x))\ny = place(x)\nreturn f(\n")
    assert is_wrapper(_loc(user, 1, "anything"))
    assert not is_wrapper(_loc(user, 2, "layer"))  # computes on the placed value: the user's line
    assert not is_wrapper(_loc(user, 3, "layer"))
    assert not is_wrapper(_loc(user, 4, "layer"))  # a call over several lines: not a one-call hand-back
    assert is_wrapper(_loc(tmp_path / "gone.py", 1, "place_to_host"), primitive="place_to_host")
    assert not is_wrapper(_loc(tmp_path / "gone.py", 1, "layer"), primitive="place_to_host")
    assert primitive_name("jit(step)/jit(main)/place_to_host[memory=host]") == "place_to_host"
    assert traced_name("jit(step)/jit(main)/tanh") == "step" and traced_name("aten__mm") is None
