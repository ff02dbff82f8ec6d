"""The input resolver: which StableHLO goes with an HLO file, and whether it belongs to it.

``Lowered.as_text("hlo")`` carries no memory kinds; the same lowering's ``Lowered.as_text()``
does (``mhlo.memory_kind`` on ``@main``).  Every command that reads an HLO file (``check``,
``offload``, ``hlo``) and the Python API resolve its companion here, in one way:

* ``--stablehlo FILE`` names it (``found`` ``option``), else ``NAME.mlir`` or ``NAME.stablehlo``
  beside ``NAME.hlo``/``NAME.txt`` is used (``found`` ``beside``), a symlink to a regular file
  included (the documents then name the file read, ``link_to``); one that cannot be read (a
  dangling symlink, a folder, a FIFO) is refused in one line, never passed over in silence;
* it must hold JAX's ``@main``, and ``@main``'s signature must be the module's entry signature
  (as many arguments and results, each of the same element type and dimensions): a stale or
  unrelated file (another program, an older lowering) would otherwise move memory kinds onto
  the wrong values silently.  A mismatch is one located ``file:line:col: message`` error (exit 2)
  showing both signatures.
"""

from __future__ import annotations

import os
import re

from ..base.errors import InputError
from ..base.lazy_pattern import LazyPattern
from ..ir.module import HloModule
from ..ir.shape import Shape
from ..ir.value import FrozenValue

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any

    from .stablehlo_main import MainSignature

# stablehlo_main (the StableHLO signature's reader) is imported where a companion is read: a module
# with none beside it, ``offload``'s and ``check``'s common case, does not load it (issue 36 item 1).

HLO_SUFFIXES = (".hlo", ".txt")
STABLEHLO_SUFFIXES = (".mlir", ".stablehlo")


class Companion(FrozenValue):
    """The StableHLO an HLO module is read with (written out, not a generated class: start-up,
    issue 36)."""

    _FIELDS = ("path", "text", "found")

    path: str
    text: str
    found: str
    """``option`` (``--stablehlo``) or ``beside`` (``NAME.mlir`` next to ``NAME.hlo``)."""

    def __init__(self, path: str, text: str, found: str) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "found", found)

    def to_json(self) -> dict[str, Any]:
        return companion_json(self.path, self.found)


def _candidates(path: str | None) -> list[str]:
    """The companion names for ``path``: ``NAME.mlir``, ``NAME.stablehlo`` beside ``NAME.hlo``/``NAME.txt``."""
    if not path or path in ("-", "<stdin>"):
        return []
    stem, ext = os.path.splitext(path)
    return [stem + suffix for suffix in STABLEHLO_SUFFIXES] if ext in HLO_SUFFIXES else []


def beside(path: str | None) -> str | None:
    """``NAME.mlir`` (or ``NAME.stablehlo``) beside ``NAME.hlo``/``NAME.txt`` that is, or is a symlink
    to, a regular file; else None.  Whether an entry of that name that is neither is refused is
    :func:`refuse_unusable_beside`'s to say, per module."""
    for candidate in _candidates(path):
        if os.path.isfile(candidate):
            return candidate
        if os.path.lexists(candidate):
            return None
    return None


def refuse_unusable_beside(path: str | None) -> None:
    """Raise when the first ``NAME.mlir``/``NAME.stablehlo`` entry beside ``path`` exists but cannot
    be read as a companion (a dangling symlink, a folder, a device or FIFO): the module would
    otherwise be analysed without the memory kinds its owner put beside it, without a word."""
    for candidate in _candidates(path):
        if os.path.isfile(candidate):
            return
        if os.path.lexists(candidate):
            raise InputError(f"the StableHLO beside {path} cannot be read: {_unusable(candidate)}; give the right one "
                             "with --stablehlo, or move this one away", candidate, 1, 1)


def _unusable(candidate: str) -> str:
    if os.path.islink(candidate):
        target = os.readlink(candidate)
        if not os.path.exists(candidate):
            return f"a dangling symlink (to {target!r})"
        return f"a symlink (to {target!r}) to {_kind(os.stat(candidate).st_mode)}, not a regular file"
    return f"{_kind(os.stat(candidate).st_mode)}, not a regular file"


def _kind(mode: int) -> str:
    import stat

    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"


def companion_json(path: str, found: str) -> dict[str, Any]:
    """A document's ``stablehlo``: ``{path, found}``, and ``link_to`` (the file read) when ``path``
    is a symlink, so every output says which file the memory kinds came from."""
    doc: dict[str, Any] = {"path": path, "found": found}
    if os.path.islink(path):
        doc["link_to"] = os.path.realpath(path)
    return doc


def read_stablehlo(path: str) -> str:
    """The companion's text; one ``file:1:1: message`` error when it is unreadable or no StableHLO.

    Read as every input is (:func:`..base.files.read_path`): a device such as ``/dev/zero`` refused
    before it is opened, the size bounded, a compressed file decompressed within its bound."""
    from ..base.files import decode_text, read_path
    from .stablehlo_main import has_main

    data, name = read_path(path)
    text = decode_text(data, name)
    if not has_main(text):
        raise InputError("not StableHLO text: no 'func.func public @main' (expected Lowered.as_text())", name, 1, 1)
    return text


def _leaf_types(shape: Shape) -> list[str]:
    if shape.is_tuple:
        return [t for s in shape.tuple_shapes for t in _leaf_types(s)]
    if not shape.is_array:
        return [f"{shape.element_type.name}[]"]
    dims = ("?" if dyn else str(d) for d, dyn in zip(shape.dimensions, shape.dynamic))
    return [f"{shape.element_type.name}[{','.join(dims)}]"]


def entry_signature(module: HloModule) -> tuple[list[str], list[str]]:
    """The entry's argument and result types (tuples flattened), HLO notation without layout."""
    layout = module.entry_layout()
    return [t for p in layout.parameters for t in _leaf_types(p)], _leaf_types(layout.result)


def main_types(signature: MainSignature) -> tuple[list[str], list[str]]:
    return [a.hlo_type for a in signature.arguments], [r.hlo_type for r in signature.results]


def _same(a: list[str], b: list[str]) -> bool:
    return len(a) == len(b) and all(x == y or _dynamic_match(x, y) for x, y in zip(a, b))


def _dynamic_match(x: str, y: str) -> bool:
    """``f32[?,4]`` matches ``f32[8,4]``: a dynamic dimension's bound is not in the StableHLO."""
    if "?" not in x + y or x.split("[")[0] != y.split("[")[0]:
        return False
    dx, dy = x.split("[", 1)[1].rstrip("]").split(","), y.split("[", 1)[1].rstrip("]").split(",")
    return len(dx) == len(dy) and all(p == q or "?" in (p, q) for p, q in zip(dx, dy))


def _shown(types: tuple[list[str], list[str]]) -> str:
    args, results = types
    out = ", ".join(results)
    return f"({', '.join(args)}) -> " + (out if len(results) == 1 else f"({out})")


def check_belongs(module: HloModule, text: str, path: str, source: str) -> None:
    """Refuse a StableHLO whose ``@main`` is not ``module``'s entry (located at ``@main``)."""
    if module.entry is None or module.entry_computation_layout is None:
        return
    from .stablehlo_main import main_position, read_main_signature

    hlo, main = entry_signature(module), main_types(read_main_signature(text))
    if _same(hlo[0], main[0]) and _same(hlo[1], main[1]):
        _check_names(module, text, path, source)
        return
    line, col = main_position(text)
    raise InputError(f"this StableHLO is not the program {source} holds: its @main is {_shown(main)}, the module's "
                     f"entry is {_shown(hlo)} (a stale or unrelated file? give the right one with --stablehlo, "
                     f"or move this one away)", path, line, col)


_MLIR_MODULE = LazyPattern(r'^[ \t]*module[ \t]+@(?:"([^"\n]*)"|([\w.$-]+))', re.M)


def _check_names(module: HloModule, text: str, path: str, source: str) -> None:
    """Refuse a StableHLO of another program with the same signature, when both texts name their
    program: JAX names the HLO module after the MLIR module (``module @jit_step`` lowers to
    ``HloModule jit_step``), so two names that differ are two programs (``f(x) = x`` beside
    ``g(x) = -x``, both ``f32[8] -> f32[8]``, was used silently).  A module without an ``HloModule``
    line (named ``module_<entry>`` as XLA names it) or a StableHLO without ``module @NAME`` is not judged."""
    m = _MLIR_MODULE.search(text)
    if m is None or module.entry is None or module.name == f"module_{module.entry.name}":
        return
    name = m.group(1) if m.group(1) is not None else m.group(2)
    if name == module.name:
        return
    at = text.index("module", m.start())  # the column of `module`, past the line's indent
    line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
    raise InputError(f"this StableHLO is not the program {source} holds: it is module @{name}, the module is "
                     f"HloModule {module.name} (the same signature, another program? give the right one with "
                     f"--stablehlo, or move this one away)", path, line, col)


def resolve(module: HloModule, source: str | None, stablehlo_path: str | None = None) -> Companion | None:
    """The StableHLO to read ``module`` (from ``source``) with: the one named, else the one beside
    it, verified to be the same program's; None when there is none."""
    near = beside(source)
    if stablehlo_path is None:
        refuse_unusable_beside(source)
    path = stablehlo_path or near
    if path is None:
        return None
    found = "beside" if near is not None and os.path.normpath(path) == os.path.normpath(near) else "option"
    text = read_stablehlo(path)
    check_belongs(module, text, path, source or "<stdin>")
    return Companion(path, text, found)
