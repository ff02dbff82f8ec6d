"""JAX's own layout and memory-kind errors (catalogue ``E01xx``): what each message says.

JAX checks the arguments of a call before XLA's runtime could say E0102, and raises its own
``ValueError`` (or ``TypeError``), with no code.  The forms, from jax 0.10.2's sources
(``pjit.py``, ``interpreters/pxla.py``, ``interpreters/mlir.py``, ``dispatch.py``,
``layout.py``, ``core.py``, ``array.py``, ``lax/utils.py``, ``state/types.py``) and jaxlib's
C++ (``Could not find memory addressable by device``, ``Memory kind mismatch ...``), are
:data:`FORMS`; ``tests/data/logs/jax_layout/`` holds the ones a CPU reproduces, as raised.

A layout in these messages is JAX's ``Layout(major_to_minor=..., tiling=..., ...)`` and a value
JAX's aval ``float32[8,256]`` (``float32<host>[8,256]`` in host memory): both are turned into
XLA shapes so :mod:`.messages` tells the same size story as for E0102 -- with the layouts'
own tiling when the message has one (TPU), else under the tiling a TPU typically gives.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..ir.shape import HOST_MEMORY_SPACE, Layout, Shape, Tile
from .jax_spelling import DTYPE_TO_XLA

# JAX's Layout repr, parentheses nested up to three deep (tiling=((8, 128), (2, 1))).
LAYOUT = r"(?:AUTO|None|Layout\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))"
AVAL = r"[a-z][a-z0-9_]*(?:<\w+>)?\[[^\]\s]*\]"


# Whitespace as a pasted message has it: wrapped lines, and pytest's "E   " in front of each line.
_GAP = r"(?:\s|(?<=\n)E(?=[\t\x20]))"  # no literal space: _ws would rewrite it


def _ws(pattern: str) -> re.Pattern[str]:
    """Every literal space matches any whitespace run (tracebacks and terminals wrap messages),
    the ``E`` pytest writes at the start of each line of a failure included."""
    return re.compile(re.sub(r"(?<!\\) ", lambda _: _GAP + "+", pattern))


FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, _ws(p)) for name, p in (
    ("jit_layout", rf"Layout passed to jit does not match the layout on the respective arg\. Got jit layout: "
                   rf"(?P<jit_layout>{LAYOUT}), arg layout: (?P<arg_layout>{LAYOUT}) for arg type: (?P<aval>{AVAL})\."
                   r"(?P<auto_hint> The layout given to `jax\.jit` is `Layout\.AUTO`[^\n]*)?"),
    ("compiled", r"Computation was compiled for input (?P<kinds>shardings and layouts|layouts|shardings) that "
                 r"disagree with the (?:shardings and layouts|layouts|shardings) of arguments passed to it\. Here are "
                 r"(?:the (?P<count>\d+) mismatches|(?P<shown>\d+) mismatches out of (?P<total>\d+)):"),
    ("jit_memory_kind", rf"Memory kinds passed to jax\.jit does not match memory kind on the respective arg\. Got jit "
                        rf"memory kind: (?P<jit_memory_kind>[\w-]+), arg memory kind: (?P<arg_memory_kind>[\w-]+) for "
                        rf"arg type: (?P<aval>{AVAL})"),
    ("unknown_memory_kind", r"Could not find memory addressable by device (?P<device>[^\n]+?)\. Device [^\n]+? can "
                            r"address the following memory kinds: (?P<available>[\w,\s]+?)\. Got memory kind: "
                            r"(?P<memory_kind>\S+)"),
    ("invalid_memory_kind", r"Invalid memory kind: (?P<memory_kind>[^;\n]+); available memory kinds: (?P<available>[^\n]+)"),
    ("mixed_memory_spaces", rf"memory_space of all inputs passed to `(?P<primitive>[^`]+)` must be the same\. Got one "
                            rf"operand with type: (?P<aval>{AVAL}) and another operand with type: (?P<other_aval>{AVAL})"),
    ("buffer_memory_kind", r"Memory kind mismatch(?P<between>[^.\n]*)\. Got (?:one |a )?(?:sharding|buffer|array) with "
                           r"memory kind:? '?(?P<memory_kind>[\w-]+)'? and (?:a |another )?(?:buffer |one )?with "
                           r"memory_kind:? '?(?P<other_memory_kind>[\w-]+)'?"),
    ("buffer_memory_kind", r"PjRtBuffer's memory kind does not match sharding's memory kind\. Got PjRtBuffer's memory "
                           r"kind: (?P<other_memory_kind>[\w-]+) vs shardings's memory kind: (?P<memory_kind>[\w-]+)"),
    ("layout_rank", rf"One of (?P<what>[^\n]+?)(?: with pytree key path (?P<path>[^\n]+?))? is incompatible with "
                    rf"its layout annotation (?P<layout>{LAYOUT}): (?P<reason>[^\n]*)"),
    ("device_local_layout", rf"device-local layouts directly\. Create a `Format` instance wrapping this device-local "
                            rf"layout and pass that to `jit` instead\. Got (?P<layout>{LAYOUT})"),
    ("donated_layout", rf"Input layout being donated was (?P<in_layout>{LAYOUT}) while output layout was "
                       rf"(?P<out_layout>{LAYOUT})\. Did you mean to set the \*\*(?P<side>input|output) layout\*\* to "
                       r"\*\*Layout\.AUTO\*\*\?(?: This will allow[^\n]*)?"),
    ("format_without_sharding", r"Sharding has to be concrete when layout is of type [^\n]*? Got sharding (?P<sharding>\S+)"),
    ("device_put_auto", rf"sharding and layout in `Layout` instance should be concrete\. Got layout: (?P<format>[^\n]+?) "
                        rf"for input (?P<aval>{AVAL})"),
    ("auto_not_concrete", r"Layout\.AUTO` cannot be used in place of a device-local layout (?P<where>in a `ShapeDtypeStruct`"
                          r"|when calling `jax\.make_array_from_callback`)\. Got (?P<format>[^\n]*)"),
    ("layout_override", rf"Unexpected XLA layout override: \(XLA\) (?P<xla_layout>{LAYOUT}) != (?P<user_layout>{LAYOUT}) "
                        rf"\(User (?P<side>input|output) layout\) for type=(?P<aval>{AVAL})"),
    ("reshard_memory_kind", r"sharding with memory_kind is not allowed\. Please use `jax\.device_put` to transfer to "
                            r"different memory spaces\. Got sharding=(?P<sharding>[^\n]*)"),
    ("donation_memory_kinds", r"Donation across different memory kinds is not implemented\.?"),
    ("ref_memory_space", r"Aval memory space (?P<memory_space>\S+) does not match the requested memory space "
                         r"(?P<requested>\S+?)\.(?:\s|$)"),
    ("layout_constraint", r"(?:with_layout_constraint in eager mode can only be applied to jax\.Arrays|layouts passed to "
                          r"`with_layout_constraint` must be of type `Layout`)\. Got (?P<got>[^\n]*)"),
))

_ENTRY = _ws(rf"Argument (?P<argument>[^\n]+?) with shape (?P<aval>{AVAL}): Passed (?P<what>layout|sharding): "
             rf"(?P<passed>[^\n]+)\n{_GAP}*Required (?:layout|sharding): (?P<required>[^\n]+)")
_GAPS = re.compile(_GAP + "*")
_AVAL_PARTS = re.compile(r"(?P<dtype>[a-z][a-z0-9_]*)(?:<(?P<space>\w+)>)?\[(?P<dims>[^\]]*)\]")
_MEMORY_KIND = re.compile(r"memory_kind=([\w-]+)")


def parse(text: str, first_line: bool = False) -> dict[str, Any] | None:
    """Fields of the first JAX layout/memory-kind message in ``text``, ``_span`` its extent; None if none.

    ``first_line``: only a message that starts on the first line (the scanner's window starts at
    the line it recognised, and a later message there is another finding).
    """
    best = None
    stop = text.find("\n") if first_line else -1
    for form, pattern in FORMS:
        m = pattern.search(text)
        if m is not None and stop >= 0 and m.start() > stop:
            continue
        if m is not None and (best is None or m.start() < best[1].start()):
            best = (form, m)
    if best is None:
        return None
    form, m = best
    fields: dict[str, Any] = {"variant": form}
    fields.update({k: " ".join(v.split()) for k, v in m.groupdict().items() if v is not None})
    end = m.end()
    if form == "compiled":
        for key in ("count", "shown", "total"):
            if key in fields:
                fields[key] = int(fields[key])
        fields.setdefault("total", fields.get("count"))
        fields["mismatches"], end = _entries(text, m.end())
    fields.pop("auto_hint", None)  # JAX adds it exactly when jit's layout is AUTO
    fields["_span"] = (m.start(), end)
    return fields


def _entries(text: str, pos: int) -> tuple[list[dict[str, Any]], int]:
    """The ``Argument NAME with shape T: / Passed ...: / Required ...:`` blocks after the header."""
    out: list[dict[str, Any]] = []
    while True:
        m = _ENTRY.match(text, pos) or _ENTRY.match(text, _skip_space(text, pos))
        if m is None:
            return out, pos
        entry = {k: m.group(k).strip() for k in ("argument", "aval", "passed", "required")}
        if m.group("what") == "layout":
            entry["kind"] = "layout"
        else:
            passed, required = _MEMORY_KIND.search(entry["passed"]), _MEMORY_KIND.search(entry["required"])
            if passed and required and passed.group(1) != required.group(1):
                entry.update(kind="memory_kind", passed_memory_kind=passed.group(1),
                             required_memory_kind=required.group(1))
            else:
                entry["kind"] = "sharding"
        out.append(entry)
        pos = m.end()


def _skip_space(text: str, pos: int) -> int:
    """Past whitespace and pytest's ``E`` at the start of a line."""
    m = _GAPS.match(text, pos)
    return m.end() if m else pos


def message_end(text: str) -> int | None:
    """Where the first such message in ``text`` ends (the scanner quotes that much), or None."""
    fields = parse(text, first_line=True)
    return None if fields is None else fields["_span"][1]


# --- JAX's spellings as XLA shapes ------------------------------------------------------------

def _tuple(text: str | None) -> Any:
    if text is None or text == "None":
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def xla_layout(layout_text: str) -> Layout | None:
    """``Layout(major_to_minor=(1, 0), tiling=((8, 128),), ...)`` -> XLA ``{0,1:T(8,128)}``; None for AUTO/None."""
    m = re.search(r"major_to_minor=(\([^()]*\))", layout_text)
    order = _tuple(m.group(1)) if m else None
    if not isinstance(order, tuple) or not all(isinstance(d, int) for d in order):
        return None
    t = re.search(r"tiling=(None|\((?:[^()]|\([^()]*\))*\))", layout_text)
    tiling = _tuple(t.group(1)) if t else None
    tiles = tuple(Tile(tuple(tile)) for tile in tiling or () if isinstance(tile, tuple))
    bits = re.search(r"sub_byte_element_size_in_bits=(\d+)", layout_text)
    return Layout(minor_to_major=tuple(reversed(order)), tiles=tiles,
                  element_size_in_bits=int(bits.group(1)) if bits else 0)


def aval_shape(aval: str, layout: Layout | None = None) -> Shape | None:
    """``float32[8,256]`` (or ``float32<host>[8,256]``) with ``layout`` as an XLA shape; None if not an array."""
    from ..base.errors import InputError
    from ..syntax.shape_parser import parse_shape

    m = _AVAL_PARTS.fullmatch(aval)
    if m is None or m.group("dtype") not in DTYPE_TO_XLA:
        return None
    dims = [re.match(r"\d+", d.strip()) for d in m.group("dims").split(",") if d.strip()]
    if not all(dims):
        return None  # a symbolic dimension: no size to compute
    text = f"{DTYPE_TO_XLA[m.group('dtype')]}[{','.join(d.group(0) for d in dims if d)}]"
    try:
        shape = parse_shape(text, source="<message>")
    except InputError:
        return None
    if layout is not None:
        if len(layout.minor_to_major) != shape.rank:
            return None
        shape = shape.with_layout(layout)
    return shape


def memory_kind_of(aval: str) -> str:
    """``float32<host>[8,256]`` -> ``host``; ``device`` when the aval names no memory space."""
    m = _AVAL_PARTS.fullmatch(aval)
    return m.group("space") if m and m.group("space") else "device"


def is_host(shape: Shape) -> bool:
    return shape.memory_space == HOST_MEMORY_SPACE
