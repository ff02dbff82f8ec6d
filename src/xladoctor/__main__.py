"""Lets ``python -m xladoctor`` run the CLI."""

from .cli.main import main

raise SystemExit(main())
