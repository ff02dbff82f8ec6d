"""Does real XLA on GPU agree with xladoctor's E1200 verdicts?  Run on a GPU machine.

For every program in ``offload_programs.PROGRAMS`` (plus its fixed version and the
``out_shardings`` fix), compile it with real ``jax.jit(...).lower().compile()`` on
the local GPU and compare XLA's verdict (E1200 raised or not) with ours on the GPU
lowering (``check_offload(..., platform="cuda")``) and on the TPU lowering, both under
the default rule (released XLA).  Prints one JSON line per program:

    {"program": ..., "variant": "original|fixed|host_out_shardings", "xla_e1200": bool,
     "xla_error": str|null, "ours_gpu": "ok|E1200|failure", "ours_tpu": ..., "agree": bool}

``agree`` compares XLA with the GPU rule.  Exit 0 when every line agrees.  Needs
jax with CUDA; refuses to run on CPU (XLA:CPU strips the annotations, see docs/jax.md)
except with ``--dry-run`` (our verdicts only; the tests use it).
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax  # noqa: E402

from offload_programs import PROGRAMS  # noqa: E402

from xladoctor.jax import check_offload  # noqa: E402


def xla_verdict(fn, args, jit_kwargs):
    try:
        jax.jit(fn, **jit_kwargs).trace(*args).lower().compile()
        return False, None
    except Exception as e:  # JaxRuntimeError and friends
        text = str(e)
        return "E1200" in text or "CompileTimeHostOffloadOutputLocationMismatch" in text or \
            "moved to host" in text, text.splitlines()[0][:300] if text else type(e).__name__


def main(argv: list[str] | None = None) -> int:
    dry_run = "--dry-run" in (sys.argv[1:] if argv is None else argv)
    platform = jax.devices()[0].platform
    if platform != "gpu" and not dry_run:
        print(json.dumps({"error": f"needs a GPU, found {platform}"}))
        return 2
    sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    all_agree = True
    for name, make in PROGRAMS.items():
        p = make()
        first = check_offload(p.fn, *p.args, platform="cuda", jit_kwargs=p.jit_kwargs)
        variants = [("original", p.fn, p.jit_kwargs)]
        if p.fixed_fn is not None:
            variants.append(("fixed", p.fixed_fn, p.jit_kwargs))
        on_tpu = check_offload(p.fn, *p.args, platform="tpu", jit_kwargs=p.jit_kwargs)
        if on_tpu.findings:
            variants.append(("host_out_shardings", p.fn,
                             dict(p.jit_kwargs, out_shardings=on_tpu.suggested_out_shardings(sharding))))
        for variant, fn, kw in variants:
            ours_gpu = check_offload(fn, *p.args, platform="cuda", jit_kwargs=kw) if variant != "original" else first
            ours_tpu = check_offload(fn, *p.args, platform="tpu", jit_kwargs=kw)
            e1200, error = (None, "dry run") if dry_run else xla_verdict(fn, p.args, kw)
            agree = None if dry_run else e1200 == (ours_gpu.outcome == "E1200")
            all_agree &= agree is not False
            print(json.dumps({"program": name, "variant": variant, "xla_e1200": e1200, "xla_error": error,
                              "ours_gpu": ours_gpu.outcome, "ours_tpu": ours_tpu.outcome,
                              "ours_gpu_notes": ours_gpu.notes, "agree": agree}), flush=True)
    return 0 if all_agree else 1


if __name__ == "__main__":
    sys.exit(main())
