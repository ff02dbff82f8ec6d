"""``--confirm``: the real TPU compiler's verdict next to our prediction (offload, check).

The options and the note on stderr, shared by the ``offload`` and ``check`` commands.  The
document itself is :func:`xladoctor.oracle.confirm.confirm` (nothing there imports jax: the
compile runs in the oracle's worker process) and its text :mod:`xladoctor.report.confirm`.
"""

from __future__ import annotations

import sys

from ...base.labels import label
from ._common import help_text

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    import argparse  # `offload FILE` and `check FILE` are read without it (cli/main.py PLAIN_COMMANDS)

    from ...oracle.confirmation import Confirmation


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ...oracle.topologies import DEFAULT_TOPOLOGY, TOPOLOGIES

    parser.add_argument("--confirm", action="store_true",
                        help=help_text(parser, "cli.confirm"))
    parser.add_argument("--topology", default=DEFAULT_TOPOLOGY, choices=TOPOLOGIES,
                        help=help_text(parser, "cli.topology", default=DEFAULT_TOPOLOGY))
    parser.add_argument("--run", action="store_true", help=help_text(parser, "cli.run"))
    parser.add_argument("--seed", type=seed, default=0, help=help_text(parser, "cli.seed"))


def seed(value: str) -> int:
    """A seed numpy's ``default_rng`` takes: a decimal integer in ``0 .. 2**64-1``.

    Checked here, not by the chip's worker: a negative seed raised there, inside the run, and
    the worker's traceback came back as the run's ``timeout`` (argparse names a ValueError's
    option and value: "argument --seed: invalid seed value")."""
    number = int(value)
    if not 0 <= number < 1 << 64:
        raise ValueError(value)
    return number


def check_run(args: argparse.Namespace) -> None:
    """``--run`` implies ``--confirm``; it needs a local TPU (a usage error, exit 2, elsewhere)."""
    if not getattr(args, "run", False):
        return
    from ...base.errors import UsageError
    from ...oracle.run_chip import chip_present
    from ...oracle.topologies import is_gpu_platform, platform_of

    if is_gpu_platform(platform_of(args.topology)):
        raise UsageError(label("confirm.run_gpu", topology=args.topology))
    if not chip_present():
        raise UsageError(label("confirm.no_chip"))
    args.confirm = True


def note_if_unavailable(confirmation: Confirmation | None, lang: str = "en") -> None:
    """The one-line note on stderr when --confirm cannot run here."""
    if confirmation is not None and not confirmation.available:
        print(label("confirm.skipped", lang, reason=confirmation.reason), file=sys.stderr)
