"""Human-readable numbers: byte counts with binary units, ratios."""

from __future__ import annotations


def human_bytes(n: int) -> str:
    """``5242880`` -> ``5.00 MiB``; exact below 1 KiB; a negative count keeps its sign."""
    if n < 0:
        return "-" + human_bytes(-n)
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        value /= 1024.0
        if value < 1024.0 or unit == "PiB":
            return f"{value:.2f} {unit}"
    raise AssertionError("unreachable")


def bytes_text(n: int) -> str:
    """``5242880`` -> ``5,242,880 B (5.00 MiB)``."""
    exact = f"{n:,} B"
    return exact if n < 1024 else f"{exact} ({human_bytes(n)})"


def ratio_text(a: int, b: int) -> str:
    """How many times larger ``a`` is than ``b`` (``3.20x``); ``n/a`` when ``b`` is 0."""
    return f"{a / b:.2f}x" if b else "n/a"


def count_text(n: int, singular: str, plural: str | None = None) -> str:
    """``1 finding``, ``2 findings``, ``1,024 files``: the number and the word that agrees with it."""
    word = singular if n == 1 else (plural or singular + "s")
    return f"{n:,} {word}"
