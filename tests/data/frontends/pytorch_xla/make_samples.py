"""Record the PyTorch/XLA samples in this folder (see README.md): real HLO from torch_xla on CPU.

Run with a Python that has torch and torch_xla 2.9.0 (not xladoctor's own venv)::

    python make_samples.py OUT_DIR          # OUT_DIR defaults to this folder

Each program of programs.py runs in a child process per capture, because torch_xla reads its
debug variables once, at import:

* ``api``:  ``torch_xla._XLAC._get_xla_tensors_hlo(outputs)`` -> ``NAME.hlo``;
* ``save``: ``XLA_SAVE_TENSORS_FILE`` + ``XLA_SAVE_TENSORS_FMT=hlo``, then ``torch_xla.sync()``
  -> ``NAME.graphs.txt.0`` (torch_xla adds the ``.0``: the device ordinal);
* ``dump``: ``XLA_FLAGS=--xla_dump_to=NAME_dump``, then ``torch_xla.sync()`` -> XLA's dump folder
  (kept: the HLO text files and ``debug_options``; object code and LLVM IR are dropped);
* ``ir_text`` (offload_round_trip only): the tensors file in torch_xla's own IR format
  (``XLA_SAVE_TENSORS_FMT=text``) -> ``offload_round_trip.ir_text.txt.0``, which is not HLO.

All with ``PJRT_DEVICE=CPU XLA_IR_DEBUG=1 XLA_HLO_DEBUG=1`` (the metadata: op_type, op_name, and
the Python ``source_file``/``source_line`` of each op).  XLA:CPU cannot run the placement custom
call (``Unknown custom-call API version enum value: 0``), so ``sync()`` of an offloading program
fails after the graph is saved and dumped; that failure is expected and printed.  The absolute
paths of this folder (and of OUT_DIR) and of site-packages are rewritten to ``RECORDED`` and ``SITE`` below, so the
samples do not depend on where they were made (tests point ``RECORDED`` back at programs.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDED = "/recorded/pytorch_xla"
SITE = "/venv/lib/python3.11/site-packages"
PROGRAMS = ("offload_returned", "offload_round_trip", "train_step", "train_step_offloaded")
KEPT_DUMP_FILES = ("before_optimizations.txt", "cpu_after_optimizations.txt", ".debug_options")


def child(name: str, mode: str, out: Path) -> None:
    """One program, one capture (runs in the child, with torch_xla's variables already set)."""
    import torch
    import torch_xla

    sys.path.insert(0, str(HERE))
    import programs

    torch.manual_seed(0)
    dev = torch_xla.device()
    if name.startswith("train_step"):
        model = programs.MLP().to(dev)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(32, 256).to(dev), torch.randint(0, 10, (32,)).to(dev)
        torch_xla.sync()  # the inputs and weights become device data: the graph's parameters
        outputs = [getattr(programs, name)(model, optimizer, x, y), *model.parameters()]
    else:
        x, w = torch.randn(16, 256).to(dev), torch.randn(256, 256).to(dev)
        torch_xla.sync()
        outputs = list(getattr(programs, name)(x, w))
    if mode == "api":
        (out / f"{name}.hlo").write_text(torch_xla._XLAC._get_xla_tensors_hlo(outputs))
        return
    try:
        torch_xla.sync()
    except Exception as e:  # XLA:CPU refuses the placement custom call: the graph was saved/dumped first
        print(f"{name} ({mode}): sync failed on CPU as expected for an offload: {str(e).splitlines()[0]}")


def _normalise(path: Path, site: str, out: Path) -> None:
    text = path.read_text()
    new = text.replace(str(out.resolve()), RECORDED).replace(str(HERE), RECORDED).replace(site, SITE)
    if new != text:
        path.write_text(new)


def record(out: Path) -> None:
    site = sysconfig.get_paths()["purelib"]
    base = {**os.environ, "PJRT_DEVICE": "CPU", "XLA_IR_DEBUG": "1", "XLA_HLO_DEBUG": "1"}
    runs = [(name, mode) for name in PROGRAMS for mode in ("api", "save", "dump")]
    for name, mode in [*runs, ("offload_round_trip", "ir_text")]:
        env = dict(base)
        if mode in ("save", "ir_text"):
            stem = f"{name}.graphs.txt" if mode == "save" else f"{name}.ir_text.txt"
            env.update(XLA_SAVE_TENSORS_FILE=str(out / stem), XLA_SAVE_TENSORS_FMT="hlo" if mode == "save" else "text")
            for old in out.glob(f"{stem}*"):
                old.unlink()
        if mode == "dump":
            dump = out / f"{name}_dump"
            shutil.rmtree(dump, ignore_errors=True)
            env["XLA_FLAGS"] = f"--xla_dump_to={dump}"
        subprocess.run([sys.executable, __file__, "--child", name, mode, str(out)], env=env, check=True)
        if mode == "dump":
            for f in list(dump.iterdir()):
                if not f.name.endswith(KEPT_DUMP_FILES):
                    f.unlink()
    for f in out.rglob("*"):
        if f.is_file() and f.suffix not in (".py", ".md"):
            _normalise(f, site, out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], Path(sys.argv[4]))
    else:
        record(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
