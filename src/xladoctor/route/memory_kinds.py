"""Whether an HLO module's text says which memory each argument and output is in.

``Lowered.as_text("hlo")`` -- the file a JAX user saves -- carries no memory kinds: JAX hands
them to the compiler on ``@main`` of the StableHLO (``mhlo.memory_kind``), and the compile path
writes them into the entry layout (``S(5)``) and the ``arg_memory_spaces``/``out_memory_spaces``
frontend attributes (what ``--xla_dump_to``'s ``before_optimizations.txt`` holds).  Checked
against the real compiler on 244 user programs: reading such a text as if every buffer were in
device memory was wrong on 92 of them, silently.  So a JAX lowering whose text carries neither,
and that places values (placement annotations, host compute), gets no verdict from ``check``
without its StableHLO: which outputs the answer hangs on, and how to get a faithful input.
"""

from __future__ import annotations

from ..base.lazy_pattern import LazyPattern
from ..ir.value import FrozenValue

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

_JAX_PREFIXES = ("jit_", "pjit_", "xla_computation_")  # a str test: no regex compiled at start-up (issue 36)
_PLACEMENT_CALLS = frozenset({"annotate_device_placement", "MoveToHost", "MoveToDevice"})
_KIND_ATTRS = ("arg_memory_spaces", "out_memory_spaces")


class MemoryKinds(FrozenValue):
    """Where the memory kinds of a module's entry come from (``check --json``'s ``memory_kinds``).
    Written out, not a generated class (:mod:`..ir.value`: start-up, issue 36)."""

    _FIELDS = ("source", "stablehlo", "outputs", "arguments", "annotations")

    source: str
    """``stablehlo`` (the companion file), ``module`` (its entry layout says), ``unknown``."""
    stablehlo: str | None
    outputs: tuple[tuple[int, ...], ...]
    """``unknown``: the outputs whose verdict hangs on a memory kind the text does not give."""
    arguments: int
    """``unknown``: how many arguments may be in host memory for all the text says."""
    annotations: tuple[str, ...]

    def __init__(self, source: str, stablehlo: str | None = None, outputs: tuple[tuple[int, ...], ...] = (),
                 arguments: int = 0, annotations: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "stablehlo", stablehlo)
        object.__setattr__(self, "outputs", outputs)
        object.__setattr__(self, "arguments", arguments)
        object.__setattr__(self, "annotations", annotations)

    @property
    def known(self) -> bool:
        return self.source != "unknown"

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"source": self.source, "known": self.known, "stablehlo": self.stablehlo}
        if not self.known:
            doc["undecidable_outputs"] = [list(i) for i in self.outputs]
            doc["undecidable_arguments"] = self.arguments
            doc["placements"] = list(self.annotations)
        return doc


def _is_jax_lowering(module: Any) -> bool:
    attrs = module.frontend_attributes or {}
    return (module.name or "").startswith(_JAX_PREFIXES) or any(k.startswith(("xla.sdy.", "mhlo.")) for k in attrs)


def _layout_says(module: Any) -> bool:
    """The entry layout was written by a compiler (tiles, a memory space) or the kinds are attributes."""
    if any(k in (module.frontend_attributes or {}) for k in _KIND_ATTRS):
        return True
    ecl = module.entry_computation_layout
    if ecl is None:
        return False
    for shape in (*ecl.parameters, ecl.result):
        for _, leaf in shape.leaves():
            if leaf.layout is not None and (leaf.layout.memory_space != 0 or leaf.layout.tiles):
                return True
    return False


def _placements(module: Any) -> list[Any]:
    """The placement annotations and host-compute instructions, in module order.

    Every instruction is looked at (``offload`` asks of every JAX lowering): the opcode by identity
    with the module constant, and the frontend attributes from the rare fields the instruction
    stores (None for most), not through the property, a Python call per instruction (13.5 -> 5.6 ms
    at ``jax_entry`` 100k, issue 36)."""
    from ..ir.opcodes import CUSTOM_CALL  # here: check's triage reads this module's header test alone

    out = []
    custom_call, calls = CUSTOM_CALL, _PLACEMENT_CALLS
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.opcode is custom_call and instr.custom_call_target in calls:
                out.append(instr)
                continue
            extra = instr._extra  # RareFieldAccess's own field: frontend_attributes reads it so
            if extra is not None:
                attrs = extra.frontend_attributes
                if attrs and attrs.get("_xla_compute_type") == "host":
                    out.append(instr)
    return out


def _reached_outputs(module: Any, placements: list[Any]) -> list[tuple[int, ...]]:
    """Entry outputs a placed value flows to (through any instruction: the kind decides the verdict)."""
    root = module.entry.root_instruction()
    leaves: list[tuple[int, ...]] = [()] if not root.shape.is_tuple else [(i,) for i in range(len(root.shape.tuple_shapes))]
    if root.opcode.value != "tuple":
        return leaves
    placed = {id(p) for p in placements}
    out = []
    for i, operand in zip(leaves, root.operands):
        seen, todo = set(), [operand]
        while todo:
            x = todo.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            if id(x) in placed or x.called:
                out.append(i)
                break
            todo.extend(x.operands)
    return out


_DUMP_NAME = LazyPattern(r"(?:^|/)module_\d+\.[^/]*$")


def is_xla_dump(path: str | None) -> bool:
    """``module_0001.jit_f....txt``: written by ``--xla_dump_to``, whose entry layout is the
    compiler's (``S(5)`` where JAX asked for ``pinned_host``): the kinds are in the text."""
    return bool(path and "module_" in path and _DUMP_NAME.search(path.replace("\\", "/")))


_HEADER_NAME = LazyPattern(r"^HloModule\s+(?:jit|pjit|xla_computation)_")
_NO_ARGUMENTS = LazyPattern(r"entry_computation_layout=\{\(\)")


def kindless_jax_header(header: str) -> bool:
    """From the ``HloModule`` line alone: a JAX lowering with arguments whose entry layout carries no
    memory kinds (so its bytes need parsing even without any offload token: a ``pinned_host``
    argument leaves none in the text, and returning or computing on it is an E1200)."""
    if not _HEADER_NAME.match(header) or "entry_computation_layout=" not in header:
        return False
    return not (_NO_ARGUMENTS.search(header) or "S(" in header or ":T(" in header or "memory_spaces" in header)


def memory_kinds_of(module: Any, stablehlo_path: str | None = None, path: str | None = None) -> MemoryKinds:
    """How much of the verdict the module's text alone can decide.

    A JAX lowering without kinds is undecidable when it places values (the kinds of the outputs
    those reach decide) and also when it places none but has arguments: a ``pinned_host``
    argument leaves no trace in ``as_text("hlo")`` (measured: 25 of 72 host-parameter programs
    fail with E1200 whose text has no offload token at all)."""
    if stablehlo_path is not None:
        return MemoryKinds("stablehlo", stablehlo_path)
    if module.entry is None or is_xla_dump(path) or not _is_jax_lowering(module) or _layout_says(module):
        return MemoryKinds("module")
    ecl = module.entry_computation_layout
    n_args = len(ecl.parameters) if ecl is not None else len(module.entry.parameters)
    placements = _placements(module)
    if not placements and not n_args:
        return MemoryKinds("module")
    sources = placements or list(module.entry.parameters)
    return MemoryKinds("unknown", None, tuple(_reached_outputs(module, sources)), n_args,
                       tuple(p.name for p in placements[:20]))
