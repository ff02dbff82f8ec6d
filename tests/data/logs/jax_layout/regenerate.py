"""Regenerate the JAX layout / memory-kind error texts in this folder from real programs.

Each case is a small user program; it runs in its own process (a crash or a poisoned backend
stays there) and what it prints to stderr -- the traceback exactly as a user pastes it -- is
saved as ``NAME.log`` (a ``pytest_`` case is a test file run by pytest, its whole report saved).  Machine-specific lines (the CUDA stub's notices) are dropped, the
temporary folder is written ``/home/user`` and the virtualenv ``/home/user/.venv``; nothing else
is changed.  ``tpu/`` was taken on a TPU v5e (jax 0.10.2, libtpu 0.0.42.1, 2026-12-05) with the
same prelude and programs, the seven cases named there (``runtime_e0102`` is TPU-only).

    JAX_PLATFORMS=cpu python tests/data/logs/jax_layout/regenerate.py            # CPU cases
    python tests/data/logs/jax_layout/regenerate.py --platform tpu              # on a TPU host

A case that raises nothing (or another error than its ``expect``) is reported and not saved, so
a JAX upgrade that changes a message shows up as a failed regeneration, not as stale data.
Written for jax/jaxlib 0.10.2 (libtpu 0.0.42.1 on TPU).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SITE = "/home/user/.venv/lib/python3.11/site-packages"

PRELUDE = """\
import jax, jax.numpy as jnp
from jax.experimental.layout import Format, Layout
from jax.sharding import SingleDeviceSharding
dev = jax.devices()[0]
s = SingleDeviceSharding(dev)
x = jnp.arange(8 * 256, dtype=jnp.float32).reshape(8, 256)
col = jax.device_put(x, Format(Layout(major_to_minor=(1, 0)), s))   # column-major copy of x
host = jax.device_put(x, s.with_memory_kind("pinned_host"))
def f(a):
    return a * 2
def g(a, b):
    return a + b
"""

# name -> (platforms, program after the prelude, text the error must contain)
CASES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "jit_in_shardings_format": (("cpu", "tpu"), """
row = Format(Layout(major_to_minor=(0, 1)), s)
jax.jit(f, in_shardings=row)(col)
""", "Layout passed to jit does not match"),
    "jit_in_shardings_auto": (("cpu", "tpu"), """
jax.jit(f, in_shardings=Format(Layout.AUTO))(col)
""", "Layout passed to jit does not match"),
    "aot_compiled_layouts": (("cpu", "tpu"), """
compiled = jax.jit(f).lower(x).compile()
compiled(col)
""", "Computation was compiled for input layouts"),
    "deserialized_layouts": (("cpu", "tpu"), """
from jax.experimental.serialize_executable import deserialize_and_load, serialize
payload, in_tree, out_tree = serialize(jax.jit(f).lower(x).compile())
loaded = deserialize_and_load(payload, in_tree, out_tree)
loaded(col)
""", "Computation was compiled for input layouts"),
    "aot_compiled_many_layouts": (("cpu",), """
def h(*args):
    return sum(args)
compiled = jax.jit(h).lower(*[x] * 6).compile()
compiled(*[col] * 6)
""", "5 mismatches out of 6"),
    "aot_compiled_memory_kind": (("cpu", "tpu"), """
compiled = jax.jit(f).lower(x).compile()
compiled(host)
""", "Computation was compiled for input shardings"),
    "aot_compiled_layouts_and_memory_kind": (("cpu", "tpu"), """
compiled = jax.jit(g).lower(x, x).compile()
compiled(col, host)
""", "Computation was compiled for input shardings and layouts"),
    "jit_memory_kind": (("cpu", "tpu"), """
jax.jit(f, in_shardings=s.with_memory_kind("pinned_host"))(x)
""", "Memory kinds passed to jax.jit"),
    "unknown_memory_kind": (("cpu", "tpu"), """
jax.device_put(x, SingleDeviceSharding(dev, memory_kind="hbm"))
""", "memory kind"),
    "layout_annotation_rank": (("cpu", "tpu"), """
jax.jit(f, in_shardings=Format(Layout(major_to_minor=(0, 1, 2)), s))(x)
""", "is incompatible with its layout annotation"),
    "device_put_layout_rank": (("cpu", "tpu"), """
jax.device_put(x, Format(Layout(major_to_minor=(0, 1, 2)), s))
""", "is incompatible with its layout annotation"),
    "jit_device_local_layout": (("cpu", "tpu"), """
jax.jit(f, in_shardings=Layout(major_to_minor=(1, 0)))(x)
""", "does not accept device-local layouts"),
    "donated_layouts_differ": (("cpu", "tpu"), """
jax.jit(f, in_shardings=Format(Layout.AUTO), out_shardings=Format(Layout(major_to_minor=(1, 0)), s),
        donate_argnums=0).lower(jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s))
""", "Input layout being donated"),
    "format_without_sharding": (("cpu", "tpu"), """
Format(Layout(major_to_minor=(1, 0)))
""", "Sharding has to be concrete"),
    "device_put_auto": (("cpu", "tpu"), """
jax.device_put(x, Format(Layout.AUTO, s))
""", "should be concrete"),
    "shape_dtype_struct_auto": (("cpu", "tpu"), """
jax.ShapeDtypeStruct((8, 256), jnp.float32, sharding=Format(Layout.AUTO, s))
""", "cannot be used in place of a device-local"),
    "make_array_from_callback_auto": (("cpu", "tpu"), """
jax.make_array_from_callback((8, 256), Format(Layout.AUTO, s), lambda idx: x[idx])
""", "cannot be used in place of a device-local"),
    "mixed_memory_spaces": (("cpu", "tpu"), """
@jax.jit
def mixed(a):
    return jax.device_put(a, jax.memory.Space.Host) + a
mixed(x)
""", "memory_space of all inputs"),
    "single_device_arrays_memory_kind": (("cpu", "tpu"), """
jax.make_array_from_single_device_arrays((8, 256), s.with_memory_kind("pinned_host"), [x])
""", "emory kind"),
    # The same AOT call failing inside a test: pytest writes "E" in front of each line of the error.
    "pytest_aot_compiled_layouts": (("cpu",), """
def test_step():
    compiled = jax.jit(f).lower(x).compile()
    compiled(col)
""", "Computation was compiled for input layouts"),
    # The runtime's own check (E0102), reached as the executable's low-level call, which JAX's
    # layout check does not guard: only the TPU runtime compares byte sizes with tiles.
    "runtime_e0102": (("tpu",), """
compiled = jax.jit(f).lower(x).compile()
compiled._executable.xla_extension_executable().execute_sharded([col])
""", "E0102"),
}

_NOISE = re.compile(r"^(?:WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR"
                    r"|I0000 [^\n]*cudart_stub\.cc[^\n]*)\n", re.M)


def run_case(name: str, program: str, expect: str, out_dir: Path) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        pytest = name.startswith("pytest_")
        path = Path(tmp) / (f"test_{name[7:]}.py" if pytest else f"{name}.py")
        path.write_text(PRELUDE + program)
        argv = [sys.executable, *(["-m", "pytest", "-q", "-p", "no:cacheprovider"] if pytest else []), path.name]
        proc = subprocess.run(argv, cwd=tmp, capture_output=True, text=True, timeout=300, env=os.environ.copy())
        output = proc.stdout + proc.stderr if pytest else proc.stderr
        text = (_NOISE.sub("", output).replace(tmp, "/home/user")
                .replace(sysconfig.get_paths()["purelib"], SITE).replace(sys.prefix, "/home/user/.venv"))
    if proc.returncode == 0 or expect not in text:
        print(f"{name}: not reproduced (exit {proc.returncode}); last lines:\n  "
              + "\n  ".join(text.strip().splitlines()[-3:]), file=sys.stderr)
        return False
    (out_dir / f"{name}.log").write_text(text)
    print(f"{name}: {text.strip().splitlines()[-1][:110]}")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--platform", default="cpu", choices=("cpu", "tpu"))
    parser.add_argument("--out", type=Path, default=None, help="folder (default: this one, tpu/ for TPU)")
    parser.add_argument("cases", nargs="*", help="only these cases")
    args = parser.parse_args()
    out = args.out or (HERE if args.platform == "cpu" else HERE / "tpu")
    out.mkdir(parents=True, exist_ok=True)
    failed = [name for name, (platforms, program, expect) in CASES.items()
              if args.platform in platforms and (not args.cases or name in args.cases)
              and not run_case(name, program, expect, out)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
