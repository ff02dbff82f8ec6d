"""The compile itself, run inside a worker process (imports jax, loads libtpu once).

Two inputs reach XLA's TPU compiler through the PJRT plugin, which takes StableHLO only:

* StableHLO text (``Lowered.as_text()``): parsed as it is; ``mhlo.memory_kind`` already sits
  on ``@main``'s arguments and results.
* HLO text: XLA's own parser (``hlo_module_from_text``), then XLA's HLO -> StableHLO
  converter.  The converter drops memory spaces, so ``mhlo.memory_kind = "pinned_host"`` is
  put back on every ``@main`` argument/result whose ``entry_computation_layout`` leaf is
  ``S(5)`` (``"unpinned_host"`` for ``S(6)``) -- what JAX writes and what the compile path
  turns back into ``S(5)`` / ``S(6)``.  HLO ops
  with no StableHLO form (``copy`` stays ``mhlo.copy``) fail legalisation; that is reported
  as ``unsupported`` with the converter's message, never guessed.

Everything here is called from :mod:`.worker_main`; nothing outside the worker imports it.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from ..base.labels import label
from .verdict import Verdict, from_error_text

_ILLEGAL_MHLO = re.compile(r"failed to legalize operation '(mhlo\.[\w.]+)'")


def _environment() -> None:
    os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
    os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    # Other processes (other workers, other users) may hold libtpu's lock file; a
    # compile-only client touches no chip, so sharing is safe.
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    # The CUDA plugin (the [gpu] extra) otherwise refuses to load without a CUDA runtime; a
    # compile-only GPU client needs none (see .gpu_backend).
    os.environ.setdefault("JAX_SKIP_CUDA_CONSTRAINTS_CHECK", "1")


def preload() -> None:
    """Import everything a compile needs, without starting any backend (see :mod:`.zygote`)."""
    _environment()
    from jax._src import compiler  # noqa: F401
    from jax._src.interpreters import mlir  # noqa: F401
    from jax._src.lib import _jax, xla_client  # noqa: F401
    from jax._src.lib.mlir import ir  # noqa: F401
    from jax.experimental import topologies  # noqa: F401
    from jaxlib import _hlo  # noqa: F401

    from . import entry_layout  # noqa: F401


class Backend:
    """One TPU topology's compile-only client, loaded once per worker.

    The GPU back end (:mod:`.gpu_backend`) differs only in how the client is made: inputs,
    compiles and verdicts are the same code, since both plugins take StableHLO through PJRT.
    """

    def __init__(self, topology: str):
        _environment()
        from jax._src import compiler
        from jax._src.interpreters import mlir
        from jax._src.lib import _jax, xla_client
        from jax._src.lib.mlir import ir
        from jax.experimental import topologies
        from jaxlib import _hlo

        self.topology = topology
        self._topo = self._make_topology(topologies, topology)
        self._devices = list(self._topo.devices)
        self._client = self._devices[0].client
        self._compiler, self._mlir, self._jax, self._xc, self._ir, self._hlo = (
            compiler, mlir, _jax, xla_client, ir, _hlo)

    def _make_topology(self, topologies, topology: str):
        """libtpu's compile-only devices for ``topology`` (:class:`.gpu_backend.GpuBackend`: a GPU's)."""
        return topologies.get_topology_desc(topology, "tpu")

    # -- inputs -----------------------------------------------------------------
    def compile_request(self, request: dict[str, Any]) -> Verdict:
        kind = request["kind"]
        want_text = bool(request.get("want_text", True))
        with self._mlir.make_ir_context():
            if kind == "hlo":
                module_or_verdict = self._hlo_to_module(request["text"])
            elif kind == "stablehlo":
                module_or_verdict = self._parse_stablehlo(request["text"])
            else:
                return Verdict("unsupported", reason=label("oracle.unknown_kind", kind=repr(kind)), topology=self.topology)
            if isinstance(module_or_verdict, Verdict):
                module_or_verdict.topology = self.topology
                return module_or_verdict
            return self._compile(module_or_verdict, want_text, from_hlo=kind == "hlo")

    def _parse_stablehlo(self, text: str):
        try:
            return self._ir.Module.parse(text)
        except Exception as e:  # MLIR's parser raises its own error types
            return Verdict("xla_error", message=str(e).strip(), stage="parse")

    def _hlo_to_module(self, text: str):
        try:
            hlo = self._hlo.hlo_module_from_text(text)
        except Exception as e:
            return from_error_text(str(e).strip(), "parse")
        printed = hlo.to_string()
        try:
            stablehlo = self._jax.mlir.hlo_to_stablehlo(hlo.as_serialized_hlo_module_proto())
            module = self._ir.Module.parse(stablehlo)
        except Exception as e:
            text = str(e).strip()
            first = next((ln.strip() for ln in text.splitlines() if ln.strip().startswith("error:")),
                         text.splitlines()[0] if text else type(e).__name__)
            return Verdict("unsupported", stage="convert", message=text,
                           reason=label("oracle.no_conversion", first=first))
        problem = self._put_memory_kinds(module, printed)
        if problem:
            return Verdict("unsupported", stage="convert", reason=problem)
        return module

    def _put_memory_kinds(self, module, printed_hlo: str) -> str | None:
        """Write ``mhlo.memory_kind`` from the entry layout's S(5) and S(6) leaves onto ``@main``."""
        from .entry_layout import memory_kinds

        kinds = memory_kinds(printed_hlo)
        if kinds is None:
            return None
        params, results = kinds
        if None in params or None in results:
            return label("oracle.host_tuple")
        main = _main_func(self._ir, module)
        if main is None:
            return label("oracle.no_main")
        n_args = len(main.regions[0].blocks[0].arguments)
        n_res = len(self._ir.FunctionType(self._ir.TypeAttr(main.attributes["function_type"]).value).results)
        if len(params) != n_args or len(results) != n_res:
            if any(k != "device" for k in (*params, *results)):  # counts differ: the converter flattened tuples
                return label("oracle.flattened", params=len(params), results=len(results), args=n_args, res=n_res)
            return None
        for attr, kinds_ in (("arg_attrs", params), ("res_attrs", results)):
            old = list(self._ir.ArrayAttr(main.attributes[attr])) if attr in main.attributes else []
            new = []
            for i, kind in enumerate(kinds_):
                entries = {}
                if i < len(old):
                    d = self._ir.DictAttr(old[i])
                    entries = {d[j].name: d[j].attr for j in range(len(d))}
                entries["mhlo.memory_kind"] = self._ir.StringAttr.get(kind)
                new.append(self._ir.DictAttr.get(entries))
            main.attributes[attr] = self._ir.ArrayAttr.get(new)
        return None

    # -- compile ----------------------------------------------------------------
    def _build(self, module, devices, options):
        """The compile itself: compile-only here; the chip's back end (:mod:`.run_main`) also loads it."""
        return self._client.compile(module, executable_devices=devices, compile_options=options)

    def _compile(self, module, want_text: bool, from_hlo: bool = False) -> Verdict:
        n_rep = _int_attr(self._ir, module, "mhlo.num_replicas", 1)
        n_part = _int_attr(self._ir, module, "mhlo.num_partitions", 1)
        n = n_rep * n_part
        if n > len(self._devices):
            return Verdict("unsupported", topology=self.topology,
                           reason=label("oracle.too_few_devices", n=n, topology=self.topology,
                                        have=len(self._devices)))
        options = self._compiler.get_compile_options(num_replicas=n_rep, num_partitions=n_part)
        devices = self._xc.DeviceList(tuple(self._devices[:n]))
        t0 = time.perf_counter()
        try:
            exe = self._build(module, devices, options)
        except Exception as e:
            text = str(e).strip()
            illegal = _ILLEGAL_MHLO.search(text)
            if from_hlo and illegal:
                return Verdict("unsupported", stage="convert", topology=self.topology, message=text,
                               reason=label("oracle.no_stablehlo_form", op=illegal.group(1)))
            v = from_error_text(text, "compile")
            v.seconds = time.perf_counter() - t0
            v.topology = self.topology
            return v
        seconds = time.perf_counter() - t0
        v = Verdict("compiles", topology=self.topology, stage="compile", seconds=seconds)
        text = exe.hlo_modules()[0].to_string()
        from .entry_layout import entry_layout_text

        v.entry_computation_layout = entry_layout_text(text)
        if want_text:
            v.optimized_hlo = text
        v.input_formats = [str(x) for x in _try(exe.get_parameter_layouts, [])]
        v.output_formats = [str(x) for x in _try(exe.get_output_layouts, [])]
        kinds = _try(exe.get_output_memory_kinds, [])
        v.output_memory_kinds = [str(k) for k in (kinds[0] if kinds and isinstance(kinds[0], list) else kinds)]
        stats = _try(exe.get_compiled_memory_stats, None)
        if stats is not None:
            v.memory = {name: int(getattr(stats, name)) for name in dir(stats)
                        if name.endswith("_in_bytes") and isinstance(getattr(stats, name), int)}
        return v


def _main_func(ir, module):
    for op in module.body.operations:
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    return None


def _int_attr(ir, module, name: str, default: int) -> int:
    attrs = module.operation.attributes
    if name in attrs:
        try:
            return int(ir.IntegerAttr(attrs[name]).value)
        except Exception:
            return default
    return default


def _try(fn, default):
    try:
        return fn()
    except Exception:
        return default
