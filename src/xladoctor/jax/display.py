"""The JAX reports as ``--html`` pages, for ``_repr_html_`` in notebooks.

The pages are the command documents' renderers (:mod:`xladoctor.report.html`) fed the
same documents ``xladoctor offload --json`` and ``xladoctor inputs --json`` print, built
here from what :func:`~xladoctor.jax.check_offload` and :func:`~xladoctor.jax.check_inputs`
already computed: the HostOffloader result and the lowered module, or each leaf's E0102
comparison.  One renderer, so a notebook shows what a CI artefact shows.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..base.labels import label
from ..findings.details import offload_of
from ..findings.model import FixKind, Report
from ..findings.schema_files import OFFLOAD_SCHEMA_VERSION
from ..findings.wire import typed
from ..inputs.compare import InputCheck
from ..report.html import render_inputs_html, render_offload_html
from ..report.html_base import esc
from ..report.notebook import notebook_frame


def offload_document(report: Report) -> dict[str, Any]:
    """The ``offload`` command document of the lowered program (docs/json.md ``## offload``),
    drawn by the ``offload`` command's own view (:func:`xladoctor.report.offload_json.offload_document`)
    from the program's diagnostics Report and its :class:`~xladoctor.findings.details.OffloadDetails`."""
    from ..report.offload_json import offload_document as draw

    if report.result is None or report.program is None:
        raise ValueError("the report holds no analysed program")
    diagnostics: Report = report.diagnostics()
    return {"schema_version": OFFLOAD_SCHEMA_VERSION, **draw(diagnostics, offload_of(diagnostics))}


def offload_html(report: Report) -> str:
    target = report.platform or label("jax_report.local_backend")
    title = label("jax_report.offload_title", module=report.program.module.name if report.program else "program",
                  target=target)
    return notebook_frame(render_offload_html(_with_python_fixes(offload_document(report), report), title=title))


def _with_python_fixes(doc: dict[str, Any], report: Report) -> dict[str, Any]:
    """The page's E1200 fixes with the program's own JAX code, as ``print(report)`` gives it
    (``jax.jit(f, out_shardings=(host, None))``, the move back on the user's variable), where
    the HLO-level document has only the generic snippet.  Both lists follow the analysis'
    errors in order.  The typed findings are edited (the page draws them; nothing is parsed)."""
    diagnostics: Report = report.diagnostics()
    e1200 = [f for f in diagnostics.findings if f.code == "E1200"]
    mine = {id(f): finding for f, finding in zip(e1200, (f for f in report.findings if f.code == "E1200"))}
    code = {FixKind.HOST_OUTPUT: "host_fix", FixKind.MOVE_TO_DEVICE: "device_fix"}
    findings = tuple(f if id(f) not in mine else replace(f, fixes=tuple(
        replace(x, code=getattr(mine[id(f)], code[x.kind])) if x.kind in code else x for x in f.fixes))
        for f in diagnostics.findings)
    return {**doc, "diagnostics": typed(replace(diagnostics, findings=findings))}


def inputs_document(report: Report) -> dict[str, Any]:
    """The ``inputs`` command document of the executable's leaves (docs/json.md ``## inputs``)."""
    from ..report.inputs_json import inputs_document  # the one builder of that document

    # Leaf paths are the parameters' names (``args[0]['w']``), as the text report gives them.  Each
    # leaf's own device_put line is in the diagnostics' fixes, which the page draws its fixes from.
    check = InputCheck("compiled", report.leaves, report.leaves,
                       [m.detail for m in report.mismatches if m.detail is not None])
    return {"schema_version": 1, **inputs_document(check), "diagnostics": typed(report.diagnostics())}


def inputs_html(report: Report) -> str:
    if report.structure_error:  # no leaf was compared: the text says why
        return f"<pre>{esc(str(report))}</pre>"
    return notebook_frame(render_inputs_html(inputs_document(report), title=label("jax_report.inputs_title")))
