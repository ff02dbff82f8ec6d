"""What JAX writes on ``@main`` of its StableHLO: memory kinds and pytree paths.

``Lowered.as_text("hlo")`` does not carry memory kinds: JAX passes them to the
compiler as ``mhlo.memory_kind`` attributes on ``@main``'s arguments and results
(``Lowered.as_text()``), and the compile path turns them into ``S(5)`` in
``entry_computation_layout`` before any HLO pass runs (checked with jax 0.10.2:
a ``pinned_host`` result prints as ``->f32[8,128]{1,0}`` in the HLO text).
Analysing the HLO alone would see every host output as device memory, so this
module reads the attributes (text only, no jax import) and puts them back.
``jax.result_info`` (``result['a']``) and ``jax.arg_info`` name the leaves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..ir.module import HloModule, ProgramShape
from ..ir.shape import HOST_MEMORY_KINDS, HOST_MEMORY_SPACE

UNPINNED_HOST_MEMORY_SPACE = 6
"""``unpinned_host`` on TPU: libtpu 0.0.42.1 puts ``S(6)`` (``arg_memory_spaces="6"``) in the
entry layout, not ``S(5)``; HostOffloader's checks are for ``S(5)`` only, so an ``unpinned_host``
argument is no host tensor for E1200 (measured: returning one to a device output compiles)."""

MEMORY_SPACES = {"pinned_host": HOST_MEMORY_SPACE, "unpinned_host": UNPINNED_HOST_MEMORY_SPACE}
"""JAX memory kind -> the entry layout's memory space on TPU (``device``: 0, left as it is)."""


@dataclass(frozen=True)
class ValueInfo:
    """One argument or result of ``@main``."""

    index: int
    memory_kind: str | None
    """``mhlo.memory_kind`` (``device``, ``pinned_host``...), ``None`` when JAX wrote none."""
    name: str | None
    """``jax.result_info`` for results (``result[1]['w']``), ``jax.arg_info`` for arguments."""
    is_token: bool = False
    type: str = ""
    """The MLIR type as written (``tensor<8x128xf32>``, ``!stablehlo.token``)."""

    @property
    def hlo_type(self) -> str:
        """The type in HLO's notation without layout (``f32[8,128]``, ``token[]``): what the
        module's entry must have here for the file to be the same program's StableHLO."""
        return hlo_type_of(self.type)

    @property
    def on_host(self) -> bool:
        return self.memory_kind in HOST_MEMORY_KINDS

    @property
    def memory_space(self) -> int | None:
        """The entry layout's ``S(n)`` for this kind (None: device memory, nothing to set)."""
        return MEMORY_SPACES.get(self.memory_kind or "")


@dataclass(frozen=True)
class MainSignature:
    arguments: tuple[ValueInfo, ...]
    results: tuple[ValueInfo, ...]


_MAIN = re.compile(r"func\.func\s+public\s+@main\(")
_KIND = re.compile(r'mhlo\.memory_kind\s*=\s*"([^"]*)"')
_STRING_ATTR = r'\s*=\s*"((?:[^"\\]|\\.)*)"'


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _scan(text: str, start: int = 0):
    """Yield ``(offset, char, depth after it)`` outside strings; every bracket kind nests
    (``->`` is an arrow, not a closer)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            m = _STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c in "({<[":
            depth += 1
        elif c in ")}>]" and not (c == ">" and text[i - 1] == "-"):
            depth -= 1
        yield i, c, depth
        i += 1


def _balanced_end(text: str, start: int) -> int:
    """Offset just past the bracket group opening at ``start``."""
    for i, c, depth in _scan(text, start):
        if depth == 0 and c in ")}>]":
            return i + 1
    return len(text)


def _split_top_level(region: str) -> list[str]:
    """``a {..}, b {..}`` -> ["a {..}", "b {..}"] (commas inside any bracket or string do not split)."""
    out: list[str] = []
    begin = 0
    for i, c, depth in _scan(region):
        if c == "," and depth == 0:
            out.append(region[begin:i])
            begin = i + 1
    if region[begin:].strip():
        out.append(region[begin:])
    return out


_TYPE = re.compile(r"tensor<(?:[^<>]|<[^<>]*>)*>|!stablehlo\.token")
_TENSOR = re.compile(r"tensor<((?:[0-9?]+x)*)(complex<\w+>|[A-Za-z]\w*)")
_COMPLEX = {"complex<f32>": "c64", "complex<f64>": "c128"}


def hlo_type_of(mlir_type: str) -> str:
    """``tensor<8x128xf32>`` -> ``f32[8,128]``, ``tensor<i1>`` -> ``pred[]``, ``ui8`` -> ``u8``,
    ``i32`` -> ``s32``, ``f8E4M3FN`` -> ``f8e4m3fn``; a dynamic ``?`` stays ``?``."""
    if mlir_type.startswith("!stablehlo.token"):
        return "token[]"
    m = _TENSOR.match(mlir_type)
    if not m:
        return mlir_type
    dims, element = m.group(1).rstrip("x"), m.group(2)
    if element in _COMPLEX:
        element = _COMPLEX[element]
    elif element == "i1":
        element = "pred"
    elif re.fullmatch(r"i\d+", element):
        element = "s" + element[1:]
    elif re.fullmatch(r"ui\d+", element):
        element = "u" + element[2:]
    return f"{element.lower()}[{dims.replace('x', ',')}]"


def _info(index: int, item: str, name_key: str) -> ValueInfo:
    kind = _KIND.search(item)
    name = re.search(re.escape(name_key) + _STRING_ATTR, item)
    typ = _TYPE.search(item)
    return ValueInfo(index, kind.group(1) if kind else None,
                     name.group(1).replace('\\"', '"') if name else None, "!stablehlo.token" in item,
                     typ.group(0) if typ else "")


def has_main(stablehlo: str) -> bool:
    """Does the text hold JAX's ``@main`` (is it ``Lowered.as_text()``)?"""
    return _MAIN.search(stablehlo) is not None


def main_position(stablehlo: str) -> tuple[int, int]:
    """Line and column (1-based) of ``func.func public @main`` (1, 1 when there is none)."""
    m = _MAIN.search(stablehlo)
    if not m:
        return 1, 1
    line = stablehlo.count("\n", 0, m.start()) + 1
    return line, m.start() - (stablehlo.rfind("\n", 0, m.start()) + 1) + 1


def read_main_signature(stablehlo: str) -> MainSignature:
    """``@main``'s arguments and results from StableHLO text (``Lowered.as_text()``)."""
    m = _MAIN.search(stablehlo)
    if not m:
        return MainSignature((), ())
    args_end = _balanced_end(stablehlo, m.end() - 1)
    args = _split_top_level(stablehlo[m.end():args_end - 1])
    rest = stablehlo[args_end:]
    arrow = re.match(r"\s*->\s*", rest)
    results: list[str] = []
    if arrow:
        after = rest[arrow.end():]
        if after.startswith("("):
            results = _split_top_level(after[1:_balanced_end(after, 0) - 1])
        else:  # one result: "tensor<...> {attrs} {" -- the type and its attribute dict, if any
            end = _balanced_end(after, after.index("<")) if "<" in after else 0
            tail = after[end:]
            attrs = re.match(r"\s*\{", tail)
            if attrs and not re.match(r"\s*\{\s*\n", tail):
                end += _balanced_end(tail, attrs.end() - 1)
            results = [after[:end]]
    return MainSignature(tuple(_info(i, a, "jax.arg_info") for i, a in enumerate(args)),
                         tuple(_info(i, r, "jax.result_info") for i, r in enumerate(results)))


def apply_memory_kinds(module: HloModule, signature: MainSignature) -> HloModule:
    """Put ``S(5)`` on every entry parameter and output JAX declares in ``pinned_host`` memory,
    ``S(6)`` on ``unpinned_host`` ones, as libtpu's compile path does (in place).

    HLO parameter i is ``@main`` argument i; the entry result is a tuple exactly when
    ``@main`` has other than one result (how JAX lowers ``main``).
    """
    ecl = module.entry_computation_layout
    if ecl is None:
        return module
    params = list(ecl.parameters)
    for info in signature.arguments:
        space = info.memory_space
        if space is not None and info.index < len(params):
            params[info.index] = params[info.index].with_memory_space(space)
    result = ecl.result
    for info in signature.results:
        space = info.memory_space
        if space is None:
            continue
        if result.is_tuple and info.index < len(result.tuple_shapes):
            result = result.with_memory_space(space, (info.index,))
        elif not result.is_tuple and info.index == 0:
            result = result.with_memory_space(space)
    module.entry_computation_layout = ProgramShape(params, result)
    module.has_explicit_entry_layout = True
    return module
