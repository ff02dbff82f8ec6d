"""The command line: ``xladoctor`` (``main``) and one module per subcommand (``commands/``)."""

from .main import main

__all__ = ["main"]
