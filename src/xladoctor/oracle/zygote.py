"""A pre-imported parent that forks compile workers in ~0.2 s instead of starting them in ~2-4 s.

Starting a worker costs the import of jax/jaxlib (seconds); loading libtpu's compile-only
client afterwards costs ~0.1 s.  So one zygote process per xladoctor process imports once,
*before* any backend exists (no libtpu threads yet, so forking is safe), and forks a fresh
worker on request: the first worker, the one after a CHECK crash, after a timeout, after
recycling.  Protocol on the control socket (``SOCK_SEQPACKET``, one message each way):

* zygote -> parent, once: ``{"ready": true}`` or ``{"ready": false, "reason": ...}``;
* parent -> zygote: ``{"topology": T, "env": {...}}`` with two file descriptors attached
  (the worker's end of its request/reply socket, and its stderr file);
* zygote -> parent: ``{"pid": N}``.  The forked child runs :func:`.worker_main.serve`.

The zygote exits when the parent closes the control socket (or dies: the socket closes with it);
workers exit when the parent closes their socket, and are killed when the zygote exits
(``PR_SET_PDEATHSIG``), even in the middle of a compile.  Ctrl-C is ignored here: the parent
ends its children.  Children are reaped automatically (``SIGCHLD`` ignored).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

from ..base.labels import label


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    try:
        from .backend import preload

        preload()
    except Exception as e:  # jax/jaxlib missing or broken: say why once
        control.send(json.dumps({"ready": False, "reason": label("oracle.no_jax", error=e)}).encode())
        return 0
    control.send(b'{"ready": true}')
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    # Ctrl-C reaches the terminal's whole process group: ending the workers is the parent's call.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(control, 1 << 16, 2)
        except OSError:
            return 0
        if not msg:
            return 0
        request = json.loads(msg)
        zygote = os.getpid()  # read before the fork, as base.parallel's pool does (die_with_parent)
        pid = os.fork()
        if pid == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            from ..base.parallel import die_with_parent

            die_with_parent(zygote)  # a worker in a long compile never outlives the zygote (nor, so, xladoctor)
            os._exit(_child(request, fds))
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"pid": pid}).encode())


def _child(request: dict, fds: list[int]) -> int:
    channel_fd, stderr_fd = fds
    os.dup2(stderr_fd, 2)
    os.dup2(stderr_fd, 1)  # whatever the compiler prints must not reach the reply channel
    os.close(stderr_fd)
    os.environ.update(request.get("env", {}))
    channel = socket.socket(fileno=channel_fd)
    from .worker_main import serve

    try:
        return serve(request["topology"], channel.makefile("rb"), channel.makefile("wb"))
    finally:
        sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
