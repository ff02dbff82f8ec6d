"""Offloading checkpoint policies that do nothing: the silent no-op users lose days to.

``jax.checkpoint_policies.save_and_offload_only_these_names(names_which_can_be_offloaded=[...])``
offloads the values named by ``checkpoint_name`` - and, given a name the program never uses (a
typo, a name from another model), offloads nothing, without a word from JAX or XLA: the step
runs, only its memory is not what was planned.  The HLO has lost both the policy and the names,
so this is read from the traced program (``LoweredProgram.jaxpr``): every remat's policy, and
every ``checkpoint_name`` anywhere in the program.  A policy's names are read from the closure
``save_and_offload_only_these_names`` builds (through ``save_from_both_policies``' too); whether it
offloads a name is asked of the policy itself, as JAX's partial evaluation asks it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..base.labels import label

_REMAT = ("checkpoint", "remat", "remat2")
_NAME = "name"
_OFFLOAD_NAMES = "names_which_can_be_offloaded"


@dataclass(frozen=True)
class PolicyNoOp:
    """One offloading policy that offloads less than it names: a fact of the traced program that
    ``check_offload`` adds to its report (its text and ``policy_findings`` in its JSON), not a
    :class:`~xladoctor.findings.Finding`: neither XLA nor JAX raises anything, there is no code."""

    kind: str
    """``names-unmatched`` (some names match no ``checkpoint_name``) or ``offloads-nothing``."""
    names: tuple[str, ...]
    """The policy's offload names that no ``checkpoint_name`` in the program has."""
    program_names: tuple[str, ...]
    """The ``checkpoint_name``s the program has."""
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "names": list(self.names), "program_names": list(self.program_names),
                "message": self.message}


def _sub_jaxprs(value: Any) -> Iterator[Any]:
    if hasattr(value, "eqns"):
        yield value
    elif hasattr(getattr(value, "jaxpr", None), "eqns"):
        yield value.jaxpr
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _sub_jaxprs(v)


def _walk(jaxpr: Any, policies: dict[int, Any], names: list[str]) -> None:
    for eqn in jaxpr.eqns:
        prim = eqn.primitive.name
        if prim == _NAME and isinstance(eqn.params.get("name"), str):
            names.append(eqn.params["name"])
        policy = eqn.params.get("policy")
        if prim in _REMAT and callable(policy):
            policies.setdefault(id(policy), policy)
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                _walk(sub, policies, names)


def _offload_names(policy: Any, depth: int = 0) -> set[str] | None:
    """The names an offloading policy was built with (None: not a names-based offload policy)."""
    code, cells = getattr(policy, "__code__", None), getattr(policy, "__closure__", None) or ()
    if code is None or depth > 4:
        return None
    free = dict(zip(code.co_freevars, cells))
    cell = free.get(_OFFLOAD_NAMES)
    if cell is not None:
        try:
            return {str(n) for n in cell.cell_contents}
        except (ValueError, TypeError):  # an empty cell, not an iterable
            return None
    found: set[str] | None = None
    for c in cells:
        try:
            inner = c.cell_contents
        except ValueError:
            continue
        if callable(inner) and inner is not policy:
            names = _offload_names(inner, depth + 1)
            if names is not None:
                found = (found or set()) | names
    return found


def _offloads(policy: Any, name: str) -> bool:
    from jax._src.ad_checkpoint import name_p
    from jax._src.interpreters import partial_eval as pe

    try:
        return isinstance(policy(name_p, name=name), pe.Offloadable)
    except Exception:  # a user's policy may expect other parameters
        return False


def policy_findings(closed_jaxpr: Any) -> list[PolicyNoOp]:
    """The offloading remat policies of a traced program that name no ``checkpoint_name`` of it."""
    jaxpr = getattr(closed_jaxpr, "jaxpr", closed_jaxpr)
    if not hasattr(jaxpr, "eqns"):
        return []
    policies: dict[int, Any] = {}
    names: list[str] = []
    _walk(jaxpr, policies, names)
    program = tuple(dict.fromkeys(names))
    out: list[PolicyNoOp] = []
    for policy in policies.values():
        wanted = _offload_names(policy)
        if not wanted:
            continue
        missing = tuple(sorted(wanted - set(program)))
        have = ", ".join(program) or label("jax_report.policy_no_names")
        hints = "".join(label("jax_report.policy_did_you_mean", name=m, close=close[0])
                        for m in missing if (close := difflib.get_close_matches(m, program, n=1)))
        offloaded = any(_offloads(policy, n) for n in program)
        if not offloaded:
            out.append(PolicyNoOp("offloads-nothing", missing, program, label(
                "jax_report.policy_offloads_nothing", names=", ".join(sorted(wanted)), have=have) + hints))
        elif missing:
            out.append(PolicyNoOp("names-unmatched", missing, program, label(
                "jax_report.policy_names_unmatched", names=", ".join(missing), have=have) + hints))
    return out


PolicyFinding = PolicyNoOp
"""The name this had before ``Finding`` meant one thing; kept so users' code works."""
