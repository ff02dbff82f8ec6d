"""Hand-made HLO module text for parser cases (what XLA's parser, jaxlib's and ours accept)."""

from __future__ import annotations


def entry(*lines: str, header: str = "HloModule m", before: str = "", after: str = "") -> str:
    """A module whose ENTRY has ``p = f32[2]{0} parameter(0)`` then ``lines``; ``before``: computations
    ahead of it; ``after``: text right after the ENTRY's closing brace (an attribute of the computation)."""
    body = "".join(f"  {line}\n" for line in lines)
    return f"{header}\n\n{before}ENTRY e {{\n  p = f32[2]{{0}} parameter(0)\n{body}}}{after}\n"


ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n\n"
BRANCH = "b0 {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} negate(x)\n}\n\n"
