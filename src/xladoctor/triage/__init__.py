"""What an input is before it is analysed: whether any analysis applies (``hlo_triage``),
which platform and stage made it (``provenance``), what it holds (``hlo_summary``)."""
