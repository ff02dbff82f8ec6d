"""One module per CLI subcommand; see :mod:`xladoctor.cli.main` for the contract."""
