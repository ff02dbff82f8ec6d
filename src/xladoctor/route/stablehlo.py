"""The StableHLO alone: a ``.mlir``/``.stablehlo`` module with no HLO text beside it (issue 37).

``check model.mlir`` asks the question ``check model.hlo`` answers, so the module is converted
to HLO by jaxlib (:mod:`xladoctor.oracle.stablehlo_hlo`) and checked as HLO, with the file
itself as its StableHLO companion, so the memory kinds its signature gives (``mhlo.memory_kind``)
reach the analysis as they do for ``NAME.hlo`` beside ``NAME.mlir``.  Without jax the input is
an input error that names the ``[jax]`` extra (exit 2), never "clean".
"""

from __future__ import annotations

import os

from ..base.plain_dataclass import fields_with  # a Report copied: no dataclasses (issue 36)
from ..findings.model import Report
from .options import Options

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import BinaryIO

STABLEHLO_SUFFIXES = (".mlir", ".stablehlo")


def looks_like_stablehlo(head: str) -> bool:
    """An MLIR module of StableHLO ops: its first line that is not a comment opens a ``module``
    or a ``func.func``, and a ``stablehlo.`` op or attribute appears in the first bytes."""
    from ..syntax.module_sniff import hlo_header  # the first line not blank or a comment, as for HLO

    first = hlo_header(head) or ""
    return first.startswith(("module", "func.func")) and ("stablehlo." in head or "mhlo." in head)


def route_stream(f: BinaryIO, head: bytes, source: str, opts: Options) -> Report:
    """``check``'s Report of a StableHLO module read from ``f`` (``head``: its first bytes):
    converted to HLO and checked as that module, with ``source`` as its StableHLO."""
    from ..base.files import decode_text
    from ..oracle.stablehlo_hlo import hlo_text_of
    from .hlo_text import check_hlo, read_rest

    data = read_rest(f, head, source)
    text = decode_text(bytes(data), source)
    del data
    if text.startswith("\ufeff"):
        text = text[1:]
    companion = source if os.path.isfile(source) else None  # stdin: the text's own memory kinds only
    # The findings' lines are the converted HLO's, not the file's: they are located in a name no
    # snippet reader opens, so no line of the .mlir is shown under an HLO line number.
    report = check_hlo(hlo_text_of(text, source), as_hlo(source), opts, companion)
    return type(report)(**fields_with(report, {"inputs": (source,)}))


def as_hlo(source: str) -> str:
    """The name the converted module's findings are located in (``<NAME.mlir as HLO>``)."""
    return f"<{source} as HLO>"

