"""Lets ``python -m xladoctor`` run the CLI, as the console script does (cli/console.py: the process
ends without tearing its heap down)."""

from .cli.console import main

raise SystemExit(main())
