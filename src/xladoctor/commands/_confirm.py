"""``--confirm``: the real TPU compiler's verdict next to our prediction (offload, check).

Shared by the ``offload`` and ``check`` commands so both print and serialise the same thing.
Nothing here imports jax: the compile runs in the oracle's worker process, and without the
``[tpu]`` extra the result is a one-line note on how to get it.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..labels import label

if TYPE_CHECKING:
    from ..ir.module import HloModule
    from ..offload.result import HostOffloadResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..oracle.topologies import DEFAULT_TOPOLOGY, TOPOLOGIES

    parser.add_argument("--confirm", action="store_true",
                        help="also compile with the real TPU compiler (libtpu, no TPU needed; "
                             "pip install 'xladoctor[tpu]') and flag any disagreement")
    parser.add_argument("--topology", default=DEFAULT_TOPOLOGY, choices=TOPOLOGIES,
                        help=f"TPU topology --confirm compiles for (default {DEFAULT_TOPOLOGY})")


def confirm(text: str, module: HloModule, result: HostOffloadResult, topology: str,
            stablehlo: str | None = None) -> dict[str, Any]:
    """Compile ``text`` (or, when given, the same program's ``stablehlo``, which carries
    JAX's memory kinds) and compare.  JSON-ready: see docs/json.md, ``confirm``."""
    from ..oracle import INSTALL_HINT, compare, prediction_of, shared_worker

    worker = shared_worker(topology)
    why = worker.unavailable
    if why is not None:
        return {"available": False, "reason": why, "install": INSTALL_HINT, "topology": topology}
    # The optimised module is kept out of reports (large; --json users can compile themselves).
    verdict = (worker.compile_stablehlo(stablehlo, want_text=False) if stablehlo is not None
               else worker.compile_hlo(text, want_text=False))
    comparison = compare(prediction_of(result, module), verdict)
    return {"available": True, "topology": topology, "input": "stablehlo" if stablehlo is not None else "hlo",
            **comparison.to_json()}


def is_error(doc: dict[str, Any] | None) -> bool:
    """Did the real compiler reject the module (E1200, another error, a crash)?"""
    from ..oracle.verdict import ERROR_KINDS

    return bool(doc and doc.get("available") and doc["verdict"]["kind"] in ERROR_KINDS)


def note_if_unavailable(doc: dict[str, Any] | None) -> None:
    """The one-line note on stderr when --confirm cannot run here."""
    if doc is not None and not doc.get("available"):
        print(label("confirm.skipped", reason=doc["reason"]), file=sys.stderr)


def render(doc: dict[str, Any] | None, indent: str = "") -> list[str]:
    """Prediction and verdict side by side, then AGREE / DISAGREE."""
    if doc is None:
        return []
    if not doc.get("available"):
        return [indent + label("confirm.not_run", reason=doc["reason"])]
    from ..oracle.comparison import Prediction
    from ..oracle.verdict import Verdict

    v = Verdict.from_json(doc["verdict"])
    lines = [indent + label("confirm.heading", topology=doc["topology"], input=doc["input"]),
             indent + "  " + label("confirm.predicts", summary=Prediction.from_json(doc["predicted"]).summary()),
             indent + "  " + label("confirm.compiler_says", summary=v.summary())]
    if v.kind == "crash" and v.check_line:
        lines.append(f"{indent}    {v.check_line}")
    key = {True: "confirm.agree", False: "confirm.disagree"}.get(doc["agree"], "confirm.cannot_compare")
    lines.append(indent + "  " + label(key, reason=doc["reason"]))
    return lines
