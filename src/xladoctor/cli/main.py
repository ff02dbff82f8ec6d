"""The ``xladoctor`` command line: one subcommand per module in :mod:`xladoctor.cli.commands`.

Subcommands are discovered, not listed here, so each lives in one file with its
arguments and its run function.  Discovery lists module *names* without importing
them; only the command being run is imported (and only top-level ``--help`` imports
them all for their help lines), so ``xladoctor shape`` never pays for the HLO parser
or the offload analysis (start-up is measured in ``bench/bench_all.py``).  Every :class:`~xladoctor.base.errors.XlaDoctorError`
becomes one line on stderr and exit code 2; exit 1 means findings, 0 means clean.
"""

from __future__ import annotations

import os
import sys

from .. import __version__

TYPE_CHECKING = False  # not typing's: importing typing is most of a bare start-up
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any, NoReturn

# Nothing else at the top: ``xladoctor --version`` is answered before argparse, the labels or any
# command is imported (issue 36: start-up within 2x a bare ``python -c pass``); each function
# imports what it needs.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def compiled_core() -> bool:
    """Whether the opt-in compiled core (``XLADOCTOR_COMPILE=1 pip install .``, setup.py) is
    installed: an extension module beside ``ir/instruction.py``, which Python imports before the
    source.  Looked up on disk, nothing imported, so ``--version`` stays a bare start-up."""
    import _imp  # built in, already loaded

    base = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ir", "instruction")
    return any(os.path.exists(base + suffix) for suffix in _imp.extension_suffixes())


def version_line() -> str:
    """What ``--version`` prints: the version, and whether the compiled core or pure Python runs."""
    return f"xladoctor {__version__} (compiled core: {'yes' if compiled_core() else 'no'})"


def command_names() -> list[str]:
    """Subcommand names: the public modules of :mod:`xladoctor.cli.commands`, from a directory listing
    (no import; ``pkgutil`` alone would cost more start-up time than the listing)."""
    from . import commands

    names = set()
    for folder in commands.__path__:
        for entry in os.listdir(folder):
            stem, ext = os.path.splitext(entry)
            if ext in (".py", ".pyc") and not stem.startswith("_") and stem.isidentifier():
                names.add(stem)
    return sorted(names)


def _command_modules(only: str | None = None) -> list[ModuleType]:
    import importlib

    from . import commands

    names = command_names() if only is None else [only] if only else []
    mods = [importlib.import_module(f"{commands.__name__}.{name}") for name in names]
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.NAME))


def _chosen_command(argv: list[str]) -> str | None:
    """The subcommand named on the command line when it is a known one; ``""`` for a bare ``--version``
    (no subcommand needed); else None: all are loaded, for the help text or argparse's "invalid choice"."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in command_names() else None
    return "" if "--version" in argv and not {"-h", "--help"} & set(argv) else None


def help_language(argv: list[str]) -> str:
    """The language ``--help`` is written in: the one ``--lang`` names, else the locale's (as the
    commands choose the language of their output), so ``explain --lang fa --help`` reads in Persian."""
    from ..base.labels import LANGUAGES, language_from_env

    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else arg[7:] if arg.startswith("--lang=") else None
        if value is not None:
            return value if value in LANGUAGES else "en"
    return language_from_env()


def _may_show_help(argv: list[str], command: str | None) -> bool:
    """Whether this command line can print help text: no known command (argparse's "invalid
    choice", or the overview), or a help option, abbreviated ('--he') or in a cluster ('-qh').
    Otherwise help is never printed, so its words are not looked up (usage errors print only usage)."""
    if command is None:
        return True
    for arg in argv:
        if arg == "--":
            return False
        if arg.startswith("--") and len(arg) >= 3 and "--help".startswith(arg.partition("=")[0]):
            return True
        if arg.startswith("-") and not arg.startswith("--") and "h" in arg:
            return True
    return False


_PARSER: list[type[argparse.ArgumentParser]] = []


def _parser_class() -> type[argparse.ArgumentParser]:
    """:class:`_Parser`, made on first use (argparse is imported only by a run that parses)."""
    if not _PARSER:
        import argparse

        class _Parser(argparse.ArgumentParser):
            """argparse that exits 2 with one line (its default already uses 2; keep the message short).

            ``help_lang`` is the language of the help texts the commands add (labels ``cli.*``); None
            where no help can be printed: the texts stay label keys and no label file is read.
            """

            def __init__(self, *args: Any, help_lang: str | None = "en", **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.help_lang = help_lang

            def error(self, message: str) -> NoReturn:
                self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")

            def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
                self._checking_metavar = True
                try:
                    return super().add_argument(*args, **kwargs)
                finally:
                    self._checking_metavar = False

            def add_subparsers(self, **kwargs: Any) -> Any:
                self._checking_metavar = True  # it formats the bare "xladoctor" as the commands' prog
                try:
                    return super().add_subparsers(**kwargs)
                finally:
                    self._checking_metavar = False

            def _get_formatter(self) -> argparse.HelpFormatter:
                """argparse makes a formatter in every add_argument, only to check the metavar (and in
                add_subparsers, to spell the prog "xladoctor" with no option or positional yet); its width
                asks the terminal, importing shutil (with bz2, lzma, fnmatch) into every start-up (issue
                36).  Neither uses the width: they get a fixed one.  Help and usage text are formatted as
                before, to the terminal's width."""
                if getattr(self, "_checking_metavar", False):
                    formatter_class: Any = self.formatter_class  # typeshed's protocol names prog only
                    return formatter_class(prog=self.prog, width=80)
                return super()._get_formatter()

        _PARSER.append(_Parser)
    return _PARSER[0]


def build_parser(only: str | None = None, lang: str | None = "en") -> argparse.ArgumentParser:
    """The full parser, or (``only``) one with just that subcommand (none for ``""``), for a fast start;
    its help in ``lang``, or (None: no help will be printed) left as label keys."""
    from ..base.labels import label

    def words(key: str) -> str:
        return key if lang is None else label(key, lang)

    parser_class: Any = _parser_class()
    parser = parser_class(prog="xladoctor", help_lang=lang, description=words("cli.description"),
                          epilog=words("cli.epilog"))
    parser.add_argument("--version", action="version", version=version_line())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    for mod in _command_modules(only):
        # HELP and DESCRIPTION are label keys (cli.NAME.help, cli.NAME.description)
        p = sub.add_parser(mod.NAME, help=words(mod.HELP), description=words(getattr(mod, "DESCRIPTION", mod.HELP)),
                           help_lang=lang)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command with stdout/stderr wrapped so no input can drive the terminal."""
    if (sys.argv[1:] if argv is None else argv) == ["--version"]:  # argparse's answer, without argparse
        sys.stdout.write(version_line() + "\n")
        return EXIT_CLEAN
    from ..base.escape import ClosedStream, OutputError, TerminalSafeStream

    out, err, stdin = sys.stdout, sys.stderr, sys.stdin
    # a stream closed at start is None to Python: each gets a stand-in that says so (issue 35, h35h)
    sys.stdout = TerminalSafeStream(out if out is not None else ClosedStream("<stdout>", fail=True))
    sys.stderr = TerminalSafeStream(err if err is not None else ClosedStream("<stderr>", fail=False))
    if stdin is None:  # `<&-`: reading `-` was an internal error (no attribute 'buffer')
        sys.stdin = _ClosedStdin()
    restore = _terminate_as_interrupt()
    try:
        code = _main(argv)
        sys.stdout.flush()  # a full disk shows here, where the buffered output is written
        return code
    except OutputError as failed:  # the last flush failed (escape.TerminalSafeStream): one line, exit 2
        print(f"xladoctor: {failed}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as stop:  # outside a command (parsing arguments, the last flush)
        return _interrupted(stop)
    finally:
        try:
            sys.stdout.flush()
        except (BrokenPipeError, ValueError, KeyboardInterrupt):
            pass
        sys.stdout, sys.stderr, sys.stdin = out, err, stdin
        restore()


class _ClosedStdin:
    """Stdin closed at start (``<&-``): reading ``-`` is one located line, exit 2."""

    @property
    def buffer(self) -> Any:
        from ..base.errors import InputError

        raise InputError("stdin is closed: '-' reads it", "<stdin>", 1, 1)

    def isatty(self) -> bool:
        return False


def _terminate_as_interrupt() -> Callable[[], None]:
    """SIGTERM raises :class:`~xladoctor.base.errors.Terminated` in the main thread while a command runs,
    as Ctrl-C raises KeyboardInterrupt, so both end the children (worker pools, compile workers)
    on the way out; a second SIGTERM kills at once.  Returns what puts the old handler back."""
    # The C module under ``signal``: that one builds three IntEnums at import (start-up, issue 36);
    # its handlers and SIG_DFL are the same values.
    import _signal as signal  # type: ignore[import-not-found]

    if signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        return lambda: None

    def terminated(signum: int, frame: object) -> None:
        from ..base.errors import Terminated

        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated()

    def restore() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    try:
        signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread (threading is not imported to ask: start-up time)
        return lambda: None
    return restore


def _interrupted(stop: KeyboardInterrupt) -> int:
    """Exit 130 after Ctrl-C, 143 after SIGTERM (128 + the signal), as a shell reports them."""
    from ..base.errors import Terminated

    terminated = isinstance(stop, Terminated)
    try:
        print(f"xladoctor: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    except (OSError, ValueError):
        pass
    return 143 if terminated else 130


# Command lines read without argparse (issue 36: ``xladoctor shape SHAPE`` within 2x a bare Python;
# h48s: ``offload FILE`` and ``check FILE``, whose parsers with every option and its help took
# ~5 ms of a ~100 ms run with argparse's import): the command, the name of its one positional
# argument and whether argparse gives it as a list (``nargs="*"``), its flags without a value, and
# its other options' defaults.  tests/test_startup.py checks that argparse gives the same namespace.
_TOPOLOGY = "v5e:2x2"  # oracle.topologies.DEFAULT_TOPOLOGY, not imported for it (a test keeps the two equal)
_CHECK_OPTIONS = frozenset({
    "-h", "--help", "--examples", "--fix", "--unsafe-fixes", "--diff", "--rule", "--strict", "--lang", "--bidi",
    "--html", "--full", "--jobs", "-j", "--json", "--format", "--statistics", "--color", "--colour", "--select",
    "--ignore", "--disable-host-compute", "--stablehlo", "--confirm", "--topology", "--run", "--seed"})
"""check's ``check_option_strings`` (what it refuses as a path after ``--``), as argparse lists them."""
PLAIN_COMMANDS: dict[str, tuple[str, bool, tuple[str, ...], dict[str, object]]] = {
    "shape": ("shape", False, ("--json",), {"tpu": None, "lang": None, "bidi": "auto"}),
    "offload": ("file", False, ("--json", "--trace"), {
        "rule": "shipped", "format": None, "statistics": False, "color": "auto", "select": None, "ignore": None,
        "fix": None, "output": None, "diff": False, "stablehlo": None, "graph": None, "disable_host_compute": False,
        "lang": None, "bidi": "auto", "html": None, "confirm": False, "topology": _TOPOLOGY, "run": False, "seed": 0}),
    "check": ("paths", True, ("--json",), {
        "examples": False, "fix": False, "unsafe_fixes": False, "diff": False, "rule": "shipped", "lang": None,
        "bidi": "auto", "html": None, "full": False, "jobs": 0, "format": None, "statistics": False, "color": "auto",
        "select": None, "ignore": None, "disable_host_compute": False, "stablehlo": None, "confirm": False,
        "topology": _TOPOLOGY, "run": False, "seed": 0, "check_option_strings": _CHECK_OPTIONS}),
    # h52s: ``explain LOG`` too, the log route (issue 36 item 6): argparse, gettext and locale, and
    # the parser with explain's options, were ~80 of its ~1,900 system calls and ~17M instructions
    "explain": ("target", False, ("--json",), {
        "list": False, "lang": None, "bidi": "auto", "width": None, "hlo": None, "format": None,
        "statistics": False, "color": "auto", "select": None, "ignore": None, "html": None}),
}


def plain_arguments(argv: list[str]) -> dict[str, object] | None:
    """The arguments of a plain command line of a :data:`PLAIN_COMMANDS` command (its one
    positional, ``-`` or not starting with ``-``, and its flags written out in full), as argparse
    would give them; None for anything else, which argparse reads (abbreviations, ``--``,
    ``--help``, an option with a value, a usage error)."""
    if not argv or argv[0] not in PLAIN_COMMANDS:
        return None
    dest, as_list, flags, defaults = PLAIN_COMMANDS[argv[0]]
    values: dict[str, object] = {"command": argv[0], **defaults, **{flag[2:]: False for flag in flags}}
    positional = None
    for arg in argv[1:]:
        if arg in flags:
            values[arg[2:]] = True
        elif positional is None and (arg == "-" or not arg.startswith("-")):
            positional = arg
        else:
            return None
    if positional is None:
        return None
    values[dest] = [positional] if as_list else positional
    return values


def _parsed(argv: list[str]) -> argparse.Namespace | None:
    """The command line read, with the command's ``run`` as ``_run``; None when no command was named
    (the overview was printed)."""
    plain = plain_arguments(argv)
    if plain is not None:
        module = __import__(f"{__package__}.commands.{plain['command']}", fromlist=["run"])
        # types.SimpleNamespace is this very class (types.py: ``type(sys.implementation)``); the
        # ``types`` module is not imported for it (start-up, issue 36 item 5)
        namespace: Any = type(sys.implementation)  # typeshed names it sys._implementation
        return namespace(**plain, _run=module.run)  # argparse's attributes
    command = _chosen_command(argv)
    parser = build_parser(command, help_language(argv) if _may_show_help(argv, command) else None)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return None
    return args


def _main(argv: list[str] | None) -> int:
    from ..base.errors import InputError, XlaDoctorError
    from ..base.escape import OutputError

    argv = sys.argv[1:] if argv is None else argv
    args = _parsed(argv)
    if args is None:
        return EXIT_USAGE
    try:
        if getattr(args, "html", None) == "-":  # it wrote a file named "-" (issue 38's first hour)
            from ..base.errors import UsageError
            from ..base.labels import label

            raise UsageError(label("cli.html_not_stdout"))
        if hasattr(args, "format"):  # the commands with findings: --format and its alias --json
            from .commands._format import resolve_format

            resolve_format(args)
            _paint_text_report(args)
        return args._run(args)
    except InputError as err:
        print(err, file=sys.stderr)  # already "source:line:col: message"
        return EXIT_USAGE
    except XlaDoctorError as err:
        print(f"xladoctor: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_CLEAN
    except OutputError as err:  # stdout could not be written (escape.TerminalSafeStream): one line, exit 2
        print(f"xladoctor: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as stop:
        return _interrupted(stop)
    except Exception as err:  # a bug, not the user's fault: still one line, unless asked for the trace
        if os.environ.get("XLADOCTOR_DEBUG"):
            raise
        from ..base.labels import label

        where = label("status.while_running", command=args.command) if getattr(args, "command", None) else ""
        print(label("status.internal_error", where=where, error=f"{type(err).__name__}: {err}"), file=sys.stderr)
        return EXIT_USAGE


def _paint_text_report(args: argparse.Namespace) -> None:
    """The text report in colour where colour is on (``--color``, NO_COLOR, FORCE_COLOR, a terminal);
    :func:`main` puts the plain stream back when the command ends."""
    if args.format != "text":
        return
    from ..report.colour import PaintingStream, colour_enabled

    if colour_enabled(sys.stdout, mode=getattr(args, "color", "auto")):
        sys.stdout = PaintingStream(sys.stdout)
