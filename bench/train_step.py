"""A real train step (issue 36 item 3): 8-layer transformer, remat with an offload policy, AdamW.

Two forms of the same model, lowered for TPU (``lowering_platforms=("tpu",)``, as
``user_programs.py`` does; no accelerator needed) and printed with ``as_text("hlo")``:

* ``scanned``: the layers' parameters stacked and the layers run by ``jax.lax.scan``;
* ``unrolled``: a Python loop over the layers (one copy of the layer per layer in the HLO).

Each layer is ``jax.checkpoint``-ed with ``save_and_offload_only_these_names``: its input and its
attention output are offloaded to ``pinned_host`` for the backward pass.  The step is
``value_and_grad`` of a next-token loss, then AdamW (written out: no optax dependency) on every
parameter, returning the new parameters and optimizer state.

    .venv/bin/python bench/train_step.py                 # write both, time ours vs jaxlib's parse
    .venv/bin/python bench/train_step.py --write DIR     # only write DIR/train_step_{scanned,unrolled}.hlo
    .venv/bin/python bench/train_step.py --profile       # and cProfile our analysis (top functions)

Timed in one process, interleaved, best of ``--repeat`` CPU seconds: jaxlib's
``hlo_module_from_text``, our parse alone, and what ``xladoctor offload FILE`` runs (parse +
``analyse_module``: the host-offload analysis, fixes, provenance).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE)]

LAYERS, D, HEADS, SEQ, BATCH, VOCAB = 8, 256, 4, 128, 8, 1024


def _model():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["layer_input", "attn_out"],
        offload_src="device", offload_dst="pinned_host")

    def norm(x, g):
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g

    def layer(x, p):
        x = checkpoint_name(x, "layer_input")
        h = norm(x, p["g1"])
        q, k, v = (jnp.einsum("bsd,dhk->bshk", h, p[w]) for w in ("wq", "wk", "wv"))
        s = jnp.einsum("bshk,bthk->bhst", q, k) / jnp.sqrt(D // HEADS)
        s = jnp.where(jnp.tril(jnp.ones((SEQ, SEQ), bool)), s, -1e9)
        a = jnp.einsum("bhst,bthk->bshk", jax.nn.softmax(s, axis=-1), v)
        x = x + checkpoint_name(jnp.einsum("bshk,hkd->bsd", a, p["wo"]), "attn_out")
        h = norm(x, p["g2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    remat = jax.checkpoint(layer, policy=policy, prevent_cse=False)

    def layer_params(stack=()):
        f = jnp.float32
        shapes = {"wq": (D, HEADS, D // HEADS), "wk": (D, HEADS, D // HEADS), "wv": (D, HEADS, D // HEADS),
                  "wo": (HEADS, D // HEADS, D), "w1": (D, 4 * D), "w2": (4 * D, D)}
        p = {n: jax.ShapeDtypeStruct((*stack, *s), f) for n, s in shapes.items()}
        p.update(g1=jax.ShapeDtypeStruct((*stack, D), f), g2=jax.ShapeDtypeStruct((*stack, D), f))
        return p

    def loss(params, tokens, scanned):
        x = params["embed"][tokens[:, :-1]]
        if scanned:
            x, _ = jax.lax.scan(lambda c, p: (remat(c, p), None), x, params["layers"])
        else:
            for p in params["layers"]:
                x = remat(x, p)
        logits = x @ params["embed"].T
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, tokens[:, 1:, None], axis=-1))

    def adamw(p, g, m, v, t, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, wd=0.01):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mh, vh = m / (1 - b1 ** t), v / (1 - b2 ** t)
        return p - lr * (mh / (jnp.sqrt(vh) + eps) + wd * p), m, v

    def step(params, opt, tokens, scanned):
        value, grads = jax.value_and_grad(loss)(params, tokens, scanned)
        t = opt["t"] + 1
        flat_p, tree = jax.tree_util.tree_flatten(params)
        flat = [adamw(p, g, m, v, t) for p, g, m, v in zip(flat_p, jax.tree_util.tree_leaves(grads),
                                                             jax.tree_util.tree_leaves(opt["m"]),
                                                             jax.tree_util.tree_leaves(opt["v"]))]
        new_p, new_m, new_v = (jax.tree_util.tree_unflatten(tree, [f[i] for f in flat]) for i in range(3))
        return value, new_p, {"m": new_m, "v": new_v, "t": t}

    def lowered(scanned: bool):
        embed = jax.ShapeDtypeStruct((VOCAB, D), jnp.float32)
        layers = layer_params((LAYERS,)) if scanned else [layer_params() for _ in range(LAYERS)]
        params = {"embed": embed, "layers": layers}
        opt = {"m": params, "v": params, "t": jax.ShapeDtypeStruct((), jnp.float32)}
        tokens = jax.ShapeDtypeStruct((BATCH, SEQ + 1), jnp.int32)
        fn = jax.jit(lambda p, o, t: step(p, o, t, scanned))
        return fn.trace(params, opt, tokens).lower(lowering_platforms=("tpu",)).as_text("hlo")

    return lowered


def write(out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    lowered = _model()
    paths = {}
    for form in ("scanned", "unrolled"):
        path = out / f"train_step_{form}.hlo"
        path.write_text(lowered(form == "scanned"))
        paths[form] = path
    return paths


def _best_cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def measure(paths: dict[str, Path], repeat: int, profile: bool) -> None:
    from jaxlib import _hlo

    from xladoctor.route.module_analysis import analyse_module, parse_hlo
    print(f"| module | size | jaxlib parse (CPU-s) | our parse | ours/jaxlib | offload = parse + analysis | ours/jaxlib |")
    print("|---|---|---|---|---|---|---|")
    for form, path in paths.items():
        text, src = path.read_text(), str(path)
        n = sum(1 for line in text.splitlines() if " = " in line)
        jl = parse = full = float("inf")
        for _ in range(repeat):  # interleaved, so a neighbour's load hits all three alike
            jl = min(jl, _best_cpu(lambda: _hlo.hlo_module_from_text(text), 1))
            parse = min(parse, _best_cpu(lambda: parse_hlo(text, src), 1))
            full = min(full, _best_cpu(lambda: analyse_module(parse_hlo(text, src), text, src), 1))
        print(f"| {form} | {n:,} instr ({len(text) / 1e6:.2f} MB) | {jl:.3f} | {parse:.3f} | {parse / jl:.2f}x "
              f"| {full:.3f} | {full / jl:.2f}x |")
        if profile:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.runcall(lambda: analyse_module(parse_hlo(text, src), text, src))
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="DIR", help="only write the two modules to DIR")
    ap.add_argument("--modules", metavar="DIR", help="time the modules already written to DIR")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    if args.modules:
        paths = {f: Path(args.modules) / f"train_step_{f}.hlo" for f in ("scanned", "unrolled")}
    else:
        paths = write(Path(args.write or "/tmp/xladoctor-train-step"))
        if args.write:
            return 0
    measure(paths, args.repeat, args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
