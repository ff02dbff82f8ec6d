"""Worker process: ``python -m xladoctor.oracle.worker_main TOPOLOGY``.

Protocol (one JSON object per line): the worker first writes ``{"ready": true}`` once libtpu
is loaded (or ``{"ready": false, "reason": ...}``), then answers each request line
``{"id": N, "kind": "hlo"|"stablehlo", "text": ..., "want_text": bool}`` with
``{"id": N, "verdict": {...}}``.  The reply channel is the process's original stdout; fd 1
is pointed at stderr first so anything the compiler prints cannot corrupt the replies.
A CHECK failure kills this process; the parent reads the CHECK line from stderr.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    topology = argv[1] if len(argv) > 1 else "v5e:2x2"
    try:
        from .backend import Backend

        backend = Backend(topology)
    except Exception as e:  # libtpu refused to load: say why, once
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        replies.write(json.dumps({"ready": False, "reason": f"libtpu could not start a {topology} "
                                                            f"compile-only client: {first}"}) + "\n")
        return 0
    replies.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            verdict = backend.compile_request(request)
        except Exception as e:  # a bug on our side: report it as such, keep serving
            from .verdict import Verdict

            verdict = Verdict("unsupported", reason=f"oracle error: {type(e).__name__}: {e}",
                              topology=topology)
        replies.write(json.dumps({"id": request.get("id"), "verdict": verdict.to_json()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
