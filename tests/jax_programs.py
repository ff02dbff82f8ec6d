"""Small real jax programs whose HLO the fidelity tests read.

Why a separate script: the text must come from real XLA, and ``XLA_FLAGS`` (for
``--xla_dump_to``) is read once when the backend starts, so the whole corpus is
generated in one child process (``python tests/jax_programs.py OUT_DIR``) with
the flag set.  The test process itself never initialises a jax backend for this.

Each :class:`JaxProgram` yields

* ``pre``:  ``jax.jit(f).lower(*args).as_text("hlo")`` (before optimisation);
* ``post``: ``lowered.compile().as_text()`` (after CPU optimisation), only for
  programs lowered for the local CPU;
* ``dump``: the ``*.txt`` files XLA writes under ``--xla_dump_to`` for the
  program's module ``jit_<name>`` (CPU programs only).

Programs with ``platform="tpu"`` are lowered for TPU without compiling
(``jit(f).trace(*args).lower(lowering_platforms=("tpu",))``): on CPU, jax drops
``device_put`` to ``pinned_host`` inside jit and the remat offload policy, while
the TPU lowering keeps them as ``annotate_device_placement`` custom calls.

Output layout of ``OUT_DIR``::

    pre/<name>.txt   post/<name>.txt   dump/...   manifest.json

``manifest.json`` records programs, forms written and observations (memory kinds
of the CPU device, whether host-placement annotations appeared).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Dump files that hold an HLO module, by file-name suffix.  Everything else XLA
# writes as ``.txt`` (buffer assignment, live ranges, memory report) is not HLO.
HLO_DUMP_SUFFIXES = ("before_optimizations.txt", "after_optimizations.txt")

# Host CPU devices the generator asks for, so collectives and SPMD partitioning appear.
DEVICE_COUNT = 2


def is_hlo_dump_file(name: str) -> bool:
    """True for dump files that contain one HLO module in text form."""
    return name.endswith(HLO_DUMP_SUFFIXES)


@dataclass(frozen=True)
class JaxProgram:
    """A named jax program: ``build()`` returns ``(jitted_fn, args)``."""

    name: str
    build: Callable[[], tuple[Any, tuple]]
    platform: str = "cpu"  # "cpu": lower+compile locally; "tpu"/"cuda": lower only
    x64: bool = False
    devices: int = 1  # CPU devices needed (the generator asks XLA for DEVICE_COUNT)

    @property
    def forms(self) -> tuple[str, ...]:
        return ("pre", "post", "dump") if self.platform == "cpu" else ("pre",)

    @property
    def module_name(self) -> str:
        return f"jit_{self.name}"


PROGRAMS: dict[str, JaxProgram] = {}


def program(name: str, platform: str = "cpu", x64: bool = False, devices: int = 1):
    """Register ``build`` under ``name``; the function it jits is renamed to ``name``."""

    def register(build: Callable[[], tuple[Any, tuple]]):
        PROGRAMS[name] = JaxProgram(name, build, platform, x64, devices)
        return build

    return register


def _named(fn, name: str):
    fn.__name__ = fn.__qualname__ = name
    return fn


# --------------------------------------------------------------------- programs
# jax is imported inside each builder so importing this module stays cheap.


@program("mlp_grad")
def _mlp_grad():
    import jax
    import jax.numpy as jnp

    def loss(params, x, y):
        (w1, b1), (w2, b2) = params
        h = jax.nn.relu(x @ w1 + b1)
        out = h @ w2 + b2
        return jnp.mean((out - y) ** 2)

    k = jax.random.split(jax.random.key(0), 4)
    params = (
        (jax.random.normal(k[0], (16, 32)), jnp.zeros((32,))),
        (jax.random.normal(k[1], (32, 4)), jnp.zeros((4,))),
    )
    x = jax.random.normal(k[2], (8, 16))
    y = jax.random.normal(k[3], (8, 4))
    return jax.jit(_named(jax.grad(loss), "mlp_grad")), (params, x, y)


def _scan_offload(platform_suffix: str):
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.ad_checkpoint import checkpoint_name

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["x"],
        offload_src="device",
        offload_dst="pinned_host",
    )

    def layer(carry, w):
        x = checkpoint_name(jnp.sin(carry @ w), "x")
        return jnp.tanh(x), None

    def loss(ws, carry):
        carry, _ = lax.scan(jax.checkpoint(layer, policy=policy), carry, ws)
        return jnp.sum(carry)

    fn = _named(jax.grad(loss), "scan_remat_offload" + platform_suffix)
    return jax.jit(fn), (jnp.ones((3, 8, 8)) * 0.1, jnp.ones((4, 8)))


@program("scan_remat_offload")
def _scan_offload_cpu():
    return _scan_offload("")


@program("scan_remat_offload_tpu", platform="tpu")
def _scan_offload_tpu():
    return _scan_offload("_tpu")


def _device_put_host(name: str):
    import jax
    import jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    dev = jax.devices()[0]

    def f(x):
        y = jax.device_put(x * 2, SingleDeviceSharding(dev, memory_kind="pinned_host"))
        z = jax.device_put(y, SingleDeviceSharding(dev, memory_kind="device"))
        return z + 1

    return jax.jit(_named(f, name)), (jnp.ones((4, 8)),)


@program("device_put_pinned_host")
def _device_put_cpu():
    return _device_put_host("device_put_pinned_host")


@program("device_put_pinned_host_tpu", platform="tpu")
def _device_put_tpu():
    return _device_put_host("device_put_pinned_host_tpu")


@program("host_out_shardings")
def _host_out_shardings():
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding

    dev = jax.devices()[0]
    mesh = jax.sharding.Mesh([dev], ("d",))

    def f(x, y):
        return x * 3, jnp.tanh(y), x.sum()

    outs = (
        SingleDeviceSharding(dev, memory_kind="pinned_host"),
        NamedSharding(mesh, PartitionSpec(), memory_kind="pinned_host"),
        SingleDeviceSharding(dev, memory_kind="device"),
    )
    fn = jax.jit(_named(f, "host_out_shardings"), out_shardings=outs)
    return fn, (jnp.ones((4, 8)), jnp.ones((2, 3, 5), jnp.bfloat16))


@program("while_cond")
def _while_cond():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(x, n):
        def body(state):
            i, v = state
            v = lax.cond(i % 2 == 0, lambda a: a * 2.0, lambda a: jnp.cos(a), v)
            return i + 1, v

        return lax.while_loop(lambda s: s[0] < n, body, (0, x))

    return jax.jit(_named(f, "while_cond")), (jnp.ones((3, 4)), 5)


@program("sort_multi")
def _sort_multi():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(keys, vals, idx):
        a = lax.sort((keys, vals, idx), dimension=0, num_keys=2)
        return a, jnp.argsort(keys, axis=-1, stable=True)

    args = (
        jnp.arange(24.0).reshape(6, 4)[::-1],
        jnp.arange(24, dtype=jnp.int32).reshape(6, 4),
        jnp.arange(24, dtype=jnp.uint8).reshape(6, 4),
    )
    return jax.jit(_named(f, "sort_multi")), args


@program("scatter_add")
def _scatter_add():
    import jax
    import jax.numpy as jnp

    def f(x, idx, upd):
        a = x.at[idx].add(upd)
        b = x.at[:, 1].set(7.0)
        return a, b, x.at[idx, 2].max(upd[:, 0])

    args = (jnp.zeros((10, 5)), jnp.array([1, 3, 3, 9]), jnp.ones((4, 5)))
    return jax.jit(_named(f, "scatter_add")), args


@program("rng")
def _rng():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(key, key_u32):
        n = jax.random.normal(key, (4, 3))
        u = lax.rng_uniform(jnp.float32(0), jnp.float32(1), (5,))
        new_key, bits = lax.rng_bit_generator(key_u32, (2, 8), dtype=jnp.uint32)
        return n, u, new_key, bits

    key_u32 = jnp.zeros((4,), jnp.uint32)
    return jax.jit(_named(f, "rng")), (jax.random.key(1), key_u32)


@program("convolution")
def _convolution():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(img, kern, kern2):
        a = lax.conv_general_dilated(
            img, kern, window_strides=(1, 2), padding="SAME",
            lhs_dilation=(1, 1), rhs_dilation=(2, 1),
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
        )
        b = lax.conv_general_dilated(
            img, kern2, (1, 1), "VALID",
            dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=2,
        )
        return a, b

    args = (jnp.ones((2, 9, 9, 4)), jnp.ones((3, 3, 4, 6)), jnp.ones((2, 2, 2, 6)))
    return jax.jit(_named(f, "convolution")), args


@program("complex64")
def _complex64():
    import jax
    import jax.numpy as jnp

    def f(a, b):
        c = a * b + jnp.conj(a)
        return jnp.fft.fft(c), jnp.abs(c), jnp.real(c) + jnp.imag(b)

    a = jnp.arange(8, dtype=jnp.complex64) * (1 + 2j)
    return jax.jit(_named(f, "complex64")), (a, a)


@program("complex128", x64=True)
def _complex128():
    import jax
    import jax.numpy as jnp

    def f(a, b):
        return jnp.fft.ifft(a * b), jnp.angle(a), (a * 2).astype(jnp.complex64)

    a = jnp.arange(8, dtype=jnp.complex128) * (1 - 1j)
    return jax.jit(_named(f, "complex128")), (a, a)


@program("dynamic_slices")
def _dynamic_slices():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(x, i, j, upd):
        s = lax.dynamic_slice(x, (i, j), (2, 3))
        x2 = lax.dynamic_update_slice(x, upd, (j, i))
        return s, x2, lax.dynamic_index_in_dim(x, i, axis=1, keepdims=False)

    args = (jnp.arange(48.0).reshape(6, 8), 1, 2, jnp.ones((3, 2)))
    return jax.jit(_named(f, "dynamic_slices")), args


@program("narrow_types")
def _narrow_types():
    import jax
    import jax.numpy as jnp

    def f(x):
        return (
            x.astype(jnp.int4),
            x.astype(jnp.float8_e4m3fn),
            x.astype(jnp.float8_e5m2),
            x.astype(jnp.bfloat16) @ x.T.astype(jnp.bfloat16),
            (x > 0),
        )

    return jax.jit(_named(f, "narrow_types")), (jnp.arange(12.0).reshape(3, 4),)


@program("collectives", devices=2)
def _collectives():
    import jax
    import jax.numpy as jnp
    from jax import lax, shard_map
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2,), ("i",), axis_types=(AxisType.Explicit,))

    def body(x):
        return (
            lax.psum(x, "i"),
            lax.all_gather(x, "i", tiled=True),
            lax.ppermute(x, "i", [(0, 1), (1, 0)]),
            lax.all_to_all(x.reshape(2, -1), "i", 0, 0, tiled=True),
            lax.psum_scatter(x, "i", tiled=True),
        )

    specs = (P(), P(), P("i"), P("i"), P("i"))
    fn = shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=specs, check_vma=False)
    x = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("i")))
    return jax.jit(_named(fn, "collectives")), (x,)


@program("sharded_matmul", devices=2)
def _sharded_matmul():
    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2,), ("i",), axis_types=(AxisType.Auto,))

    def f(a, b):
        return jnp.tanh(a @ b)

    fn = jax.jit(
        _named(f, "sharded_matmul"),
        in_shardings=(NamedSharding(mesh, P(None, "i")), NamedSharding(mesh, P("i", None))),
        out_shardings=NamedSharding(mesh, P("i")),
    )
    return fn, (jnp.ones((8, 4)), jnp.ones((4, 6)))


@program("many_ops")
def _many_ops():
    """Many opcodes in one program (spellings like popcnt, opt-barrier, log-plus-one), plus CPU custom calls."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def f(x, i, m):
        return [
            x[i], jnp.cumsum(x, axis=0),
            lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "SAME"),
            lax.top_k(x, 2)[0], jnp.linalg.cholesky(m), lax.optimization_barrier(x),
            jnp.pad(x, ((1, 2), (0, 1))), x[::-1], jnp.concatenate([x, x]), jnp.clip(x, 0, 1),
            jnp.where(x > 0, x, 0), lax.bitcast_convert_type(x, jnp.int32),
            lax.reduce_precision(x, 5, 10), lax.population_count(i), lax.clz(i), lax.erf(x),
            jnp.expm1(x), jnp.log1p(x), jnp.arctan2(x, x), x % 3.0, i >> 1,
            lax.shift_right_logical(i, 2), lax.shift_left(i, 1), jnp.round(x), jnp.sign(x),
            lax.is_finite(x), jnp.einsum("ij,kj->ik", x, x), lax.rsqrt(x), lax.cbrt(x),
            lax.logistic(x), lax.exp2(x), x.T, jnp.argmax(x, axis=1), lax.iota(jnp.int32, 5),
            x.astype(jnp.uint16), lax.tan(x), jnp.sinh(x), i ^ 3,
        ]

    args = (jnp.ones((4, 3)), jnp.array([1, 2], jnp.int32), jnp.eye(3))
    return jax.jit(_named(f, "many_ops")), args


# ----------------------------------------------------------------------- corpus


@dataclass
class HloCorpus:
    """The texts one run of :func:`generate` left in ``root`` (read back by tests)."""

    root: Path
    manifest: dict[str, Any]

    def text(self, program: str, form: str) -> str:
        """``form`` is ``"pre"`` or ``"post"``."""
        return (self.root / form / f"{program}.txt").read_text()

    def dump_txt_files(self) -> list[Path]:
        return sorted((self.root / "dump").glob("*.txt"))

    def hlo_dump_files(self, program: str | None = None) -> list[Path]:
        """HLO module dumps, of ``jit_<program>`` or (``None``) of every module."""
        files = [p for p in self.dump_txt_files() if is_hlo_dump_file(p.name)]
        if program is None:
            return files
        pattern = re.compile(rf"module_\d+\.{re.escape(PROGRAMS[program].module_name)}\.")
        return [p for p in files if pattern.match(p.name)]

    def non_hlo_dump_files(self) -> list[Path]:
        """Dump ``.txt`` files that are not HLO (buffer assignment, live ranges, ...)."""
        return [p for p in self.dump_txt_files() if not is_hlo_dump_file(p.name)]


def hlo_of_script(source: str, folder: Path) -> Path:
    """Run a jax script that prints an HLO module (on CPU jax, lowering for whatever it asks) in a
    fresh interpreter, as ``folder/prog.py``; write its output to ``folder/prog.hlo`` and return that path."""
    script = folder / "prog.py"
    script.write_text(source)
    hlo = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"}).stdout
    out = folder / "prog.hlo"
    out.write_text(hlo)
    return out


def generate_in_subprocess(out_dir: Path, timeout: float = 300) -> HloCorpus:
    """Run this script in a fresh interpreter with ``--xla_dump_to=out_dir/dump``."""
    env = dict(os.environ)
    flags = f" --xla_dump_to={out_dir / 'dump'} --xla_force_host_platform_device_count={DEVICE_COUNT}"
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + flags).strip()
    env["JAX_PLATFORMS"] = "cpu"
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), str(out_dir)],
        env=env, capture_output=True, text=True, timeout=timeout,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"generating the jax HLO corpus failed:\n{proc.stderr[-4000:]}")
    return HloCorpus(out_dir, json.loads((out_dir / "manifest.json").read_text()))


# ------------------------------------------------------------------- generation


def _observations() -> dict[str, Any]:
    import jax

    dev = jax.devices()[0]
    return {
        "jax_version": jax.__version__,
        "device": str(dev),
        "device_count": len(jax.devices()),
        "addressable_memories": [m.kind for m in dev.addressable_memories()],
        "default_memory": dev.default_memory().kind,
    }


def _lower(prog: JaxProgram, fn, args):
    if prog.platform == "cpu":
        return fn.lower(*args)
    return fn.trace(*args).lower(lowering_platforms=(prog.platform,))


def generate(out_dir: Path, names: list[str] | None = None) -> dict[str, Any]:
    """Write pre/post texts of the named programs (all by default) into ``out_dir``."""
    import jax

    (out_dir / "pre").mkdir(parents=True, exist_ok=True)
    (out_dir / "post").mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"observations": _observations(), "programs": {}}
    for name in names or list(PROGRAMS):
        prog = PROGRAMS[name]
        with jax.enable_x64(prog.x64):
            fn, args = prog.build()
            lowered = _lower(prog, fn, args)
            pre = lowered.as_text("hlo")
            (out_dir / "pre" / f"{name}.txt").write_text(pre)
            entry: dict[str, Any] = {
                "platform": prog.platform,
                "forms": list(prog.forms),
                "module_name": prog.module_name,
                "pre_has_annotate_device_placement": "annotate_device_placement" in pre,
            }
            if prog.platform == "cpu":
                post = lowered.compile().as_text()
                (out_dir / "post" / f"{name}.txt").write_text(post)
                entry["post_has_host_memory_space_S5"] = "S(5)" in post
        manifest["programs"][name] = entry
    dump = os.environ.get("XLA_FLAGS", "")
    manifest["xla_flags"] = dump
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


def main(argv: list[str]) -> int:
    """``python jax_programs.py OUT_DIR [NAME...]``; set XLA_FLAGS yourself for dumps."""
    if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (
            os.environ.get("XLA_FLAGS", "") + f" --xla_force_host_platform_device_count={DEVICE_COUNT}"
        ).strip()
    out = Path(argv[0])
    generate(out, argv[1:] or None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
