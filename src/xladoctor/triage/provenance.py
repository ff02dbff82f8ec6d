"""Where an HLO module came from: which platform lowered or compiled it, and at which stage.

The E1200 analysis is about what XLA's TPU/GPU compiler does with a module, so the module
has to be the one that compiler sees.  A module lowered or compiled for CPU is not: jax's
CPU lowering leaves out the ``annotate_device_placement`` calls that host offloading is
made of (checked with jax 0.10.2: a scan that moves each layer's activation to
``pinned_host`` lowers with 2 such calls for TPU and none for CPU; a top-level
``device_put`` to ``pinned_host``, 1 and none), while the memory kinds of the arguments and
outputs survive.  A verdict on such a module cannot stand for TPU/GPU.

Evidence, strongest first (each rule records what it saw):

* the dump file name XLA gave it: ``module_0001.jit_f.cpu_after_optimizations.txt`` (CPU),
  ``...sm_8.0_gpu_after_optimizations.txt`` (GPU), ``module_0000.jit_f.cl_933746096.*`` with a
  ``tpu_comp_env.txt`` beside it (libtpu);
* the other files XLA dumped for the same module: ``*.cpu_after_optimizations*``, ``*.ll`` /
  ``*.o`` object code (CPU), ``*.ptx`` (GPU), ``*.tpu_comp_env.txt`` (TPU);
* the text: TPU tiled layouts (``T(8,128)``) and ``scoped_memory_configs`` backend configs;
  GPU library calls (``__cublas$gemm``, ``__cudnn$...``, Triton) and ``operation_queue_id``;
  CPU library calls (``__onednn$...``, LAPACK);
* the stage: ``is_scheduled=true`` or ``after_optimizations`` means the module was compiled.
"""

from __future__ import annotations

import bisect
import functools
import os
import re

from ..base.labels import label
from ..base.lazy_pattern import LazyPattern
from ..ir.record import MutableValue
from ..syntax.module_sniff import hlo_header  # re-exported: the sniff is syntax's, a log's route needs no more

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

_GPU_NAME = LazyPattern(r"(?:^|\.)(?:sm_\d+\.\d+[a-z]?_gpu|gpu|gfx\w+_gpu)_after_optimizations")
"""``sm_9.0a_gpu_after_optimizations`` (H100's sm_90a, jaxlib 0.10.2's XLA:GPU), ``sm_8.0_gpu_...``."""
_CPU_NAME = LazyPattern(r"(?:^|\.)cpu_after_optimizations")
_TPU_NAME = LazyPattern(r"\.cl_\d+\.")
# The name patterns are compiled (LazyPattern) and tried only where a name holds their fixed part:
# a module named otherwise (most) costs a substring test, not ~0.5 ms of compiling (issue 36).

_TEXT_RULES: tuple[tuple[str, str], ...] = (
    # the evidence is a label key (provenance.*), put into words when found: a note in the reader's language
    ("tpu", "provenance.tpu_tiled_layout"),  # _TILED_LAYOUT
    ("tpu", "provenance.tpu_backend_config"),  # '"scoped_memory_configs"'
    ("tpu", "provenance.tpu_kernel"),  # custom_call_target="tpu_custom_call"
    ("gpu", "provenance.gpu_library_call"),  # custom_call_target="__cublas..., __cudnn..., __triton..., __gpu$...
    ("gpu", "provenance.gpu_backend_config"),  # '"operation_queue_id"'
    ("cpu", "provenance.cpu_library_call"),  # custom_call_target="__onednn$..., lapack_..., xla.cpu....
)
"""What the text can show (:func:`text_rules_matched`): each rule's platform and evidence."""
_TILED_LAYOUT = LazyPattern(r"\{[\d,]*:[^}]*T\(\d")
_LITERAL_RULES = ((1, '"scoped_memory_configs"'), (4, '"operation_queue_id"'))
_TARGET_RULES = ((2, 'tpu_custom_call"'), (3, r"__(?:cublas|cudnn|triton|gpu\$)"), (5, r"(?:__onednn\$|lapack_|xla\.cpu\.)"))
"""The custom-call target each rule looks for, after ``custom_call_target="``: no two can match at one place."""
_OFFLOAD_MARKS = ("annotate_device_placement", "MoveToHost", "MoveToDevice", "_xla_buffer_placement")
_TORCH_XLA_NAME = LazyPattern(r"HloModule\s+(?:SyncTensorsGraph|IrToHlo)\.\d+(?:[,\s]|$)")
"""PyTorch/XLA names its graphs ``SyncTensorsGraph.N`` (compiled by a sync, as ``--xla_dump_to``
shows them) and ``IrToHlo.N`` (``_get_xla_tensors_hlo``, ``XLA_SAVE_TENSORS_FILE``)."""
_TORCH_XLA_OP = LazyPattern(r'op_type="(?:xla__|aten__)')
"""Its ``XLA_HLO_DEBUG=1`` metadata: ``op_type="aten__mm"``, ``op_type="xla__device_data"``."""


class Provenance(MutableValue):
    """What the evidence says about one module (written out, not a generated class: start-up, issue 36)."""

    _FIELDS = ("platform", "stage", "evidence", "conflicting", "frontend", "possibly_cpu")

    platform: str | None
    """``cpu``, ``gpu``, ``tpu``, or ``None`` when nothing tells."""
    stage: str
    """``compiled`` (after XLA's optimisations) or ``lowered`` (what the compiler starts from)."""
    evidence: list[str]
    conflicting: bool
    """Evidence pointed at more than one platform (the strongest rule won)."""
    frontend: str | None
    """``pytorch_xla`` for a PyTorch/XLA graph (its module name or its ops' metadata), else None."""
    possibly_cpu: bool
    """Nothing tells the platform, and the module is what jax's CPU lowering leaves of a program
    that moves a host argument to device (:func:`possibly_cpu_lowering`): the verdict says so."""

    def __init__(self, platform: str | None, stage: str, evidence: list[str] | None = None, conflicting: bool = False,
                 frontend: str | None = None, possibly_cpu: bool = False) -> None:
        self.platform = platform
        self.stage = stage
        self.evidence = [] if evidence is None else evidence
        self.conflicting = conflicting
        self.frontend = frontend
        self.possibly_cpu = possibly_cpu

    @property
    def faithful_for_accelerator(self) -> bool | None:
        """Can an offload verdict on this module stand for TPU/GPU?  ``None``: cannot tell."""
        if self.platform is None:
            return None
        return self.platform != "cpu" or self._same_graph_everywhere

    @property
    def _same_graph_everywhere(self) -> bool:
        """PyTorch/XLA lowers one graph for every device, its placement custom calls included (torch_xla
        2.9.0: the CPU dump of ``place_to_host`` keeps ``annotate_device_placement``), so its CPU
        lowering is the TPU's module; only a compiled (after-optimisations) module is the CPU's own."""
        return self.frontend == "pytorch_xla" and self.stage == "lowered"

    def note(self) -> str | None:
        """The warning to show with an offload verdict, or ``None`` when there is none to give."""
        if self.platform == "cpu" and self._same_graph_everywhere:
            return label("status.pytorch_xla_cpu_lowered", evidence=self.evidence[0])
        if self.platform != "cpu":
            return label("status.maybe_cpu_lowered", evidence=self.evidence[0]) if self.possibly_cpu else None
        return label("status.cpu_compiled" if self.stage == "compiled" else "status.cpu_lowered",
                     evidence=self.evidence[0])

    def to_json(self) -> dict[str, Any]:
        doc = {"platform": self.platform, "stage": self.stage, "evidence": list(self.evidence),
               "conflicting": self.conflicting, "faithful_for_accelerator": self.faithful_for_accelerator,
               "note": self.note()}
        return {**doc, "frontend": self.frontend} if self.frontend else doc


def _header(text: str) -> str:
    return hlo_header(text) or ""


def _from_name(base: str) -> tuple[str, str] | None:
    if "cpu_after_optimizations" in base and _CPU_NAME.search(base):
        return "cpu", label("provenance.dump_name", name=base)
    if "_after_optimizations" in base and _GPU_NAME.search(base):
        return "gpu", label("provenance.dump_name", name=base)
    return None


_LISTING: dict[str, tuple[float, list[str]]] = {}


def _listing(directory: str) -> list[str]:
    """``os.listdir``, cached per directory while its mtime holds (check walks big dump dirs)."""
    try:
        mtime = os.stat(directory).st_mtime
        cached = _LISTING.get(directory)
        if cached is None or cached[0] != mtime:
            cached = _LISTING[directory] = (mtime, sorted(os.listdir(directory)))
        return cached[1]
    except OSError:
        return []


def _from_siblings(path: str) -> list[tuple[str, str]]:
    """What XLA dumped next to this file for the same module (``module_NNNN.`` prefix):
    the backend's own after-optimisations name first, then its code or environment files."""
    base = os.path.basename(path)
    m = re.match(r"^(module_\d+\.)", base) if base.startswith("module_") else None
    if not m:
        return []
    named: list[tuple[str, str]] = []
    other: list[tuple[str, str]] = []
    listing = _listing(os.path.dirname(path) or ".")
    prefix = m.group(1)
    # the listing is sorted: this module's files are one run of it, found by bisection, so a dump
    # folder of N files costs each of its modules log N, not N (check triages every module)
    for i in range(bisect.bisect_left(listing, prefix), len(listing)):
        name = listing[i]
        if not name.startswith(prefix):
            break
        if name == base:
            continue
        if "cpu_after_optimizations" in name and _CPU_NAME.search(name):
            named.append(("cpu", label("provenance.cpu_dumped", name=name)))
        elif "_after_optimizations" in name and _GPU_NAME.search(name):
            named.append(("gpu", label("provenance.gpu_dumped", name=name)))
        elif name.endswith("tpu_comp_env.txt"):
            named.append(("tpu", label("provenance.tpu_dumped", name=name)))
        elif name.endswith((".ll", ".o")) and len(other) < 1:
            other.append(("cpu", label("provenance.cpu_dumped_object", name=name)))
        elif name.endswith(".ptx") and (not other or other[0][0] == "cpu"):
            # XLA:GPU dumps LLVM IR (.ll) too: its PTX beside it says the .ll was not the CPU's
            other[:1] = [("gpu", label("provenance.gpu_dumped", name=name))]
    named.sort(key=lambda hit: not hit[1].endswith("after_optimizations.txt for the same module"))
    return (named[:1] + other)[:2]


def is_compiled(text: str | bytes | bytearray, path: str | None = None) -> bool:
    """The stage rule, in one place: a post-optimization module is named ``*after_optimizations*``
    by XLA's dump or says ``is_scheduled=true`` on its ``HloModule`` line.

    Reads only the first 64 KiB (no copy of a module that may be hundreds of MB), as text or bytes,
    so ``check`` can decide before decoding.
    """
    if path and "after_optimizations" in os.path.basename(path):
        return True
    head = text[:1 << 16]
    head_text = head if isinstance(head, str) else bytes(head).decode("utf-8", "replace")
    return "is_scheduled=true" in _header(head_text)


def detect(text: str, path: str | None = None) -> Provenance:
    """The platform and stage of ``text`` (an HLO module), from its file name, siblings and body."""
    header = _header(text)
    base = os.path.basename(path) if path else ""
    compiled = is_compiled(text, path)
    hits: list[tuple[str, str]] = []
    named = _from_name(base) if base else None
    if named:
        hits.append(named)
    if path and os.path.isfile(path):
        hits.extend(_from_siblings(path))
    if ".cl_" in base and _TPU_NAME.search(base):
        hits.append(("tpu", label("provenance.tpu_dump_name", name=base)))
    for n in text_rules_matched(text):
        platform, key = _TEXT_RULES[n]
        hits.append((platform, label(key)))
    platforms = {p for p, _ in hits}
    prov = Provenance(hits[0][0] if hits else None, "compiled" if compiled else "lowered",
                      [what for _, what in hits], conflicting=len(platforms) > 1, frontend=frontend_of(text))
    if prov.platform is None and not compiled and not any(m in text for m in _OFFLOAD_MARKS) \
            and "S(5)" in header:
        prov.evidence.append(label("provenance.host_layout_no_annotation"))
    return prov


def text_rules_matched(text: str) -> list[int]:
    """The numbers of the :data:`_TEXT_RULES` that match somewhere in ``text``, in order.

    A search per rule was six scans of the whole text (~36 ms of a 10 MB module, issue 36); the
    two literals are looked for with ``in``, and the three custom-call targets as one expression
    after their common prefix: the leftmost match of those not yet found, from just after the
    previous one, until none is left -- at most one search per target, which together read the
    text about once.  (A target's first match is never passed over: no two targets match at one
    place, so every search starts at or before it while it is still wanted.)"""
    matched = [0] if _tiled_layout_in(text) else []
    matched.extend(n for n, literal in _LITERAL_RULES if literal in text)
    wanted = tuple(n for n, _ in _TARGET_RULES)
    pos = 0
    while wanted:
        m = _targets(wanted).search(text, pos)
        if m is None:
            break
        found = int(m.lastgroup[1:])  # type: ignore[index]
        matched.append(found)
        wanted = tuple(n for n in wanted if n != found)
        pos = m.start() + 1
    return sorted(matched)


def _tiled_layout_in(text: str) -> bool:
    """Whether :data:`_TILED_LAYOUT` matches somewhere in ``text``: tried only from the ``{`` before each
    ``:`` that follows ``{`` and ``[\\d,]*`` (where every match starts).  ``str.find`` of one character is
    a C scan; the regex's search tried a match at each ``{`` of a layout (~160k at 10 MB, ~11 ms) and
    found no ``:``.  Each character before a ``:`` is looked at once: a run ends at the ``:`` before it."""
    colon = text.find(":")
    while colon >= 0:
        start = colon
        while start > 0 and (text[start - 1] == "," or text[start - 1].isdecimal()):  # \d: Unicode's Nd
            start -= 1
        if start > 0 and text[start - 1] == "{" and _TILED_LAYOUT.match(text, start - 1):
            return True
        colon = text.find(":", colon + 1)
    return False


@functools.cache
def _targets(numbers: tuple[int, ...]) -> re.Pattern[str]:
    """The target rules ``numbers`` as one expression after the common prefix, each a group ``rN``."""
    targets = dict(_TARGET_RULES)
    return re.compile('custom_call_target="(?:' + "|".join(f"(?P<r{n}>{targets[n]})" for n in numbers) + ")")


def frontend_of(text: str) -> str | None:
    """``pytorch_xla`` when the module is a PyTorch/XLA graph (its name, or its metadata in the
    first 64 KiB); None otherwise (JAX's modules are told apart by :mod:`xladoctor.route.memory_kinds`)."""
    header = _header(text)
    if ("SyncTensorsGraph" in header or "IrToHlo" in header) and _TORCH_XLA_NAME.match(header):
        return "pytorch_xla"
    if text.find('op_type="', 0, 1 << 16) >= 0 and _TORCH_XLA_OP.search(text, 0, 1 << 16):
        return "pytorch_xla"
    return None


def cpu_lowering_from_memory_kinds(module: Any) -> str | None:
    """Evidence that ``module`` (its entry layout already given JAX's memory kinds, from the
    StableHLO ``@main``) was lowered for CPU, or None.  ``as_text("hlo")`` prints no memory kinds,
    so an HLO text alone cannot tell; with the StableHLO it can: an output declared in host memory
    while no argument is in host memory and nothing moves a value there (no placement annotation,
    no host compute) is what jax's CPU lowering leaves (it drops the annotations); a TPU/GPU
    lowering of the same program has them (jax 0.10.2).  (h22fixes)"""
    layout = module.entry_layout()
    if not _in_host_memory([layout.result]) or _in_host_memory(layout.parameters) or _places_anything(module):
        return None
    return label("provenance.host_output_no_annotation")


def _in_host_memory(shapes: Any) -> bool:
    """Is any array leaf of ``shapes`` in a memory space other than the device's?"""
    return any(s.is_array and s.layout is not None and s.layout.memory_space != 0
               for shape in shapes for _, s in shape.leaves())


def _places_anything(module: Any) -> bool:
    """Does any instruction move a value between memories or compute on host (what a TPU/GPU
    lowering keeps and jax's CPU lowering drops)?"""
    for instr in module.instructions():
        attrs = instr.frontend_attributes
        if (instr.custom_call_target or "") in _OFFLOAD_MARKS or "_xla_buffer_placement" in attrs \
                or "_xla_compute_type" in attrs:
            return True
    return False


def possibly_cpu_lowering(module: Any) -> str | None:
    """Evidence that ``module`` (its entry layout given JAX's memory kinds) may be a CPU lowering,
    where nothing else tells: an argument in host memory and no placement annotation or host
    compute anywhere.  jax's CPU lowering of ``device_put(x, Space.Device) * 2`` on a pinned_host
    ``x`` leaves exactly that (its TPU lowering keeps the annotation and compiles); a TPU lowering
    of ``x * 2`` is the same text and fails with E1200 (jax 0.10.2, issue 35).  So an E1200 on such
    a module carries a note, not a silent TPU verdict."""
    if not _in_host_memory(module.entry_layout().parameters) or _places_anything(module):
        return None
    return label("provenance.host_argument_no_annotation")
