"""Types of the compiled core's newline count (``_newline_count.c``; catalogue/newlines.py imports it when built)."""

def count(buffer: object, start: int, stop: int, /) -> int:
    """Newlines in ``buffer[start:stop]`` (indices as ``bytes.count`` reads them), without a copy."""
