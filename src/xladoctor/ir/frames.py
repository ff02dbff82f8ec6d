"""Which frame of an instruction's Python stack a report shows first: its *primary frame*.

rustc marks one span of a diagnostic as primary (the code the user wrote and should change) and
shows the others as secondary labels.  A host offload has the same problem in Python stacks:
the innermost frame of a ``device_put``/``place_to_host`` is often a helper's body
(``return jax.device_put(x, host)``, another frontend's ``return place_to_host_p.bind(x)``),
and the jitted function's own frame may be many calls above the line that offloads.  The rule,
applied to the frames innermost first:

1. only frames of the traced program count: the walk stops at the jitted function's frame (the
   ``jit(NAME)`` of ``op_name``, or the name the caller knows), since its callers are the code that
   ran the compile, not the program;
2. a frame in an installed package or the standard library (``site-packages``, ``dist-packages``,
   ``lib/python3.X``: jax, torch_xla, flax) is never primary;
3. a frame that only hands the placed value back is never primary: a *wrapper*, whose line is
   ``return CALL(a, b, ...)`` with plain names as arguments (``return _annotate(x)``), or whose
   function is named after the placement primitive itself (``place_to_host``, from ``op_name``);
4. the primary frame is the innermost frame left; when every frame was dropped, the jitted
   function's frame, else the innermost frame outside installed packages, else the innermost.

The frames dropped by rule 3 between the primary frame and the op are the *helpers* a report may
list after it ("through ..."); those above it, up to the jitted function, are its callers.  Rule 3
reads the frame's line with :mod:`linecache`; where the file cannot be read only the name test
applies, so a report never depends on more than the module and the user's own files.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base.lazy_pattern import LazyPattern
from .metadata import SourceLocation  # not .instruction: a log's findings need no IR (issue 36 item 6)
from .value import FrozenValue

LIBRARY = LazyPattern(r"[/\\](?:site|dist)-packages[/\\]|[/\\]lib[/\\]python3[^/\\]*[/\\]")
"""A frame in an installed package (jax, flax, torch_xla, the standard library) is not the user's line."""
JIT_NAME = LazyPattern(r"(?:jit|pjit|xla_computation)\(([^()/]+)\)/")
"""JAX's ``op_name`` starts with the jitted function's name: ``jit(train_step)/dot_general``."""


class FrameRoles(FrozenValue):
    """A stack split by the rule: ``primary``, the ``helpers`` inside it (innermost first) and its
    ``callers`` up to the jitted function (innermost first).  Written out, not a generated class
    (:mod:`.value`: start-up, issue 36)."""

    _FIELDS = ("primary", "helpers", "callers")

    primary: SourceLocation | None
    helpers: tuple[SourceLocation, ...]
    callers: tuple[SourceLocation, ...]

    def __init__(self, primary: SourceLocation | None, helpers: tuple[SourceLocation, ...] = (),
                 callers: tuple[SourceLocation, ...] = ()) -> None:
        object.__setattr__(self, "primary", primary)
        object.__setattr__(self, "helpers", helpers)
        object.__setattr__(self, "callers", callers)


def traced_name(op_name: str | None) -> str | None:
    """The jitted function's name in ``op_name`` (``jit(step)/...`` -> ``step``), or None."""
    m = JIT_NAME.match(op_name or "")
    return m.group(1) if m else None


def primitive_name(op_name: str | None) -> str | None:
    """The last component of ``op_name`` without its parameters (``jit(f)/place_to_host[...]``
    -> ``place_to_host``): the primitive that made the instruction."""
    if not op_name:
        return None
    last = op_name.rsplit("/", 1)[-1].split("[", 1)[0]
    return last or None


def is_library(file: str) -> bool:
    return LIBRARY.search(file) is not None


def _short_name(function: str | None) -> str:
    return (function or "").rsplit(".", 1)[-1]


def is_wrapper(frame: SourceLocation, primitive: str | None = None) -> bool:
    """Rule 3: the frame's function only hands the placed value back (see the module's docstring)."""
    if primitive and _short_name(frame.function) == primitive:
        return True
    import ast  # here: ast and linecache are read only for a frame's source line (start-up, issue 36)
    import linecache

    text = linecache.getline(frame.file, frame.line).strip()
    if not text.startswith("return "):
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a return spread over several lines: not a one-call hand-back
        return False
    stmt = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(stmt, ast.Return) or not isinstance(stmt.value, ast.Call):
        return False
    call = stmt.value
    args = [*call.args, *(k.value for k in call.keywords)]
    return all(isinstance(a, (ast.Name, ast.Attribute, ast.Constant)) for a in args)


def _traced_index(frames: Sequence[SourceLocation], traced: str | None) -> int | None:
    """Where the jitted function's frame is among ``frames`` (innermost first), or None."""
    if traced:
        for i, f in enumerate(frames):
            if _short_name(f.function) == traced:
                return i
    return None


def frame_roles(frames: Sequence[SourceLocation], traced: str | None = None,
                primitive: str | None = None) -> FrameRoles:
    """The primary frame of ``frames`` (innermost first), its helpers and callers (the rule above)."""
    if not frames:
        return FrameRoles(None)
    top = _traced_index(frames, traced)
    program = list(frames if top is None else frames[:top + 1])
    for i, f in enumerate(program):
        if not is_library(f.file) and not is_wrapper(f, primitive):
            helpers = tuple(h for h in program[:i] if not is_library(h.file))
            return FrameRoles(f, helpers, tuple(program[i + 1:]))
    if top is not None:  # every frame a wrapper: the jitted function's own line
        return FrameRoles(program[-1], tuple(h for h in program[:-1] if not is_library(h.file)))
    outside = next((f for f in frames if not is_library(f.file)), None)
    return FrameRoles(outside or frames[0])


def primary_frame(frames: Sequence[SourceLocation], traced: str | None = None,
                  primitive: str | None = None) -> SourceLocation | None:
    """The frame a report shows first (:func:`frame_roles`)."""
    return frame_roles(frames, traced, primitive).primary
