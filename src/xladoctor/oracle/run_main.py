"""The worker of ``--confirm --run``: compile on the local chip, run once, run the CPU, compare.

Started by :mod:`.run_chip` as ``python -m xladoctor.oracle.run_main FD TARGET``.  Protocol, one JSON
object a line: the worker first writes ``{"chip": {"platform", "device_kind", "count"}}`` (or
``{"chip": null, "why": ...}`` and exits) on the file descriptor ``FD``, then answers each request
read from stdin, ``{"kind": "hlo"|"stablehlo", "text": ..., "run": bool, "seed": N}``, with
``{"verdict": {...}, "run": {...}}``, a run preceded by ``{"compiled": {...}}`` (stdout and stderr belong to libtpu, whose CHECK lines the
parent reads from them).  A separate process because the chip can halt or abort
the process that runs on it; the parent kills it after a timeout, on Ctrl-C and on SIGTERM, and
it dies with the parent (``PR_SET_PDEATHSIG``).

What runs on each side:

* the chip: the module as the compile-only judge gets it (HLO text through XLA's converter with
  ``mhlo.memory_kind`` put back from the entry layout's ``S(5)``/``S(6)``, or the StableHLO as
  written), compiled for the local chip and loaded; each argument placed in the memory kind and
  layout the executable wants (``device_put`` to its input format, what ``fix_inputs`` does).
* the CPU: the same module with the TPU's entry layouts (tiles) and the memory kinds on
  ``@main`` taken off -- every argument and result in the CPU's default memory.  The placement
  annotations inside stay (the CPU compiler treats them as no-ops): host memory does not change
  the maths.
* both: every ``dot``/``dot_general``/``convolution`` at precision ``HIGHEST``, as the chip campaign
  runs its programs under ``jax.default_matmul_precision('highest')``, so that the tolerance of
  :mod:`.run_judge` means the same thing; inputs from :func:`.run_judge.random_inputs` with the
  request's seed.

``target="cpu"`` runs the "chip" half on the CPU too: the tests use it to check the whole worker
on a machine without a TPU.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

from ..base.labels import label
from .run_judge import judged, random_inputs, text_of

_ELEMENT_TYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16", "i1": "bool",
                  "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "ui8": "uint8", "ui16": "uint16",
                  "ui32": "uint32", "ui64": "uint64"}
_PRECISION_OPS = ("stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution")
_TPU_ONLY_ATTRS = ("mhlo.xla_entry_computation_parameter_layouts", "mhlo.xla_entry_computation_parameter_tiles",
                   "mhlo.xla_entry_computation_result_layout", "mhlo.xla_entry_computation_result_tiles")


def _chip_backend(devices: list[Any]):
    """A :class:`.backend.Backend` on real devices whose compile also loads the executable."""
    from .backend import Backend

    class ChipBackend(Backend):
        def _make_topology(self, topologies, topology):
            from types import SimpleNamespace

            return SimpleNamespace(devices=devices)

        def _build(self, module, devices_, options):
            highest_precision(self._ir, module)
            try:
                self.main_types = main_types(self._ir, module)
            except Exception as e:  # what cannot be fed is said, not raised as the compiler's error
                self.main_types = text_of(e)
            self.loaded = self._client.compile_and_load(module, executable_devices=devices_,
                                                        compile_options=options)
            return self.loaded

    return ChipBackend(devices[0].device_kind if hasattr(devices[0], "device_kind") else "chip")


def _walk(op: Any):
    yield op
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _walk(inner.operation)


def highest_precision(ir: Any, module: Any) -> int:
    """Every matmul and convolution at ``HIGHEST`` (both operands); returns how many were set."""
    attr = ir.Attribute.parse("[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]")
    n = 0
    for op in _walk(module.operation):
        if op.name in _PRECISION_OPS:
            op.attributes["precision_config"] = attr
            n += 1
    return n


def _main(ir: Any, module: Any) -> Any:
    from .backend import _main_func

    return _main_func(ir, module)


def main_types(ir: Any, module: Any) -> list[tuple[list[int], str, str]] | str:
    """``(shape, numpy dtype name, memory kind)`` per ``@main`` argument, or why it cannot be fed."""
    main = _main(ir, module)
    if main is None:
        return label("oracle.no_main")
    inputs = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value).inputs
    attrs = list(ir.ArrayAttr(main.attributes["arg_attrs"])) if "arg_attrs" in main.attributes else []
    out = []
    for i, t in enumerate(inputs):
        try:
            rt = ir.RankedTensorType(t)
        except (ValueError, TypeError):
            return label("confirm.arg_not_array", index=i, type=str(t))
        dtype = _ELEMENT_TYPES.get(str(rt.element_type))
        if dtype is None:
            return label("confirm.arg_element_type", index=i, type=str(rt.element_type))
        kind = "device"
        if i < len(attrs):
            d = ir.DictAttr(attrs[i])
            if "mhlo.memory_kind" in d:
                kind = ir.StringAttr(d["mhlo.memory_kind"]).value
        out.append((list(rt.shape), dtype, kind))
    return out


def for_cpu(ir: Any, module: Any) -> None:
    """Take off what only the TPU reads: entry tiles and layouts, ``@main``'s memory kinds."""
    for name in _TPU_ONLY_ATTRS:
        if name in module.operation.attributes:
            del module.operation.attributes[name]
    main = _main(ir, module)
    if main is None:
        return
    for attr in ("arg_attrs", "res_attrs"):
        if attr not in main.attributes:
            continue
        kept = []
        for entry in ir.ArrayAttr(main.attributes[attr]):
            d = ir.DictAttr(entry)
            kept.append(ir.DictAttr.get({d[j].name: d[j].attr for j in range(len(d))
                                         if d[j].name not in ("mhlo.memory_kind", "mhlo.layout_mode")}))
        main.attributes[attr] = ir.ArrayAttr.get(kept)


def _numpy_dtype(name: str) -> Any:
    import numpy as np

    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return np.dtype(name)


def execute(loaded: Any, inputs: list[Any], kinds: list[str], device: Any) -> tuple[str, Any, str]:
    """Place, run, fetch: ``("ok", outputs, "")`` or the stage that failed and its error text."""
    import jax
    import numpy as np
    from jax.experimental.layout import Format, Layout
    from jax.sharding import SingleDeviceSharding

    try:
        layouts = list(loaded.get_parameter_layouts())
        placed = [jax.device_put(x, Format(Layout.from_pjrt_layout(lay), SingleDeviceSharding(device, memory_kind=k)))
                  for x, lay, k in zip(inputs, layouts, kinds)]
    except Exception as e:
        return "call", None, text_of(e)
    try:
        results = loaded.execute_sharded(placed)
        outs = [per_device[0] for per_device in results.disassemble_into_single_device_arrays()]
        jax.block_until_ready(outs)
    except ValueError as e:
        return "call", None, text_of(e)
    except Exception as e:
        return "run", None, text_of(e)
    try:
        return "ok", [np.asarray(jax.device_get(o)) for o in outs], ""
    except Exception as e:
        return "fetch", None, text_of(e)


def _reference(request: dict[str, Any], inputs: list[Any]) -> tuple[str, Any, str]:
    """The same module on the CPU (see the module's docstring for what is taken off)."""
    import jax
    from jax._src import compiler
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax, xla_client
    from jax._src.lib.mlir import ir
    from jaxlib import _hlo

    cpu = jax.devices("cpu")[0]
    with mlir.make_ir_context():
        try:
            if request["kind"] == "hlo":
                hlo = _hlo.hlo_module_from_text(request["text"])
                text = _jax.mlir.hlo_to_stablehlo(hlo.as_serialized_hlo_module_proto())
            else:
                text = request["text"]
            module = ir.Module.parse(text)
            for_cpu(ir, module)
            highest_precision(ir, module)
            options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
            loaded = cpu.client.compile_and_load(module, executable_devices=xla_client.DeviceList((cpu,)),
                                                 compile_options=options)
        except Exception as e:
            return "compile", None, text_of(e)
    return execute(loaded, inputs, ["device"] * len(inputs), cpu)


def _run(backend: Any, request: dict[str, Any], device: Any) -> dict[str, Any]:
    types = backend.main_types
    if isinstance(types, str):
        return {"outcome": "not_run", "why": types}
    inputs = random_inputs(((s, _numpy_dtype(d)) for s, d, _ in types), int(request.get("seed", 0)))
    t0 = time.perf_counter()
    stage, out, err = execute(backend.loaded, inputs, [k for _, _, k in types], device)
    seconds = round(time.perf_counter() - t0, 3)
    ref_stage, ref_out, ref_err = _reference(request, inputs)
    return {**judged(stage, out, err, ref_stage, ref_out, ref_err), "seconds": seconds,
            "seed": int(request.get("seed", 0)), "inputs": len(inputs)}


def _hello(target: str) -> tuple[dict[str, Any], Any]:
    """The first reply: the chip ``jax.devices(target)`` found (or why none), and its device."""
    import jax

    try:
        devices = jax.devices(target)
    except RuntimeError as e:
        return {"chip": None, "why": text_of(e)[:300]}, None
    device = devices[0]
    return {"chip": {"platform": device.platform, "device_kind": getattr(device, "device_kind", ""),
                     "count": len(devices)}}, device


def serve(request: dict[str, Any], backend: Any, device: Any, say: Any = None) -> dict[str, Any]:
    """One request: the chip's compile verdict and, with ``run``, the run judged against the CPU.
    ``say`` gets ``{"compiled": verdict}`` before a run starts, so that a parent whose worker dies
    during the run knows the compile had succeeded."""
    from jax._src.interpreters import mlir

    verdict = backend.compile_request({**request, "want_text": False})
    reply: dict[str, Any] = {"verdict": verdict.to_json()}
    if request.get("run") and verdict.kind == "compiles":
        if say is not None:
            say({"compiled": reply["verdict"]})
        with mlir.make_ir_context():
            reply["run"] = _run(backend, request, device)
    backend.loaded = None
    return reply


def main(argv: list[str]) -> int:
    from ..base.parallel import die_with_parent
    from .run_chip import PARENT_ENV

    # the parent's pid as it was before this process ran: a parent gone by now has been replaced
    # by init (or a subreaper), which os.getppid() would take for the parent
    parent = os.environ.get(PARENT_ENV, "")
    die_with_parent(int(parent) if parent.isdigit() else None)
    replies = os.fdopen(int(argv[1]), "w")
    target = argv[2] if len(argv) > 2 else "tpu"

    def reply(obj: dict[str, Any]) -> None:
        replies.write(json.dumps(obj) + "\n")
        replies.flush()

    hello, device = _hello(target)
    reply(hello)
    if device is None:
        return 0
    backend = _chip_backend([device])
    for line in sys.stdin:
        if line.strip():
            reply(serve(json.loads(line), backend, device, reply))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
