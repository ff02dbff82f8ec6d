"""The worker's loop, run in a process forked by :mod:`.zygote`.

Protocol (one JSON object per line on the worker's socket): the worker first writes
``{"ready": true}`` once libtpu's (or the CUDA plugin's) client for its topology is up (or ``{"ready": false,
"reason": ...}``), then answers each request line ``{"id": N, "kind": "hlo"|"stablehlo",
"text": ..., "want_text": bool}`` with ``{"id": N, "verdict": {...}}``.  A CHECK failure
kills the process; the parent reads the CHECK line from the stderr file.
"""

from __future__ import annotations

import json
from typing import BinaryIO

from ..base.labels import label


def serve(topology: str, requests: BinaryIO, replies: BinaryIO) -> int:
    def reply(obj: dict) -> None:
        replies.write(json.dumps(obj).encode() + b"\n")
        replies.flush()

    from .topologies import GPU_SPECS

    try:
        from .backend import Backend
        from .gpu_backend import GpuBackend

        backend = GpuBackend(topology) if topology in GPU_SPECS else Backend(topology)
    except Exception as e:  # libtpu / the CUDA plugin refused to start: say why, once
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        why = (label("oracle.no_gpu_client", topology=topology, spec=GPU_SPECS[topology], first=first)
               if topology in GPU_SPECS else label("oracle.no_client", topology=topology, first=first))
        reply({"ready": False, "reason": why})
        return 0
    reply({"ready": True})
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            verdict = backend.compile_request(request)
        except Exception as e:  # a bug on our side: report it as such, keep serving
            from .verdict import Verdict

            verdict = Verdict("unsupported", reason=label("oracle.worker_error", error=f"{type(e).__name__}: {e}"), topology=topology)
        reply({"id": request.get("id"), "verdict": verdict.to_json()})
    return 0
