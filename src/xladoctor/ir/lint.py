"""``HloModule.lint()``: the IR's own invariants, checked (XLA's HloVerifier checks the same links).

Why: every pass here rewrites the graph through :class:`~.instruction.HloInstruction`'s
methods, and a verdict is only as good as the links it walks -- an operand whose users miss
the instruction, a name two instructions share, a stale caller index all change which walk
comes first without any error.  The tests lint the module after every pass; a pass that
breaks a link fails there, where it broke it, not three passes later.

Checked: each operand link has its user link and back, once each, within one computation;
every :class:`~.users.Users` index matches its vector; names are unique and the name table
maps each to its instruction; every instruction's ``parent`` is the computation listing it;
the root and parameters belong to their computation (parameter ``k`` at slot ``k``); called
computations are in the module and the caller index (when built) is the call graph's.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from .computation import HloComputation
    from .instruction import HloInstruction
    from .module import HloModule


class LintError(ValueError):
    """An IR invariant broken by code (a pass), not by input: a bug, listed problem by problem."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = "; ".join(problems[:10]) + (f"; ... ({len(problems)} problems)" if len(problems) > 10 else "")
        super().__init__(shown)


def lint_problems(module: HloModule) -> list[str]:
    """Every broken invariant of ``module``, as one line each (empty: the IR is consistent)."""
    problems: list[str] = []
    seen_names: dict[str, HloInstruction] = {}
    members = {c: set(c.instructions) for c in module.computations}
    taken = module.instruction_names.taken
    for comp in module.computations:
        for instr in comp.instructions:
            if instr.name in seen_names:
                problems.append(f"name '{instr.name}' is used twice")
            seen_names[instr.name] = instr
            if module.names.get(instr.name) is not instr:
                problems.append(f"the name table does not map '{instr.name}' to it")
            if not taken(instr.name):
                problems.append(f"the module's uniquer never gave out '{instr.name}'")
            if instr.parent is not comp:
                problems.append(f"'{instr.name}' is listed in {comp.name} but its parent is "
                                f"{instr.parent.name if instr.parent else None}")
            problems.extend(_link_problems(instr, members[comp]))
            for callee in instr.called_computations:
                if module.get_computation(callee.name) is not callee:
                    problems.append(f"'{instr.name}' calls {callee.name}, which is not in the module")
        problems.extend(_computation_problems(comp, members[comp]))
    if len(module.names) != len(seen_names):
        problems.append(f"the name table has {len(module.names)} live names for {len(seen_names)} instructions")
    problems.extend(_caller_problems(module))
    return problems


def _link_problems(instr: HloInstruction, members: set[HloInstruction]) -> list[str]:
    out = []
    for op in instr.operands:
        if instr not in op.users:
            out.append(f"'{instr.name}' uses '{op.name}', which does not list it as a user")
        if op not in members:
            out.append(f"'{instr.name}' uses '{op.name}' of another computation (or none)")
    users = list(instr.users)
    if len(set(users)) != len(users):
        out.append(f"'{instr.name}' lists a user twice")
    for user in users:
        if not any(o is instr for o in user.operands):
            out.append(f"'{instr.name}' lists '{user.name}' as a user, which does not use it")
        if user not in members:
            out.append(f"'{instr.name}' lists '{user.name}' as a user, which is not in its computation")
    if not instr.users_consistent():
        out.append(f"the users index of '{instr.name}' does not match its users")
    return out


def _computation_problems(comp: HloComputation, members: set[HloInstruction]) -> list[str]:
    out = []
    if comp.root is not None and comp.root not in members:
        out.append(f"the root of {comp.name}, '{comp.root.name}', is not one of its instructions")
    for k, param in enumerate(comp.parameters):
        if param is None or param not in members:
            out.append(f"parameter {k} of {comp.name} is not one of its instructions")
        elif param.parameter_number != k:
            out.append(f"'{param.name}' is parameter({param.parameter_number}) at slot {k} of {comp.name}")
    return out


def _caller_problems(module: HloModule) -> list[str]:
    built = module._callers  # the index as the module holds it, before callers_of rebuilds it
    if built is None:
        return []
    fresh: dict[HloComputation, list[HloInstruction]] = {}
    for comp in module.computations:
        for instr in comp.instructions:
            for callee in instr.called_computations:
                fresh.setdefault(callee, []).append(instr)
    if {c: list(v) if isinstance(v, list) else [v] for c, v in built.items()} != fresh:
        return ["the caller index is stale (calls changed without calls_changed())"]
    return []
