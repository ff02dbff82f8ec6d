"""Lets ``python -m xladoctor`` run the CLI."""

from .cli import main

raise SystemExit(main())
