"""Fresh instruction names for rewrites, the way XLA names clones and new instructions.

XLA's passes name what they add ``base.N`` with a counter per base, skipping names
already in the module.  Keeping the counter per base makes each new name O(1)
amortised, so a rewrite that adds thousands of copies stays linear.
"""

from __future__ import annotations

from .module import HloModule


class NameUniquer:
    """Hands out ``base.1``, ``base.2``, ... never used in ``module`` or handed out before."""

    def __init__(self, module: HloModule):
        self.taken = {i.name for i in module.instructions()}
        self.counters: dict[str, int] = {}

    def new(self, base: str) -> str:
        n = self.counters.get(base, 0)
        while True:
            n += 1
            name = f"{base}.{n}"
            if name not in self.taken:
                break
        self.counters[base] = n
        self.taken.add(name)
        return name
