"""From a JAX program to the HLO module XLA would compile, without compiling it.

``jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",))`` works on a
CPU-only machine (jax 0.10.2) and gives what a TPU compile would start from,
including the ``annotate_device_placement`` custom calls that a CPU lowering
leaves out (on CPU, ``device_put`` to another memory kind lowers to nothing when
every sharding has the default memory kind).  The HLO comes from
``Lowered.as_text("hlo", debug_info=True)`` so instructions keep their Python
source lines; the memory kinds are put back into ``entry_computation_layout``
from the StableHLO attributes (see :mod:`.signature`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax

from ..ir.module import HloModule
from ..syntax.hlo_parser import parse_module
from ..syntax.stablehlo_main import apply_memory_kinds
from .signature import MainSignature, main_signature

PLATFORM_ALIASES = {"gpu": "cuda"}


@dataclass
class LoweredProgram:
    """A lowered program and the entry layout XLA would compile it with."""

    lowered: Any
    module: HloModule
    signature: MainSignature
    platform: str | None
    traced_function: tuple[str, str] | None = None
    """``(file, name)`` of the Python function that was traced, when known: Python stacks are
    cut there, so frames of whatever called the check are not reported as the program's."""
    jaxpr: Any = None
    """The traced program's ``ClosedJaxpr`` (None for a ``Lowered`` given as is): its remat
    policies and ``checkpoint_name``s, which the HLO no longer names (:mod:`.policy_check`)."""

    @property
    def result_names(self) -> list[str]:
        """``jax.result_info`` per flattened output, ``""`` where JAX gave none (the reports then
        name it ``output {i}`` alone, as the CLI's routes do)."""
        return [r.name or "" for r in self.signature.results]


def _is_lowered(obj: Any) -> bool:
    return isinstance(obj, jax.stages.Lowered)


# jax.jit's own options: given among a function's keyword arguments they are almost surely meant
# for jit (the pre-0.2 check_offload signature took them there), so they get a pointed message.
JIT_OPTIONS = frozenset({
    "in_shardings", "out_shardings", "static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
    "keep_unused", "device", "backend", "inline", "abstracted_axes", "compiler_options"})


def lowered_platforms(lowered: Any) -> tuple[str, ...] | None:
    """The platforms a ``jax.stages.Lowered`` was lowered for (``('cpu',)``, ``('tpu',)``), when
    this jax exposes them (``Lowered._lowering._platforms``, jax 0.7 to 0.10)."""
    platforms = getattr(getattr(lowered, "_lowering", None), "_platforms", None)
    return tuple(platforms) if platforms else None


def _check_not_compiled(program: Any) -> None:
    if isinstance(program, jax.stages.Compiled):
        raise TypeError(
            "check_offload: got a compiled executable (jax.stages.Compiled), but E1200 is predicted from the "
            "program before compiling (XLA raises it while compiling); pass the function and its arguments, "
            "or jitted.trace(*args).lower(lowering_platforms=('tpu',)).  For a compiled executable's inputs "
            "use xladoctor.jax.check_inputs(compiled, *args).")


def _check_lowered_platform(lowered: Any) -> None:
    platforms = lowered_platforms(lowered)
    if platforms and set(platforms) <= {"cpu"}:
        raise ValueError(
            "check_offload: this jax.stages.Lowered was lowered for CPU, where device_put to another memory "
            "kind lowers to nothing, so no offload is left to check; lower it for the target instead: "
            "jitted.trace(*args).lower(lowering_platforms=('tpu',)), or pass the function and its arguments.")


def lower(program: Any, args: tuple, jit_kwargs: dict, platform: str | None, kwargs: dict | None = None,
          seen: list[Any] | None = None) -> Any:
    """``program`` may be a function, a jitted function or a ``jax.stages.Lowered``; ``args``
    and ``kwargs`` are the function's arguments, ``jit_kwargs`` options for ``jax.jit``.  The
    ``Traced`` it lowered, if any, is appended to ``seen``."""
    kwargs = kwargs or {}
    _check_not_compiled(program)
    if _is_lowered(program):
        if args or kwargs or jit_kwargs:
            raise TypeError("check_offload: a jax.stages.Lowered takes no further arguments")
        _check_lowered_platform(program)
        return program
    if isinstance(program, jax.stages.Traced):
        traced = program
    else:
        if hasattr(program, "trace") and hasattr(program, "lower"):
            if jit_kwargs:
                raise TypeError("check_offload: pass jit options to jax.jit, not with an already jitted function")
            jitted = program
        else:
            jitted = jax.jit(program, **jit_kwargs)
        traced = jitted.trace(*args, **kwargs)
    if seen is not None:
        seen.append(traced)
    if platform is None:
        return traced.lower()
    return traced.lower(lowering_platforms=(PLATFORM_ALIASES.get(platform, platform),))


def lower_program(program: Any, args: tuple = (), jit_kwargs: dict | None = None,
                  platform: str | None = "tpu", kwargs: dict | None = None) -> LoweredProgram:
    seen: list[Any] = []
    lowered = lower(program, args, jit_kwargs or {}, platform, kwargs, seen)
    if _is_lowered(program):  # what it was lowered for, not what a fresh lowering would use
        platforms = lowered_platforms(program)
        if platforms and len(platforms) == 1:
            platform = platforms[0]
    text = lowered.as_text("hlo", debug_info=True)
    module = parse_module(text, source="<lowered hlo>")
    signature = main_signature(lowered)
    return LoweredProgram(lowered, apply_memory_kinds(module, signature), signature, platform,
                          traced_function(program), getattr(seen[0], "jaxpr", None) if seen else None)


def declared_out_shardings(lowered: Any) -> list[Any] | None:
    """The ``out_shardings`` the program was jitted with, one per output leaf, ``None`` where the
    user gave none (JAX decides); ``None`` when this jax does not say (``Lowered._lowering.compile_args``,
    jax 0.4 to 0.10).  A fix that changes one leaf keeps the others: replacing a declared
    ``device`` leaf with ``None`` lets an AOT host argument returned there reach E1200."""
    args = getattr(getattr(lowered, "_lowering", None), "compile_args", None)
    shardings = args.get("out_shardings") if isinstance(args, dict) else None
    if shardings is None:
        return None
    out = [s if hasattr(s, "memory_kind") else None for s in shardings]
    return out if len(out) == lowered.out_tree.num_leaves else None


def traced_function(program: Any) -> tuple[str, str] | None:
    """``(co_filename, co_name)`` of the function a plain or jitted ``program`` traces."""
    fn = program
    for _ in range(8):  # jax.jit wraps with functools.wraps; follow __wrapped__ a few levels
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            break
        fn = inner
    code = getattr(fn, "__code__", None)
    return (code.co_filename, code.co_name) if code is not None else None
