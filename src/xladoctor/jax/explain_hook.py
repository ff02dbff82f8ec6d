"""E1200 and E0102 explained where they happen: right under JAX's own error.

XLA's E1200 names an instruction of the compiled module ("starting from tuple.1") and E0102 a
flattened parameter number; neither says which Python line or which argument.  The program
is still at hand when the error is raised: ``Lowered.compile`` has the lowered program as
``self``, ``Compiled.__call__`` the executable and the arguments.  :func:`explain` walks the
exception's traceback for them and runs the same analysis as ``check_offload`` /
``check_inputs``, so the path, the Python lines and the fix come in the user's own terms;
without them it explains XLA's message as ``explain LOG`` does.

:func:`install` (opt-in: it wraps two jax methods) adds that text to every such error as an
exception note (PEP 678), which Python, IPython and pytest print right under the error; on
Python 3.10, which prints no notes, a ``sys.excepthook`` prints it after the traceback.
``%load_ext xladoctor.jax`` does the same in IPython.
"""

from __future__ import annotations

import functools
import re
import sys
import types
from typing import Any

from ..base.labels import label

CODES = ("E1200", "E0102")
_CODE = re.compile(r"\b(E1200|E0102)\b")
_NOTE_MARK = "xladoctor:"
_installed: dict[str, Any] = {}


_JAX_LAYOUTS = re.compile(r"Computation was compiled for input layouts that disagree with the layouts of arguments")
"""JAX's own check of committed arguments' layouts, made before XLA's runtime would say E0102."""


def error_code(exc: BaseException) -> str | None:
    """``E1200``, ``E0102``, ``E01xx`` or None for ``exc``.  The runtimes' E0102 messages do not carry the
    code ("expected parameter 3 of size ... but got buffer with incompatible size ..."), so
    they are recognised by their text, and so is JAX's layout ``ValueError`` before them."""
    text = str(exc)
    m = _CODE.search(text)
    if m is not None:
        return m.group(1)
    if _JAX_LAYOUTS.search(text):
        return "E0102"
    from ..inputs.jax_messages import parse
    from ..inputs.messages import parse_e0102

    if parse_e0102(text) is not None:
        return "E0102"
    # JAX's other layout and memory-kind checks (jit given a Format, memory kinds): explained as
    # `explain LOG` does, there is no compiled program to compare with.
    return "E01xx" if parse(text) is not None else None


def explain(exc: BaseException) -> str | None:
    """What xladoctor says about ``exc`` (a JAX/XLA error), or None when it is not E1200/E0102/E01xx."""
    code = error_code(exc)
    if code is None:
        return None
    body = _from_program(exc, code)
    if body is None:
        from ..route.log_report import explain_log

        body = str(explain_log(exc, lang="en")).rstrip("\n")
    header = "jax_report.hook_header_jax_layouts" if _JAX_LAYOUTS.search(str(exc)) else "jax_report.hook_header"
    return label(header, code=code) + "\n" + body


def _frames(exc: BaseException) -> list[types.FrameType]:
    out = []
    tb = exc.__traceback__
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out


def _from_program(exc: BaseException, code: str) -> str | None:
    """The analysis of the program the traceback holds: its ``Lowered`` for E1200, its
    ``Compiled`` and arguments for E0102; None when the traceback holds neither."""
    from jax import stages

    for frame in reversed(_frames(exc)):
        this = frame.f_locals.get("self")
        try:
            if code == "E1200" and isinstance(this, stages.Lowered):
                from .offload_check import check_offload

                report = check_offload(this)
                if report.findings_of("E1200"):
                    return _as_raised(str(report).rstrip("\n"))
            if code == "E0102" and isinstance(this, stages.Compiled):
                from .inputs_check import check_inputs

                inputs = check_inputs(this, *frame.f_locals.get("args", ()), **frame.f_locals.get("kwargs", {}))
                if not inputs.ok:
                    return str(inputs).rstrip("\n")
        except Exception:
            return None
    return None


def _as_raised(text: str) -> str:
    """``check_offload``'s text where XLA has spoken already: its message, printed right above,
    is not quoted again as what XLA "will say", and the fix's code builds the out_shardings from
    a call the user can write (there is no ``report`` in their program)."""
    heading = "  " + label("jax_report.xla_will_say")
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line == heading:
            skipping = True
            continue
        if skipping and line.startswith("    "):
            continue
        skipping = False
        out.append(line.replace("=report.suggested_out_shardings", "=" + label("jax_report.hook_report_call")
                                + ".suggested_out_shardings"))
    return "\n".join(out)


def _annotate(exc: BaseException) -> None:
    if any(str(n).startswith(_NOTE_MARK) for n in getattr(exc, "__notes__", ())):
        return
    text = explain(exc)
    if text is None:
        return
    if hasattr(exc, "add_note"):
        exc.add_note(text)
    else:  # Python 3.10: kept for the excepthook, which prints it
        exc.__notes__ = [*getattr(exc, "__notes__", []), text]  # type: ignore[attr-defined]


def _wrap(method: Any) -> Any:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            _annotate(exc)
            raise
    wrapper.__xladoctor_wrapped__ = method  # type: ignore[attr-defined]
    return wrapper


def _excepthook(kind: type[BaseException], exc: BaseException, tb: types.TracebackType | None) -> None:
    _annotate(exc)
    _installed["excepthook"](kind, exc, tb)
    if sys.version_info < (3, 11):
        for note in getattr(exc, "__notes__", ()):
            print(note, file=sys.stderr)


def install() -> None:
    """Annotate every E1200/E0102 JAX raises with xladoctor's explanation (idempotent)."""
    if _installed:
        return
    from jax import stages

    _installed["compile"] = stages.Lowered.compile
    _installed["call"] = stages.Compiled.__call__
    _installed["excepthook"] = sys.excepthook
    stages.Lowered.compile = _wrap(stages.Lowered.compile)
    stages.Compiled.__call__ = _wrap(stages.Compiled.__call__)
    sys.excepthook = _excepthook


def uninstall() -> None:
    """Undo :func:`install`."""
    if not _installed:
        return
    from jax import stages

    stages.Lowered.compile = _installed.pop("compile")
    stages.Compiled.__call__ = _installed.pop("call")
    if sys.excepthook is _excepthook:
        sys.excepthook = _installed["excepthook"]
    _installed.clear()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext xladoctor.jax``: :func:`install` in this kernel."""
    install()
