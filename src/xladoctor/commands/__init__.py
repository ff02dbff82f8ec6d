"""One module per CLI subcommand; see :mod:`xladoctor.cli` for the contract."""
