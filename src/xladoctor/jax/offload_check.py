"""E1200 before compiling: ``check_offload(fn, *args, **jit_kwargs)``.

The program is lowered for the target platform (TPU by default) without being
compiled, its entry layout gets the memory kinds JAX declared (see
:mod:`.lowering`), and :func:`xladoctor.offload.analyze_host_offload` replays
XLA's HostOffloader on it.  Each offending output is then told in the user's
terms: its pytree path (``jax.result_info``), the Python line where the tensor
went to host, the lines it travelled through, and both fixes as code.

Rule: released XLA (libtpu 0.0.42.1 for TPU, jaxlib 0.10.2's GPU plugin) raises E1200
whenever a host tensor reaches an output declared in device memory, on every
platform and whatever the layout.  ``rule="unmerged-pr-36525"`` selects the
never-merged variant that instead moves an untiled output to host memory silently
(reported as a note, not an error).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import jax

from ..base.labels import glossary, label
from ..base.units import count_text
from ..findings import Report, to_json
from ..findings.model import Finding, FindingKind, Fix, FixKind, freeze_json
from ..findings.schema_files import schema_id
from ..findings.serialise import thaw_json
from ..ir.shape import format_shape_index
from ..offload.analysis import analyze_host_offload
from ..offload.fixes import suggest_fixes
from ..offload.result import HostOffloadResult, OutputMismatch, PathHop
from ..offload.rules import SHIPPED
from .fix_code import device_fix_code, host_fix_code
from .lowering import JIT_OPTIONS, LoweredProgram, declared_out_shardings, lower_program
from .offload_text import render_text
from .policy_check import PolicyNoOp, policy_findings
from .source_line import SourceLine, line_json
from .stack import python_stack

if TYPE_CHECKING:
    from ..oracle.confirmation import Confirmation, Judge

_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""xladoctor's own frames (it traces the program) are left out of callers."""


OffloadFinding = Finding
"""The name ``check_offload``'s findings had before there was one finding type; kept so users'
code works.  An E1200 of a JAX program is a :class:`~xladoctor.findings.Finding` carrying the
program's facts (``output``, ``leaf``, ``offloaded_at``, ``host_fix``, ...: docs/jax.md)."""


@dataclass
class ProgramCheck:
    """What only the check of a lowered JAX program knows (the :class:`Report`'s ``analysis``): the
    target, the rule and XLA's outcome, the notes, the policies that offload nothing, the
    HostOffloader result and the lowered program, and the real compiler's verdict when asked."""

    platform: str | None
    rule: str
    """The host-offload rule used (:mod:`xladoctor.offload.rules`)."""
    outcome: str
    """``ok``, ``E1200`` or ``failure`` (the pass fails another way first)."""
    notes: list[str] = field(default_factory=list)
    policy_findings: list[PolicyNoOp] = field(default_factory=list)
    """Offloading checkpoint policies that offload less than they name (nothing, at worst): the
    program compiles and runs, so ``ok`` stays true, but the memory plan silently did not happen."""
    failures: list[str] = field(default_factory=list)
    result: HostOffloadResult | None = None
    program: LoweredProgram | None = None
    confirmation: Any = None
    """``check_offload(..., confirm=True)``: an :class:`xladoctor.oracle.Comparison` of this
    prediction with the real TPU compiler's verdict; ``None`` when not asked or not possible."""
    confirm_note: str | None = None
    """Why ``confirm=True`` could not run here (no ``[tpu]`` extra, not Linux x86-64...)."""
    judge: Judge | None = None
    """``check_offload(..., run=True)``: which judge answered (the chip, or libtpu compile-only)."""
    run: Mapping[str, Any] | None = None
    """``check_offload(..., run=True)``: what the one run on the chip did against the CPU, as
    ``offload --confirm --run``'s ``run`` object (docs/json.md; ``outcome``: ``right``, ``wrong``,
    ``halt``, ``not_run``...)."""

    def ok(self, report: Report | None = None) -> bool:
        """No error predicted and, when confirmed, none from the real compiler either."""
        confirmed = self.confirm_document()  # the compiler rejected it, or its run on the chip failed
        errors = self.result is not None and bool(self.result.errors)
        return not errors and not self.failures and not (confirmed is not None and confirmed.is_error)

    @property
    def disagrees(self) -> bool:
        """True when the real compiler was asked and its verdict differs from the prediction."""
        return self.confirmation is not None and self.confirmation.agree is False

    @property
    def target(self) -> str:
        return self.platform or label("jax_report.local_backend")

    def offloads(self) -> dict[str, int]:
        """What the analysis saw move to host memory: ``moves_to_host`` (MoveToHost custom
        calls, from ``device_put`` to ``pinned_host`` or an offloading remat policy, dropped
        ones included) and ``host_arguments`` (parameters that arrive in host memory)."""
        if self.result is None:
            return {"moves_to_host": 0, "host_arguments": 0}
        origins = {w.origin for w in self.result.walks}
        moves = {o for o in origins if o.startswith("move-to-host")}
        moves |= {f"move-to-host {d.move_to_host}" for d in self.result.dropped_offloads}
        return {"moves_to_host": len(moves),
                "host_arguments": sum(1 for o in origins if o.startswith("input-streaming"))}

    def offending_leaves(self) -> list[int]:
        if self.result is None or self.program is None:
            return []
        leaves = _leaf_numbers(self.program)
        return sorted({leaves.get(_main_index(e), _main_index(e)) for e in self.result.errors})

    def suggested_out_shardings(self, sharding: Any) -> Any:
        """An ``out_shardings`` pytree: ``sharding`` moved to ``pinned_host`` at each offending
        output, elsewhere the ``out_shardings`` the program was jitted with (``None``, JAX decides,
        where it gave none); pass it to ``jax.jit``."""
        if self.program is None:
            raise ValueError("no lowered program to take the output tree from")
        out_tree = self.program.lowered.out_tree
        host = sharding.with_memory_kind("pinned_host")
        bad = set(self.offending_leaves())
        declared = declared_out_shardings(self.program.lowered) or [None] * out_tree.num_leaves
        leaves = [host if i in bad else declared[i] for i in range(out_tree.num_leaves)]
        return jax.tree_util.tree_unflatten(out_tree, leaves)

    def text(self, report: Report) -> str:
        return render_text(report)

    def summary(self, report: Report) -> str:
        e1200 = sum(1 for f in report.findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH)
        return (f"<OffloadReport {self.outcome} on {self.target}: "
                f"{count_text(e1200, 'finding')}, {count_text(len(self.failures), 'failure')}>")

    def html(self, report: Report) -> str:
        """The ``--html`` page of this program's offload document."""
        from .display import offload_html

        return offload_html(report)

    def document(self, report: Report) -> dict[str, Any]:
        return report_json(report)

    def diagnostics(self, lang: str = "en") -> Report:
        """The same findings ``xladoctor offload`` gives for this program's HLO (the one adapter),
        located in the lowered module (``path`` None: it is in memory), without the program's
        facts: the ``diagnostics`` of the JSON documents.  Its details are ``offload``'s route's
        (:class:`~xladoctor.findings.details.OffloadDetails`, the lowered module with them)."""
        if self.result is None or self.program is None:
            return Report("check_offload", (), (), lang)
        from ..route.module_analysis import analysis_of

        names = [r.name or "" for r in self.program.signature.results] or None
        mc = analysis_of(self.program.module, self.result, None, names)
        mc.confirm = self.confirm_document()
        return Report("check_offload", (), mc.findings(lang), lang,
                      details=mc.details().replace(module=self.program.module))

    def confirm_document(self) -> Confirmation | None:
        """The confirmation as ``offload --confirm`` has it (docs/json.md), ``judge`` and ``run``
        included after ``run=True``; None when not confirmed."""
        if self.confirmation is None:
            return None
        from ..oracle.confirmation import Confirmation
        from ..oracle.topologies import platform_of

        topology = getattr(self.confirmation.verdict, "topology", None)
        doc = Confirmation.of(self.confirmation, platform_of(topology or ""), topology)
        if self.run is not None:
            doc = replace(doc, judge=self.judge, run=self.run)
        return doc

    def report(self) -> Report:
        """The one report type, this check attached: its findings are :meth:`diagnostics`', each
        E1200 with the program's facts (``fields["jax"]``) and both fixes as the program's code."""
        diagnostics = self.diagnostics()
        found = diagnostics.findings
        if self.result is not None and self.program is not None:
            found = _with_program_facts(found, self.program, self.result, self.target)
        return Report("check_offload", (), found, "en", analysis=self, details=diagnostics.details)


OffloadReport = Report
"""The name ``check_offload`` returned before there was one report type; kept so users' code works."""


def _main_index(err: OutputMismatch) -> int:
    return err.output_index[0] if err.output_index else 0


def _leaf_numbers(program: LoweredProgram) -> dict[int, int]:
    """@main result index -> pytree leaf number (token results are not leaves)."""
    out, leaf = {}, 0
    for r in program.signature.results:
        if not r.is_token:
            out[r.index] = leaf
            leaf += 1
    return out


def _steps(hops: tuple[PathHop, ...]) -> list[dict[str, Any]]:
    """The path's hops as ``fields["jax"]`` and ``to_json()`` write them: the HLO instruction (with
    the tuple index it holds) and the Python line behind it."""
    return [{"instruction": h.instruction + ("" if not h.shape_index else str(list(h.shape_index))),
             "opcode": h.opcode, "shape": h.shape, "source": line_json(SourceLine.of(h.location))} for h in hops]


def _origin(program: LoweredProgram, err: OutputMismatch
            ) -> tuple[SourceLine | None, tuple[SourceLine, ...], tuple[SourceLine, ...]]:
    """Where the tensor went to host: the primary frame of its stack (:mod:`xladoctor.ir.frames`:
    the user's line, not a helper that only wraps the placement nor a library's), its callers up
    to the traced function, and the helpers between it and the placement (from the user's line inwards)."""
    from ..ir.frames import frame_roles, primitive_name

    instr = program.module.get_instruction(err.origin_instruction)
    if instr is None:
        return None, (), ()
    stack = [f for f in python_stack(program.module, instr) if not f.file.startswith(_OWN_DIR)]
    if not stack:
        return None, (), ()
    md = instr.metadata
    roles = frame_roles(stack, _traced_name(program), primitive_name(md.op_name if md is not None else None))
    callers = [s for s in (SourceLine.of(c) for c in roles.callers) if s is not None]
    traced = program.traced_function or (None, _traced_name(program))
    helpers = tuple(h for h in (SourceLine.of(c) for c in reversed(roles.helpers)) if h is not None)
    return SourceLine.of(roles.primary), tuple(_up_to_traced_function(callers, traced)), helpers


def _traced_name(program: LoweredProgram) -> str:
    """The traced function's name: known when xladoctor traced it, else read from the module's
    name (``jit_step``), as for a ``Lowered`` the exception hook finds."""
    return program.traced_function[1] if program.traced_function else program.module.name.removeprefix("jit_")


def _up_to_traced_function(callers: list[SourceLine], traced: tuple[str | None, str] | None) -> list[SourceLine]:
    """Drop the frames outside the traced function (its callers: the code that ran the check);
    ``traced`` is ``(file, name)``, the file None when only the name is known."""
    if traced is None or not traced[1]:
        return callers
    file, name = traced
    for i, s in enumerate(callers):
        if file in (None, s.file) and s.function is not None and s.function.rsplit(".", 1)[-1] == name:
            return callers[:i + 1]
    return callers


def _returned_line(program: LoweredProgram, fix: Any) -> SourceLine | None:
    """Where the device fix goes: the returned value's frame in the traced function (the function
    whose ``return`` makes the output), not the innermost frame, which may be a helper or another
    frontend's library (``place_to_host``'s own body); the innermost frame when none is in it."""
    if fix is None:
        return None
    innermost = SourceLine.of(fix.returned_location)
    instr = program.module.get_instruction(fix.returned_value.split("{", 1)[0])
    name = _traced_name(program)
    if instr is None or not name:
        return innermost
    for loc in python_stack(program.module, instr):
        line = SourceLine.of(loc)
        if line is not None and line.function and line.function.rsplit(".", 1)[-1] == name:
            return line
    return innermost


def _host_argument(program: LoweredProgram, err: OutputMismatch) -> str | None:
    """The argument's name when the walk started at a host-memory entry parameter."""
    instr = program.module.get_instruction(err.origin_instruction)
    if instr is None or instr.opcode.value != "parameter" or instr.parent is not program.module.entry:
        return None
    md = instr.metadata
    return md.op_name if md is not None and md.op_name else instr.name


def _frontend_primitive(program: LoweredProgram, err: OutputMismatch) -> str | None:
    """The primitive that moved the value to host when it is not JAX's ``device_put`` (another
    frontend's ``place_to_host``, read from the annotation's ``op_name``); None for JAX's own."""
    instr = program.module.get_instruction(err.origin_instruction)
    md = instr.metadata if instr is not None else None
    if instr is None or instr.opcode.value != "custom-call" or md is None or not md.op_name:
        return None
    primitive = md.op_name.rsplit("/", 1)[-1].split("[", 1)[0]
    return None if primitive in ("device_put", "") else primitive


def _with_program_facts(found: tuple[Finding, ...], program: LoweredProgram, result: HostOffloadResult,
                        target: str) -> tuple[Finding, ...]:
    """Each E1200 (one per ``result.errors``, in order) given what only the program says: the
    output's pytree path and leaf, the Python lines of the offload, its callers, its path and the
    return (``fields["jax"]``), and both fixes as the program's JAX code (``Fix.code``)."""
    names = program.result_names
    fixes = {tuple(f.output_index): f for f in suggest_fixes(program.module, result, names)}
    leaves = _leaf_numbers(program)
    offending = {leaves.get(_main_index(e), 0) for e in result.errors}
    errors = iter(result.errors)
    out = []
    for finding in found:
        err = next(errors, None) if finding.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH else None
        if err is None:
            out.append(finding)
            continue
        fix = fixes.get(tuple(err.output_index))
        main_index = _main_index(err)
        # the pytree path (``result['saved']``); none where JAX gave none: the reports then name
        # the output by its ShapeIndex alone (glossary.output), never a second spelling of it
        output = names[main_index] if main_index < len(names) else ""
        said = output or glossary.output(format_shape_index(err.output_index))
        returned = _returned_line(program, fix)
        offloaded_at, offloaded_from, offloaded_via = _origin(program, err)
        facts: dict[str, Any] = {"target": target, "output": output, "leaf": leaves.get(main_index, main_index),
                 "host_argument": _host_argument(program, err), "offloaded_at": line_json(offloaded_at),
                 "offloaded_from": [line_json(c) for c in offloaded_from],
                 "offloaded_via": [line_json(c) for c in offloaded_via],
                 "path": _steps(err.path or err.trace), "returned_at": line_json(returned),
                 "reported_by_xla": err is result.error}
        host = host_fix_code(said, offending, program)
        device = device_fix_code(said, returned, fix.returned_value if fix else label("jax_report.the_value"),
                                 _frontend_primitive(program, err))
        out.append(replace(finding, fields={**finding.fields, "jax": freeze_json(facts)},
                           fixes=(_with_code(finding.fixes, FixKind.HOST_OUTPUT, host),
                                  _with_code(finding.fixes, FixKind.MOVE_TO_DEVICE, device))))
    return tuple(out)


def _with_code(fixes: tuple[Fix, ...], kind: FixKind, code: str) -> Fix:
    """The finding's fix of ``kind`` carrying the JAX code (made, without prose, if the
    analysis had none: the code needs no HLO fix behind it)."""
    fix = next((x for x in fixes if x.kind is kind), Fix(kind, ""))
    return replace(fix, code=code)


def check_lowered(program: LoweredProgram, rule: str = SHIPPED) -> Report:
    """Run the HostOffloader model on an already lowered program."""
    return _check(program, rule).report()


def _check(program: LoweredProgram, rule: str) -> ProgramCheck:
    from ..route.module_analysis import add_later_failures, unpinned_host_failures

    platform = program.platform
    from ..offload.platform_checks import predict_for_platform

    later = unpinned_host_failures(program.module)
    result = predict_for_platform(program.module, analyze_host_offload(program.module, rule, platform=platform or "tpu"), platform)
    add_later_failures(result, later)
    check = ProgramCheck(platform, result.rule, result.outcome, result=result, program=program)
    names = program.result_names
    for moved in result.outputs_moved_to_host:
        i = moved.output_index[0] if moved.output_index else 0
        name = glossary.output(format_shape_index(moved.output_index), name=names[i] if i < len(names) else None)
        check.notes.append(label("jax_report.note_output_moved", name=name, old=moved.old_layout, new=moved.new_layout,
                                 start=moved.start))
    for d in result.dropped_offloads:
        check.notes.append(label("jax_report.note_dropped_offload", name=d.move_to_host, reason=d.reason))
    check.notes.extend(result.later_warnings)  # fails later in compilation: never a silent ok
    if program.jaxpr is not None:
        check.policy_findings = policy_findings(program.jaxpr)
    check.failures = [f"{f.status}: {f.message}" for f in result.failures]
    return check


PLATFORMS = ("tpu", "cuda", "gpu", "rocm", "cpu")
"""The ``platform=`` values jax lowers for (``"gpu"`` is ``"cuda"``)."""


def check_offload(fn: Any, *args: Any, platform: str | None = "tpu", rule: str = SHIPPED,
                  jit_kwargs: dict[str, Any] | None = None, confirm: bool = False, topology: str | None = None,
                  run: bool = False, seed: int = 0, **kwargs: Any) -> Report:
    """Predict E1200 for ``jax.jit(fn, **jit_kwargs)(*args, **kwargs)`` on ``platform``,
    without compiling.

    ``args`` and ``kwargs`` are the function's own arguments, exactly as you would call
    it (``check_offload(step, w, batch=b)``); options for ``jax.jit`` go in
    ``jit_kwargs`` (``jit_kwargs={"out_shardings": s}``).  ``fn`` may be a plain
    function, a jitted function (then give no ``jit_kwargs``) or a
    ``jax.stages.Lowered`` lowered for the target (then give no arguments).  A compiled
    executable or a CPU lowering is refused with the reason: neither still holds the
    offloads XLA checks.  ``args`` may be arrays or ``jax.ShapeDtypeStruct`` (with
    ``sharding=`` carrying a memory kind for host-memory arguments).  ``platform`` is
    what to lower for (``"tpu"``, ``"cuda"``/``"gpu"``, ``"rocm"``, or ``None`` for the
    local backend); ``rule`` picks the host-offload rule (default ``"shipped"``: released XLA on
    every platform; ``"unmerged-pr-36525"``: the never-merged variant, see
    :mod:`xladoctor.offload.rules`).
    ``confirm=True`` also compiles the program for ``topology`` with the real compiler and
    sets ``report.confirmation``: a TPU topology (``pip install 'xladoctor[tpu]'``), or a GPU
    target (``"h100"``, ``"a100"``: XLA:GPU compile-only, ``pip install 'xladoctor[gpu]'``);
    ``None`` picks the one for ``platform`` (``v5e:2x2``, or ``h100`` for ``"cuda"``/``"gpu"``).
    Without the extra, ``report.confirm_note`` says how to get it.
    ``run=True`` (implies ``confirm``, TPU only) compiles the program on the local TPU chip, runs
    it once on random inputs drawn from ``seed`` and compares every output with the CPU's, as
    ``xladoctor offload --confirm --run`` does: a halt, a crash, a refused call or wrong data is a
    failure of its own (``report.ok`` false).  If this process's jax holds the chip already, the
    run happens in this process, so a program that halts the core ends it, as calling the program
    would (docs/chip.md); otherwise in a worker process that lets the chip go afterwards.  Without
    a chip the program is compiled only and the run is ``not_run`` with the reason.
    """
    if platform is not None and platform not in PLATFORMS:  # jax lowers for any name and finds nothing
        raise ValueError(f"check_offload: unknown platform {platform!r}: use one of "
                         f"{', '.join(repr(p) for p in PLATFORMS)}, or None for the local backend")
    if run and topology is not None:  # refused before the program is lowered and analysed
        from ..oracle.topologies import platform_of

        if platform_of(topology) != "tpu":
            raise ValueError(f"check_offload: run=True runs on a TPU chip; topology {topology!r} is not a TPU one")
    misplaced = sorted(JIT_OPTIONS & set(kwargs))
    if misplaced and not _accepts_keywords(fn, misplaced):
        raise TypeError(f"check_offload: {', '.join(misplaced)} is an option of jax.jit, not an argument of the "
                        f"function: pass jit_kwargs={{{', '.join(repr(k) + ': ...' for k in misplaced)}}}")
    program = lower_program(fn, args, jit_kwargs, platform, kwargs)
    check = _check(program, rule)
    if run and check.result is not None:
        from .offload_confirm import run_program

        check.confirmation, check.confirm_note, check.judge, check.run = run_program(
            program, check.result, fn, args, jit_kwargs or {}, kwargs, seed)
    elif confirm and check.result is not None:
        from .offload_confirm import confirm_program

        check.confirmation, check.confirm_note = confirm_program(program, check.result, fn, args,
                                                                 jit_kwargs or {}, topology, kwargs)
    return check.report()


def _accepts_keywords(fn: Any, names: list[str]) -> bool:
    """Whether ``fn`` itself has parameters with these names (or ``**kwargs``)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return all(n in params for n in names)


def _finding_json(f: Finding) -> dict[str, Any]:
    """One E1200 as ``to_json()``'s ``findings[]`` writes it (docs/jax.md)."""
    jax_facts = thaw_json(f.fields.get("jax"))
    return {"output": f.output, "leaf": f.leaf, "xla_message": f.xla_message, "start": f.start,
            "origin": f.fields.get("origin"), "offloaded_at": jax_facts.get("offloaded_at"),
            "offloaded_from": jax_facts.get("offloaded_from"), "offloaded_via": jax_facts.get("offloaded_via", []),
            "host_argument": f.host_argument,
            "path": jax_facts.get("path"), "returned_at": jax_facts.get("returned_at"), "host_fix": f.host_fix,
            "device_fix": f.device_fix, "reported_by_xla": f.reported_by_xla}


def report_json(report: Report) -> dict[str, Any]:
    check = report.analysis
    assert isinstance(check, ProgramCheck)
    return {
        "schema_version": 1, "$schema": schema_id("jax_offload"), "platform": check.platform, "rule": check.rule,
        "outcome": check.outcome,
        "findings": [_finding_json(f) for f in report.findings if f.kind is FindingKind.OFFLOAD_OUTPUT_MISMATCH],
        "notes": list(check.notes), "failures": list(check.failures), "offloads": check.offloads(),
        "policy_findings": [p.to_json() for p in check.policy_findings],
        "confirm": (_confirm_json(check) if check.confirmation is not None
                    else {"available": False, "reason": check.confirm_note} if check.confirm_note else None),
        "diagnostics": to_json(check.diagnostics()),
    }


def _confirm_json(check: ProgramCheck) -> dict[str, Any]:
    """The real compiler's comparison, with ``judge`` and ``run`` after ``run=True``."""
    doc = check.confirmation.to_json()
    if check.judge is not None:
        doc["judge"] = check.judge.to_json()
    if check.run is not None:
        doc["run"] = dict(check.run)
    return doc


def dumps(report: Report) -> str:
    return json.dumps(report_json(report), indent=2)
