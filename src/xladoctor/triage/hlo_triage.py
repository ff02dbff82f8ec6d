"""Decide from the raw bytes of an HLO module whether any ``check`` analysis applies, before parsing.

XLA's HostOffloader (and HostOffloadLegalize before it) only acts on:

* ``MoveToHost`` / ``MoveToDevice`` custom calls and ``annotate_device_placement`` calls
  with an ``_xla_buffer_placement`` frontend attribute (``pinned_host``, ``device``, ...);
* values in host memory: the memory space ``S(5)`` in a layout (entry parameters
  streamed from host, ``AllocateBuffer`` on host), and ``S(6)`` (``unpinned_host``), whose
  entry values libtpu fails or JAX refuses after HostOffloader (``pipeline.unpinned_host_failures``);
* host compute: ``_xla_compute_type="host"`` or a computation on a host ``execution_thread``.

A module whose text contains none of these tokens has nothing the pass would rewrite
or reject, so its E1200 verdict is "no error" without parsing it (the test suite proves
the full analysis agrees on every module of the test corpus).  A compiled
(post-optimisation) module has no offload verdict to compute either.  Parsing is what
costs (about 15 µs per instruction); this costs one byte scan.  A module with a layout XLA's shape
validation refuses is parsed too (:mod:`.layout_scan`), so ``check`` gives the layout warnings
``offload`` gives.  ``check --full`` parses every module anyway, to report syntax errors in modules
nothing else applies to.
"""

from __future__ import annotations

import re

from ..ir.value import FrozenValue

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

OFFLOAD_TOKENS: tuple[bytes, ...] = (
    b"MoveToHost", b"MoveToDevice", b"annotate_device_placement", b"_xla_buffer_placement",
    b"S(5)", b"S(6)", b"AllocateBuffer", b"_xla_compute_type", b"execution_thread", b"pinned_host",
)
"""Any of these bytes anywhere (even in a comment or metadata) sends the module to the full analysis."""

_NAME = re.compile(rb"HloModule\s+([^\s,]+)")


class Triage(FrozenValue):
    """What a module needs: ``analyse`` (parse + offload analysis), with the tokens that asked for it,
    or a layout the parser warns of (``layouts``: the parse makes the E0002 warnings ``offload`` gives).
    Written out, not a dataclass (:mod:`..ir.value`: start-up, issue 36)."""

    _FIELDS = ("module_name", "compiled", "tokens", "layouts")

    module_name: str
    compiled: bool
    tokens: tuple[str, ...]
    layouts: bool

    def __init__(self, module_name: str, compiled: bool, tokens: tuple[str, ...], layouts: bool = False) -> None:
        object.__setattr__(self, "module_name", module_name)
        object.__setattr__(self, "compiled", compiled)
        object.__setattr__(self, "tokens", tokens)
        object.__setattr__(self, "layouts", layouts)

    @property
    def analyse(self) -> bool:
        return (bool(self.tokens) or self.layouts) and not self.compiled


def _finder():
    try:
        from ahocorasick_rs import BytesAhoCorasick, MatchKind
    except ImportError:  # pragma: no cover
        return None
    return BytesAhoCorasick(list(OFFLOAD_TOKENS), matchkind=MatchKind.LeftmostFirst)


_AC: Any = None
"""The automaton once built; ``False`` when ahocorasick_rs is missing (each token is then looked up)."""


def offload_tokens(data: bytes | bytearray) -> tuple[str, ...]:
    """The distinct offload tokens present in ``data``, in :data:`OFFLOAD_TOKENS` order.

    One automaton pass says whether any is present (leftmost-first reports at least the
    first occurrence of some token whenever one occurs); only then is each looked up.
    """
    global _AC
    if _AC is None:
        _AC = _finder() or False
    if _AC and not _AC.find_matches_as_indexes(data):
        return ()
    return tuple(t.decode() for t in OFFLOAD_TOKENS if t in data)


def triage(data: bytes | bytearray, compiled: bool) -> Triage:
    """The module's name (from its ``HloModule`` line) and what it needs."""
    m = _NAME.search(data, 0, 1 << 20)
    name = m.group(1).decode("utf-8", "replace") if m else "?"
    if compiled:
        return Triage(name, compiled, ())
    tokens = offload_tokens(data)
    if tokens:
        return Triage(name, compiled, tokens)
    from .layout_scan import has_warned_layout

    return Triage(name, compiled, (), has_warned_layout(data))
