"""StableHLO text to HLO text, by jaxlib's own converter (the ``[jax]`` extra).

A lone ``.mlir``/``.stablehlo`` file (``Lowered.as_text()`` saved without its HLO) carries the
host-offload annotations and memory kinds in MLIR syntax; every analysis here reads HLO.  The
only faithful way from one to the other is XLA's own legalisation, which jaxlib exposes as
``mlir_module_to_xla_computation`` (what ``jax.jit(...).lower(...).as_text("hlo")`` runs).
Without jaxlib there is no verdict to give: the caller gets an :class:`InputError` that names
the extra, never a clean result.
"""

from __future__ import annotations

from ..base.errors import InputError


def hlo_text_of(stablehlo: str, source: str) -> str:
    """The HLO text of the StableHLO module ``stablehlo`` read from ``source``; an
    :class:`InputError` at ``source:1:1`` when jax is missing or the module does not convert."""
    try:
        from jax._src.lib import _jax  # jaxlib's MLIR bridge; jax itself is not initialised
    except ImportError:
        raise InputError("StableHLO alone is checked by converting it to HLO, which needs jax: "
                         "pip install 'xladoctor[jax]' (or put its HLO text beside it as NAME.hlo)", source) from None
    try:
        computation = _jax.mlir.mlir_module_to_xla_computation(stablehlo, use_tuple_args=False, return_tuple=False)
    except Exception as e:  # jaxlib raises its own error types (XlaRuntimeError, ValueError) with MLIR's words
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise InputError(f"StableHLO does not convert to HLO: {first}", source) from None
    return str(computation.as_hlo_text())
