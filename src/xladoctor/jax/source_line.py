"""A line of the user's Python program: :class:`xladoctor.findings.source_line.SourceLine`, the
findings model's own (a finding names the program's lines), importable here as before."""

from ..findings.source_line import SourceLine, line_json

__all__ = ["SourceLine", "line_json"]
