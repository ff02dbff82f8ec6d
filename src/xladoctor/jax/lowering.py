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

    @property
    def result_names(self) -> list[str]:
        """``jax.result_info`` per flattened output, ``output #i`` where JAX gave none."""
        return [r.name or f"output #{r.index}" for r in self.signature.results]


def _is_lowered(obj: Any) -> bool:
    return isinstance(obj, jax.stages.Lowered)


def lower(program: Any, args: tuple, jit_kwargs: dict, platform: str | None) -> Any:
    """``program`` may be a function, a jitted function or a ``jax.stages.Lowered``."""
    if _is_lowered(program):
        if args or jit_kwargs:
            raise TypeError("check_offload: a jax.stages.Lowered takes no further arguments")
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
        traced = jitted.trace(*args)
    if platform is None:
        return traced.lower()
    return traced.lower(lowering_platforms=(PLATFORM_ALIASES.get(platform, platform),))


def lower_program(program: Any, args: tuple = (), jit_kwargs: dict | None = None,
                  platform: str | None = "tpu") -> LoweredProgram:
    lowered = lower(program, args, jit_kwargs or {}, platform)
    text = lowered.as_text("hlo", debug_info=True)
    module = parse_module(text, source="<lowered hlo>")
    signature = main_signature(lowered)
    return LoweredProgram(lowered, apply_memory_kinds(module, signature), signature, platform,
                          traced_function(program))


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
