"""The exact text each XLA runtime prints when an input buffer does not fit (E0102 family).

Three runtimes check inputs three ways (layouts.md §8):

* **TPU** (libtpu, closed): compares on-device byte sizes (``ShapeUtil::ArraySize``,
  tiles included) and prints both shapes; PJRT appends the replica/partition
  suffix when more than one device runs the program.
* **CPU/GPU PJRT clients**: compare ``ShapeUtil::ByteSizeOf`` of the compiled
  parameter with the buffer's size; no shapes.  The TFRT GPU client's text ends
  with a space (``... incompatible size %lld ``), the CPU client's does not.
* **PjRtStreamExecutor** (``CheckCompatibleShapes``): with strict shape checking
  (the default) requires ``ShapeUtil::Compatible`` (type and dimensions, layout
  ignored) and prints both shapes.

Every function returns the status message as JAX shows it, ``INVALID_ARGUMENT: ...``.
"""

from __future__ import annotations

from ..ir.shape import Shape

STATUS_PREFIX = "INVALID_ARGUMENT: "


def replica_suffix(replica: int | None, partition: int | None) -> str:
    """``: while running replica R and partition P of a replicated computation ...``, or ``""``."""
    if replica is None or partition is None:
        return ""
    return (f": while running replica {replica} and partition {partition} of a replicated computation "
            "(other replicas may have failed as well).")


TPU_CODE_LINE = "E0102: RuntimeProgramInputMismatch:"
"""libtpu 0.0.42.1 (measured on a v5e, tests/data/chip/round1.jsonl, docs/chip.md "E0102 as users
meet it"): the code and its name open the message, the Executable line follows, and XLA's error
page closes it, three lines.  Older libtpu printed the Executable line alone, with the replica
tail; ``explain`` still reads both (inputs/messages.py)."""

TPU_SEE_LINE = "See https://openxla.org/xla/errors/error_0102 for more details."


def tpu_message(executable: str, index: int, expected_bytes: int, expected: Shape, actual_bytes: int,
                actual: Shape, replica: int | None = None, partition: int | None = None) -> str:
    """The TPU runtime's E0102 text as libtpu 0.0.42.1 prints it (sizes are ArraySize of each shape).
    The replica/partition tail was measured only in the older one-line form (a multi-device run): it
    is kept at the end of the Executable line, where that form had it."""
    return (f"{STATUS_PREFIX}{TPU_CODE_LINE}\nExecutable({executable}) expected parameter {index} of size "
            f"{expected_bytes} ({expected}) but got buffer with incompatible size {actual_bytes} ({actual})"
            + replica_suffix(replica, partition) + "\n" + TPU_SEE_LINE)


def cpu_gpu_message(index: int, expected_bytes: int, actual_bytes: int, gpu: bool = False) -> str:
    """The CPU (or TFRT GPU, with its trailing space) client's size-mismatch text (ByteSizeOf)."""
    return (f"{STATUS_PREFIX}Executable expected parameter {index} of size {expected_bytes} but got buffer with "
            f"incompatible size {actual_bytes}" + (" " if gpu else ""))


def buffer_count_message(supplied: int, expected: int) -> str:
    """CPU/GPU clients' text when the number of arguments differs."""
    return f"{STATUS_PREFIX}Execution supplied {supplied} buffers but compiled program expected {expected} buffers"


def stream_executor_message(index: int, expected: Shape, actual: Shape) -> str:
    """PjRtStreamExecutorClient's ``CheckCompatibleShapes`` text (expected shape first)."""
    return (f"{STATUS_PREFIX}Executable expected shape {expected} for argument {index} but got incompatible "
            f"shape {actual}")
