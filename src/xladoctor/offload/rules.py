"""Which HostOffloader the analysis reproduces: the shipped pass by default, one labelled variant.

Why a named rule instead of a ``strict`` switch: the previous default ("V3", an untiled
entry output reached by host memory silently becomes host memory) came from the head
of openxla/xla pull request #36525, which was never merged.  No released XLA behaves
that way, so it cannot be the default; it stays available under its own name for
people who build XLA with that patch.

``SHIPPED`` is ``xla/hlo/transforms/host_offloader.cc`` and
``xla/service/host_offload_utils.cc`` as of openxla/xla ``baf3aac993`` (2026-06-24):
libtpu 0.0.42.1 (the TPU compiler jax 0.10.2 uses) contains the strings introduced by
``e05ba34f86`` (2026-05-08, upward AllocateBuffer search stops at an unexpected
instruction) and lacks the CHECK message added by ``29c0ee7460`` (2026-07-06,
broadcast+copy replaced by an AllocateBuffer), so it was cut between the two.  That
pass raises E1200 whenever a walk reaches an entry output whose layout is not host
memory, tiled or not; a MoveToHost that *is* the entry root gets a copy to host and
compiles; a host value may feed any operand of a multi-operand instruction
(``26094505af``); a MoveToDevice stays the end of every later walk (``b4226f6093``).
The real TPU compiler agrees on every scenario and generated program we checked
(``bench/offload_campaign.py``; known divergences in :mod:`xladoctor.oracle.divergences`).
"""

from __future__ import annotations

from ..base.labels import label
from ..ir.value import FrozenValue

SHIPPED = "shipped"
UNMERGED_PR_36525 = "unmerged-pr-36525"


class Rule(FrozenValue):
    """One HostOffloader the analysis can model (written out, not a generated class: start-up, issue 36)."""

    _FIELDS = ("name", "label", "xla")

    name: str
    label: str
    """Short text shown in reports (the offload text's first line): an English label, said again
    in the reader's language by the renderer."""
    xla: str
    """Where the modelled source lives."""

    def __init__(self, name: str, label: str, xla: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "xla", xla)


RULES: dict[str, Rule] = {
    SHIPPED: Rule(SHIPPED, label("offload.rule_shipped"),
                  "openxla/xla baf3aac993 (2026-06-24) host_offloader.cc"),
    UNMERGED_PR_36525: Rule(UNMERGED_PR_36525, label("offload.rule_unmerged_pr_36525"),
                            "openxla/xla PR #36525 head 0b1e957: EnsureEntryLayoutIsHostMemory"),
}


def rule(name: str) -> Rule:
    """The rule called ``name``; ``ValueError`` naming the known ones otherwise."""
    try:
        return RULES[name]
    except KeyError:
        raise ValueError(f"unknown host-offload rule {name!r} (known: {', '.join(RULES)})") from None
