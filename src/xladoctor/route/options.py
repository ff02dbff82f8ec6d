"""The one options object every route takes, from a command's flags to the analysis of one input.

It replaces three: ``pipeline.AnalysisOptions`` (one module's analysis: rule, host compute, the
StableHLO companion, the platform predicted for), ``checking.stream.Options`` (a ``check`` run:
language, ``--full``, the log scan's threads, ``--confirm``/``--run``) and the argparse namespace
that commands threaded down for the rest.  A run's options are made once from its flags
(:meth:`Options.from_args`); the companion found for one module is added per input
(:meth:`Options.with_companion`), so a worker process receives the same frozen value.

Keyword-only: the fields are many and several are booleans; a call spells what it sets.
The offload pass' own switches (``offload.passes.host_offloader.state.OffloadOptions``) are the
pass' and stay there; :meth:`Options` hands it ``rule`` and ``disable_host_compute``.
"""

from __future__ import annotations

from ..base.plain_dataclass import FrozenDataclass, fields_with

TYPE_CHECKING = False  # not typing's (issue 36, start-up)
if TYPE_CHECKING:
    import argparse  # a plain command line is read without it (cli/main.py PLAIN_COMMANDS)
    from typing import Any


class Options(FrozenDataclass, kw_only=True):
    """What a route needs to know besides its input; the names are the commands' flags (a frozen,
    keyword-only dataclass written out: :mod:`xladoctor.base.plain_dataclass`)."""

    rule: str
    """Host-offload rule (``shipped`` or ``unmerged-pr-36525``, see ``xladoctor.offload.rules``)."""
    lang: str
    """The reader's language for xladoctor's own sentences (XLA's stay as XLA wrote them)."""
    disable_host_compute: bool
    """As ``--disable-host-compute`` (``--xla_disable_automatic_host_compute_offload``)."""
    full: bool
    """``check --full``: analyse every module, not only those the byte triage says an analysis applies to."""
    parallel_logs: bool
    """Scan a log on this process' threads (one file checked: the cores are free)."""
    confirm_topology: str | None
    """``--confirm``'s topology: the real compiler judges each module (None: no confirmation)."""
    confirm_run: int | None
    """``--run``'s seed: run each module once on the local chip (None: compile only)."""
    platform: str
    """The compiler predicted for (``tpu``, ``cuda``): ``--confirm`` with a GPU ``--topology``
    predicts for XLA:GPU, whose pipeline and rule differ (:mod:`xladoctor.offload.platform_checks`)."""
    stablehlo_path: str | None
    """The StableHLO companion of the module analysed (``--stablehlo FILE``, or ``NAME.mlir`` beside)."""
    stablehlo_found: str | None
    """How the companion was found (``option``: ``--stablehlo``; ``beside``: ``NAME.mlir`` next to
    ``NAME.hlo``; :mod:`xladoctor.syntax.companion`), said in every output."""

    def __init__(self, *, rule: str = "shipped", lang: str = "en", disable_host_compute: bool = False,
                 full: bool = False, parallel_logs: bool = False, confirm_topology: str | None = None,
                 confirm_run: int | None = None, platform: str = "tpu", stablehlo_path: str | None = None,
                 stablehlo_found: str | None = None) -> None:
        for name, value in (("rule", rule), ("lang", lang), ("disable_host_compute", disable_host_compute),
                            ("full", full), ("parallel_logs", parallel_logs), ("confirm_topology", confirm_topology),
                            ("confirm_run", confirm_run), ("platform", platform), ("stablehlo_path", stablehlo_path),
                            ("stablehlo_found", stablehlo_found)):
            object.__setattr__(self, name, value)

    @classmethod
    def from_args(cls, args: argparse.Namespace, lang: str, **more: Any) -> Options:
        """A run's options from its command's flags (those it has; the rest keep their defaults)."""
        confirming = bool(getattr(args, "confirm", False))
        run = getattr(args, "run", False)
        fields: dict[str, Any] = {
            "rule": getattr(args, "rule", "shipped"), "lang": lang,
            "disable_host_compute": bool(getattr(args, "disable_host_compute", False)),
            "full": bool(getattr(args, "full", False)) or confirming,
            "confirm_topology": getattr(args, "topology", None) if confirming else None,
            "confirm_run": getattr(args, "seed", 0) if run else None}
        return cls(**{**fields, **more})

    def with_companion(self, path: str | None, found: str | None) -> Options:
        """These options for one module whose StableHLO companion is ``path`` (None: none)."""
        return Options(**fields_with(self, {"stablehlo_path": path,
                                            "stablehlo_found": found if path is not None else None}))

    def for_platform(self) -> Options:
        """With ``--confirm``, the prediction is for the confirming compiler (XLA:GPU for a GPU topology)."""
        if self.confirm_topology is None:
            return self
        from ..oracle.topologies import platform_of

        return Options(**fields_with(self, {"platform": platform_of(self.confirm_topology)}))

    def companion_json(self) -> dict[str, Any] | None:
        """The documents' ``stablehlo``: which StableHLO the verdict used, or null for none."""
        if self.stablehlo_path is None:
            return None
        from ..syntax.companion import companion_json

        return companion_json(self.stablehlo_path, self.stablehlo_found or "option")

    def command_args(self) -> tuple[str, ...]:
        """The options as command-line arguments (repeated in each fix's ``xladoctor offload`` line)."""
        out: tuple[str, ...] = ("--disable-host-compute",) if self.disable_host_compute else ()
        return out + (("--stablehlo", self.stablehlo_path) if self.stablehlo_path else ())
