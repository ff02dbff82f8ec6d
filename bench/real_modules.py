"""Benchmark modules grown from real jax programs: their text as jax prints it, repeated to a size.

* ``jax_entry``: a training-style step (matmuls, tanh, relu, a reduction, an activation
  offloaded to ``pinned_host`` and brought back, as remat offload policies do), lowered for
  a TPU v5e topology when libtpu is installed (else for the CPU, without the offload pair).
* ``calls``: an ``rng_fft``-style program (``jax.random`` split/normal/uniform, an FFT):
  every jax helper is its own computation reached by ``call``, the shape of real programs
  that makes call-following analyses work hard.

A module is repeated whole: copy ``k`` renames every instruction and computation with a
``_c{k}`` suffix and its ENTRY body joins one ENTRY that shares the parameters; the last
copy's ROOT is the ROOT.  Every generated module is checked to parse with jaxlib.
"""

from __future__ import annotations

import os
import re

_DEFINED = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=", re.M)
_COMPUTATION = re.compile(r"^(ENTRY\s+)?%?([A-Za-z_][\w.\-]*)\s*(?:\([^\n]*\)\s*->[^\n]*)?\{\s*$", re.M)
_TOKEN = re.compile(r"(?<![\w.\-])%?[A-Za-z_][\w.\-]*")
_PARAMETER = re.compile(r"^\s*%?([A-Za-z_][\w.\-]*)\s*=[^\n]*\sparameter\(")


def _jax_entry_text() -> str:
    os.environ.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
    os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # other processes may hold libtpu's lock file
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # no libtpu start-up errors: the topology is compile-only
    import jax
    import jax.numpy as jnp
    from jax.sharding import SingleDeviceSharding

    try:
        from jax.experimental import topologies
        dev = topologies.get_topology_desc("v5e:2x2", "tpu").devices[0]
        host, device = (SingleDeviceSharding(dev, memory_kind=k) for k in ("pinned_host", "device"))
    except Exception:  # no libtpu: the same program on the CPU, without the offload pair
        dev, host, device = jax.devices()[0], None, None

    def step(x, w1, w2):
        h = jnp.tanh(x @ w1)
        if host is not None:
            h = jax.device_put(jax.device_put(h, host), device)
        y = jax.nn.relu(h @ w2)
        return (y * y).sum(), y

    x = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=SingleDeviceSharding(dev))
    w = jax.ShapeDtypeStruct((128, 128), jnp.float32, sharding=SingleDeviceSharding(dev))
    return jax.jit(step).lower(x, w, w).as_text("hlo")


def _calls_text() -> str:
    import jax
    import jax.numpy as jnp

    def rng_fft(key, x):
        k1, k2 = jax.random.split(key)
        return jnp.fft.fft(x + jax.random.normal(k1, x.shape)).real * jax.random.uniform(k2, x.shape)

    return jax.jit(rng_fft).lower(jax.random.key(0), jax.ShapeDtypeStruct((8, 128), jnp.float32)).as_text("hlo")


def _split(text: str) -> tuple[str, list[str], str, list[str], list[str]]:
    """Header, non-entry computations (whole text), the ENTRY line, its parameter lines, its other lines."""
    header, _, rest = text.partition("\n")
    comps: list[str] = []
    entry_head, params, body = "", [], []
    for block in re.split(r"\n\s*\n", rest.strip("\n")):
        if not block.strip():
            continue
        if block.startswith("ENTRY"):
            lines = block.rstrip().rstrip("}").rstrip().split("\n")
            entry_head = lines[0]
            for line in lines[1:]:
                (params if _PARAMETER.match(line) else body).append(line)
        else:
            comps.append(block.rstrip())
    return header, comps, entry_head, params, body


def repeat(text: str, n_instructions: int) -> str:
    """``text`` (one module) repeated to about ``n_instructions`` instructions, as described above."""
    header, comps, entry_head, params, body = _split(text)
    per_copy = len(_DEFINED.findall(text)) - len(params)
    copies = max(1, round((n_instructions - len(params)) / per_copy))
    shared = {m.group(1) for line in params for m in [_PARAMETER.match(line)] if m}
    names = ({m.group(1) for m in _DEFINED.finditer(text)} | {m.group(2) for m in _COMPUTATION.finditer(text)}) - shared
    out = [header, ""]
    entry: list[str] = [entry_head, *params]
    for k in range(copies):
        suffix = f"_c{k}"

        def rename(m: re.Match[str], suffix: str = suffix) -> str:
            tok = m.group(0)
            bare = tok.lstrip("%")
            return tok + suffix if bare in names else tok
        out += [_TOKEN.sub(rename, c) + "\n" for c in comps]
        lines = [_TOKEN.sub(rename, line) for line in body]
        if k != copies - 1:
            lines = [re.sub(r"^(\s*)ROOT\s+", r"\1", line) for line in lines]
        entry += lines
    out += entry + ["}", ""]
    return "\n".join(out)


def module(kind: str, n_instructions: int) -> str:
    """A checked module of ``kind`` ('jax_entry' or 'calls') with about ``n_instructions`` instructions."""
    text = repeat(_jax_entry_text() if kind == "jax_entry" else _calls_text(), n_instructions)
    from jaxlib import _hlo
    _hlo.hlo_module_from_text(text)  # raises if jaxlib does not read it
    return text


if __name__ == "__main__":
    import sys
    t = module(sys.argv[1], int(sys.argv[2]))
    print(t[:2000] if len(sys.argv) < 4 else t)
    print(len(t), "bytes,", len(_DEFINED.findall(t)), "instructions", file=sys.stderr)
