"""From a user's input to its Report: one route per input kind, one options object (issue 37).

The layer between the analyses' findings and the commands: ``route.options.Options`` is what
every route takes.  The routes themselves (HLO text with or without its StableHLO companion,
StableHLO alone, a log, a folder of these) still live in ``pipeline.py`` and ``checking/``,
which will move here; new route code goes in this package.
"""
