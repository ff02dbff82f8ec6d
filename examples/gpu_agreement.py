"""Does real XLA on GPU agree with xladoctor's E1200 verdicts?  No GPU needed.

For every program in ``offload_programs.PROGRAMS`` (plus its fixed version and the
``out_shardings`` fix), XLA's GPU compiler compiles it and its verdict is compared with
ours on the GPU lowering (``check_offload(..., platform="cuda")``, the GPU rule included);
ours on the TPU lowering is printed beside it.  Two routes to the GPU compiler:

* default: compile-only, on any Linux x86-64 machine, through the ``[gpu]`` extra
  (``pip install 'xladoctor[gpu]'``): the CUDA PJRT plugin builds an H100 (``--topology
  a100`` for an A100) from XLA's own target config, no GPU or driver involved;
* ``--device``: where a GPU is attached, ``jax.jit(...).lower().compile()`` on it, the
  last check that the compile-only route judges like the real device.

Prints one JSON line per program:

    {"program": ..., "variant": "original|fixed|host_out_shardings", "judge": "h100 (compile-only)",
     "xla_e1200": bool, "xla_verdict": "compiles|e1200|xla_error|...", "xla_error": str|null,
     "ours_gpu": "ok|E1200|failure", "ours_tpu": ..., "agree": bool}

``agree`` compares XLA's verdict kind (and E1200's start, compile-only route) with the GPU
prediction.  Exit 0 when every line agrees, 2 when no GPU compiler can run.  ``--dry-run``:
our verdicts only (the tests use it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("JAX_PLATFORMS", "cpu")  # the compile-only route needs no backend; --device unsets it

import jax  # noqa: E402

from offload_programs import PROGRAMS  # noqa: E402

from xladoctor.jax import check_offload  # noqa: E402


def device_verdict(fn, args, jit_kwargs):
    """The attached GPU's verdict: ``(kind, e1200, first line of the error)``."""
    try:
        jax.jit(fn, **jit_kwargs).trace(*args).lower().compile()
        return "compiles", False, None
    except Exception as e:  # JaxRuntimeError and friends
        text = str(e)
        e1200 = "E1200" in text or "CompileTimeHostOffloadOutputLocationMismatch" in text
        return ("e1200" if e1200 else "xla_error"), e1200, (text.splitlines()[0][:300] if text else type(e).__name__)


def _variants(p, sharding):
    variants = [("original", p.fn, p.jit_kwargs)]
    if p.fixed_fn is not None:
        variants.append(("fixed", p.fixed_fn, p.jit_kwargs))
    on_tpu = check_offload(p.fn, *p.args, platform="tpu", jit_kwargs=p.jit_kwargs)
    if on_tpu.findings_of("E1200"):
        variants.append(("host_out_shardings", p.fn,
                         dict(p.jit_kwargs, out_shardings=on_tpu.suggested_out_shardings(sharding))))
    return variants


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="our verdicts only, no compiler")
    ap.add_argument("--device", action="store_true", help="compile on the attached GPU instead of compile-only")
    ap.add_argument("--topology", default="h100", choices=("h100", "a100"), help="the compile-only GPU target")
    args = ap.parse_args(argv)
    if args.device and jax.devices()[0].platform != "gpu":
        print(json.dumps({"error": f"--device needs an attached GPU, found {jax.devices()[0].platform} "
                                   "(with JAX_PLATFORMS unset); drop --device for the compile-only route"}))
        return 2
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    judge = "local gpu" if args.device else f"{args.topology} (compile-only)"
    all_agree = True
    for name, make in PROGRAMS.items():
        p = make()
        for variant, fn, kw in _variants(p, sharding):
            compile_only = not (args.dry_run or args.device)
            ours_gpu = check_offload(fn, *p.args, platform="cuda", jit_kwargs=kw, confirm=compile_only,
                                     topology=args.topology)
            ours_tpu = check_offload(fn, *p.args, platform="tpu", jit_kwargs=kw)
            if args.dry_run:
                kind, e1200, error, agree = None, None, "dry run", None
            elif args.device:
                kind, e1200, error = device_verdict(fn, p.args, kw)
                want = {"ok": "compiles", "E1200": "e1200"}.get(ours_gpu.outcome, "xla_error")
                agree = kind == want
            elif ours_gpu.confirmation is None:
                print(json.dumps({"error": ours_gpu.confirm_note}))
                return 2
            else:
                v = ours_gpu.confirmation.verdict
                kind, e1200, agree = v.kind, v.kind == "e1200", ours_gpu.confirmation.agree
                error = (v.message.splitlines() or [None])[0] if v.is_error else None
            all_agree &= agree is not False
            print(json.dumps({"program": name, "variant": variant, "judge": judge, "xla_e1200": e1200,
                              "xla_verdict": kind, "xla_error": error, "ours_gpu": ours_gpu.outcome,
                              "ours_tpu": ours_tpu.outcome, "ours_gpu_notes": ours_gpu.notes, "agree": agree}),
                  flush=True)
    return 0 if all_agree else 1


if __name__ == "__main__":
    sys.exit(main())
