"""A HostOffloadResult as the ``details`` of the ``offload`` JSON document (docs/json.md ``## offload``).

What a user or CI reads (the verdict, the findings with their fixes and paths, provenance, the
StableHLO read, the real compiler's judgement) is the document's top level, written from the
Report; the analysis' own record of what the pass did (every walk, inserted copy, vlog line) is
here, under the one key ``details``, for people checking the model against XLA and for the
page that draws it.  The text report is drawn from the findings model in
:mod:`xladoctor.report.offload_text`."""

from __future__ import annotations

from .fixes import FixSuggestion
from .result import XLA_VERSION_MODELLED, HostOffloadResult, OutputMismatch, PathHop
from .rules import RULES, SHIPPED

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import Any


def _loc(loc) -> str | None:
    return str(loc) if loc is not None else None


def hop_json(h: PathHop) -> dict[str, Any]:
    return {"instruction": h.instruction, "shape_index": list(h.shape_index), "opcode": h.opcode,
            "shape": h.shape, "computation": h.computation, "location": _loc(h.location)}


def error_json(e: OutputMismatch, fix: FixSuggestion | None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "code": "E1200", "message": e.full_message, "start": e.start, "context": e.context,
        "output_index": list(e.output_index), "output_layout": e.output_layout, "customized": e.customized,
        "origin": e.origin, "origin_instruction": e.origin_instruction, "first": e.first,
        "trace": [{"instruction": h.instruction, "shape_index": list(h.shape_index)} for h in e.trace],
        "path": [hop_json(h) for h in e.path],
    }
    if fix is not None:
        doc["fix"] = {
            "host": {"entry_result_layout": fix.host_layout, "flat_output": fix.flat_output,
                     "result_name": fix.result_name, "jax": fix.host_jax},
            "device": {"after_instruction": fix.returned_value, "location": _loc(fix.returned_location),
                       "jax": fix.device_jax},
        }
        if fix.frontend is not None:  # advice in another frontend's terms (absent: JAX's)
            doc["fix"]["frontend"] = fix.frontend
    return doc


def details_json(result: HostOffloadResult, fixes: list[FixSuggestion]) -> dict[str, Any]:
    """The analysis internals of an ``offload`` document (its ``details`` key, schema version 2)."""
    by_index = {tuple(f.output_index): f for f in fixes}
    errors = [error_json(e, by_index.get(e.output_index)) for e in result.errors]
    first = next((d for d, e in zip(errors, result.errors) if e is result.error), None)
    return {
        "model": XLA_VERSION_MODELLED if result.rule == SHIPPED else RULES[result.rule].xla,
        "rule": result.rule,
        "outcome": result.outcome,
        "error": first,
        "errors": errors,
        "failures": [{"status": f.status, "message": f.message, "instruction": f.instruction, "first": f.first}
                     for f in result.failures],
        "host_positions": [{"instruction": n, "shape_index": list(i)} for n, i in result.host_positions],
        "host_compute": [{"instruction": h.instruction, "opcode": h.opcode, "reason": h.reason,
                          "location": _loc(h.location)} for h in result.host_compute],
        "inserted": [{"kind": i.kind, "name": i.name, "operand": i.operand, "user": i.user,
                      "operand_number": i.operand_number, "replaces": i.replaces} for i in result.inserted],
        "dynamified_slices": list(result.dynamified_slices),
        "dynamic_update_slices": [{"instruction": d.instruction, "update_on_host": d.update_on_host,
                                   "destination_on_host": d.destination_on_host, "action": d.action}
                                  for d in result.dynamic_update_slices],
        "dropped_offloads": [{"move_to_host": d.move_to_host, "reason": d.reason, "users": list(d.users),
                              "location": _loc(d.location)} for d in result.dropped_offloads],
        "outputs_moved_to_host": [{"output_index": list(o.output_index), "old_layout": o.old_layout,
                                   "new_layout": o.new_layout, "start": o.start}
                                  for o in result.outputs_moved_to_host],
        "walks": [{"start": w.start, "shape_index": list(w.shape_index), "origin": w.origin,
                   "insert_copy_before": w.insert_copy_before} for w in result.walks],
        "inlined_calls": list(result.inlined_calls),
        "legalize": legalize_json(result),
        "warnings": list(result.warnings),
        "vlog": list(result.vlog),
    }


def legalize_json(result: HostOffloadResult) -> dict[str, Any] | None:
    """What the HostOffloadLegalize pre-pass did (null when it was not run)."""
    legal = result.legalize
    if legal is None:
        return None
    return {
        "changed": legal.changed,
        "starts": list(legal.starts),
        "moves": [{"copy": m.copy, "action": m.action, "start": m.start, "new_copies": list(m.new_copies),
                   "after": list(m.after), "shapes": [list(s) for s in m.shapes]} for m in legal.moves],
        "rerouted": list(legal.rerouted),
        "notes": [{"start": n.start, "phase": n.phase, "message": n.message, "instruction": n.instruction}
                  for n in legal.notes],
    }
